// `bpfbench emit --dump=xlated|jited`: a point's program loaded as `run` loads it, and
// bpftool's dump of it, bpftool run as a limited child (compiler/limited_child.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/manifest.hpp"
#include "compiler/plan.hpp"
#include "results/error.hpp"

namespace bpfbench {

inline constexpr const char *kBpftoolPath = "/usr/sbin/bpftool";

// Loads the point's programs from `object` (rodata and map sizes as run_point sets them,
// nothing attached) and returns `bpftool prog dump <kind> id <id>` of the point's program
// (its test_run driver when it has no function of its own). `kind`: "xlated" or "jited".
Result<std::string> dump_loaded_program(const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object,
                                        const std::string &kind, const std::string &bpftool = kBpftoolPath);

}  // namespace bpfbench
