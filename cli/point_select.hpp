// `--only PATTERN` (run, plan, emit, check): which plan points a command works on.
#pragma once

#include <string>
#include <vector>

#include "compiler/plan.hpp"
#include "results/error.hpp"

namespace bpfbench::cli {

// Whether `label` is `pattern` or matches it as a shell glob: the --only rule of every command.
bool label_matches(const std::string &pattern, const std::string &label);

// Keeps the points whose label equals a pattern or matches it as a shell glob (`rb-*`,
// `lpm-1000?`), plus the baseline point of each kept main point (a baseline's own label
// selects its main point too), renumbered in plan order. Every pattern must match a point:
// one that matches none is an error that lists the labels. Returns the points kept.
Result<size_t> select_points(RunPlan &plan, const std::vector<std::string> &patterns);

}  // namespace bpfbench::cli
