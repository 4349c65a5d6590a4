// `--only PATTERN` (run, plan, emit, check): which plan points a command works on.
#pragma once

#include <string>
#include <vector>

#include "compiler/bdsl/plan.hpp"
#include "util/error.hpp"

namespace bpfbench {

// Whether `label` is `pattern` or matches it as a shell glob: the --only rule of every command.
bool label_matches(const std::string &pattern, const std::string &label);

// What a selection keeps besides the points whose labels match.
enum class Baselines {
  // What running them needs: the baseline point of each kept main point, and a matched
  // baseline's main point (run, plan, check, ab).
  Follow,
  // Nothing: exactly the points named, a kept main point without its baseline (its
  // `baseline` unset). `emit` shows the program of the point asked for: a baseline runs
  // before its main point, and when it came along it was the first point emitted.
  Exact,
};

// Keeps the points whose label equals a pattern or matches it as a shell glob (`rb-*`,
// `lpm-1000?`), with their baselines as `baselines` says, renumbered in plan order. Every
// pattern must match a point: one that matches none is an error that lists the labels.
// Returns the points kept.
Result<size_t> select_points(RunPlan &plan, const std::vector<std::string> &patterns,
                             Baselines baselines = Baselines::Follow);

}  // namespace bpfbench
