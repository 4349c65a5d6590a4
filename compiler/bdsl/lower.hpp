// Lowering: expands every checked bench's sweeps into fully resolved RunPlan points.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bdsl/check.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/param_override.hpp"
#include "compiler/bdsl/plan.hpp"

namespace bpfbench {

// Command-line values that override the file (-w, -d, -p, -c, -a, --prod/cons-affinity).
struct PlanOverrides {
  std::optional<int64_t> warmup_ns;
  std::optional<int64_t> duration_ns;
  std::optional<int> producers;
  std::optional<int> consumers;
  std::optional<bool> affinity;
  std::optional<std::string> prod_cpus;
  std::optional<std::string> cons_cpus;
  std::optional<double> precision_pct;  // --precision
  std::optional<int64_t> min_duration_ns, max_duration_ns;
  std::optional<int64_t> interval_ns;  // --interval
  std::optional<int> rounds;           // --rounds
  // `ab --a/--b NAME=VALUE`: applied to every point whose family (or the builtins) has
  // NAME, after `where`; a NAME no bench has is an error.
  std::vector<ParamOverride> params;
};

// The sampling interval of adaptive points unless --interval says otherwise.
inline constexpr int64_t kAdaptiveIntervalNs = 250'000'000;

std::optional<RunPlan> lower(const CheckedProgram &prog, const std::string &file, const PlanOverrides &overrides,
                             Diagnostics &diags);

// "rb-{sample_rate}" with the point's values; the default label when none is given.
std::string interpolate_label(const std::string &tpl, const PlanPoint &p);

}  // namespace bpfbench
