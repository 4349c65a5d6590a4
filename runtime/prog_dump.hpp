// `bpfbench emit --dump=xlated|jited`: a point's program loaded as `run` loads it, and
// bpftool's dump of it, bpftool run as a limited child (util/limited_child.hpp).
// `bpfbench plan --facts`: the verifier's and JIT's facts of a point's programs, loaded
// the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "util/error.hpp"
#include "results/prog_info.hpp"

namespace bpfbench {

inline constexpr const char *kBpftoolPath = "/usr/sbin/bpftool";

// Loads the point's programs from `object` (rodata and map sizes as run_point sets them,
// nothing attached) and returns `bpftool prog dump <kind> id <id>` of the point's program
// (its test_run driver when it has no function of its own). `kind`: "xlated" or "jited".
Result<std::string> dump_loaded_program(const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object,
                                        const std::string &kind, const std::string &bpftool = kBpftoolPath);

// Loads the point's programs from `object` as run_point loads them (rodata and map sizes
// set, the verifier's stats line in a log_level 4 buffer per program, nothing attached,
// no setup action run) and returns the facts of each (the point's program first), as
// `run` records them in `prog_facts`. A point without BPF programs (trigger/base) has
// none. A load the verifier refuses is loaded again without the stats buffers, so its
// error carries the verifier's complaint, as in `run`.
Result<std::vector<ProgFacts>> load_prog_facts(const PlanPoint &p, const FamilyManifest &f,
                                               const std::vector<uint8_t> &object);

}  // namespace bpfbench
