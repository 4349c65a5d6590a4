#include "session/point_select.hpp"

#include <fnmatch.h>

#include <fmt/format.h>

namespace bpfbench {

bool label_matches(const std::string &pattern, const std::string &label) {
  return pattern == label || fnmatch(pattern.c_str(), label.c_str(), 0) == 0;
}

namespace {

// "a, b, c" — the first 40 labels of the plan, then how many more.
std::string label_list(const RunPlan &plan) {
  std::string out;
  size_t shown = 0;
  for (const auto &p : plan.points) {
    if (p.is_baseline) continue;
    if (shown == 40) return out + fmt::format(", … ({} points in all)", plan.points.size());
    out += (shown++ ? ", " : "") + p.label;
  }
  return out;
}

// The main point a baseline point belongs to (the main point names it in `baseline`).
std::optional<size_t> main_of(const RunPlan &plan, size_t baseline_index) {
  for (const auto &p : plan.points)
    if (p.baseline == baseline_index) return p.index;
  return std::nullopt;
}

}  // namespace

Result<size_t> select_points(RunPlan &plan, const std::vector<std::string> &patterns, Baselines baselines) {
  if (patterns.empty()) return plan.points.size();
  std::vector<bool> keep(plan.points.size(), false);
  for (const auto &pattern : patterns) {
    bool any = false;
    for (const auto &p : plan.points) {
      if (!label_matches(pattern, p.label)) continue;
      any = true;
      if (baselines == Baselines::Exact) {
        keep[p.index] = true;
        continue;
      }
      std::optional<size_t> main = p.is_baseline ? main_of(plan, p.index) : p.index;
      if (!main) continue;
      keep[*main] = true;
      if (plan.points[*main].baseline) keep[*plan.points[*main].baseline] = true;
    }
    if (!any)
      return Error(fmt::format("--only '{}' matches no point label; the labels are: {}", pattern, label_list(plan)));
  }
  std::vector<size_t> new_index(plan.points.size(), SIZE_MAX);
  std::vector<PlanPoint> kept;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    if (!keep[i]) continue;
    new_index[i] = kept.size();
    kept.push_back(std::move(plan.points[i]));
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    kept[i].index = i;
    if (kept[i].baseline && new_index[*kept[i].baseline] == SIZE_MAX) kept[i].baseline.reset();  // Exact
    else if (kept[i].baseline) kept[i].baseline = new_index[*kept[i].baseline];
  }
  plan.points = std::move(kept);
  return plan.points.size();
}

}  // namespace bpfbench
