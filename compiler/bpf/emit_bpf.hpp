// Emit: RunPlan points -> generated BPF C, one translation unit per distinct program.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/bdsl/source.hpp"

namespace bpfbench {

// Where the template or inline C includes vmlinux.h (its first such line), as clang
// would place that line: the template's or the .bdsl's path, line and column.
struct IncludeSite {
  std::string file;
  uint32_t line = 0, col = 0;
};

struct EmitUnit {
  std::string family;
  std::string virtual_name;    // e.g. "ringbuf-0.bpf.c" (unique per unit)
  std::string c_source;        // the full generated C
  std::vector<size_t> points;  // plan point indices (positions in plan.points) using it
  std::vector<std::pair<std::string, ParamValue>> template_params;
  // Set when the C includes vmlinux.h: it is compiled with the kernel's precompiled
  // vmlinux.h (compiler/bpf/vmlinux_pch.hpp) and its prelude has no <linux/bpf.h>.
  std::optional<IncludeSite> vmlinux;
};

// Groups the plan's points by (family, values of its `template` params) and renders each
// group once: points differing only in rodata/map_size/runtime values share an object.
// A group whose C cannot be generated gets diagnostics and no unit: a template error is
// located in the template (added to `sm`) and shown once, however many groups have it,
// with a note at the bench naming their points (generated_for_note).
std::vector<EmitUnit> emit_programs(const RunPlan &plan, const FamilyRegistry &families, SourceManager &sm,
                                    Diagnostics &diags);

// Renders the C for one point (used by `bpfbench emit --point N`).
std::optional<std::string> emit_point(const PlanPoint &p, const FamilyManifest &f, const FamilyRegistry &families,
                                      SourceManager &sm, Diagnostics &diags);

// "in the BPF program generated for 'a'", or for several points "in the BPF programs
// generated for 'a', 'b' and 'c' (3 points)" (more than four: the first three and how
// many more). `points` index plan.points.
std::string generated_for_note(const RunPlan &plan, const std::vector<size_t> &points);

}  // namespace bpfbench
