// `bpfbench compare A.json B.json`: per point change, significance, verdict; CI gate.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cli/results_cmds.hpp"
#include "util/escape.hpp"
#include "results/compare.hpp"

namespace bpfbench::cli {

namespace {

// `--metric NAME` that no point of either file holds is a typo, not "no change".
std::string unknown_metric(const std::string &metric, const ResultSet &a, const ResultSet &b) {
  if (metric.empty()) return "";
  std::vector<std::string> na = metric_names(a), nb = metric_names(b);
  for (const auto *names : {&na, &nb})
    if (std::find(names->begin(), names->end(), metric) != names->end()) return "";
  return fmt::format("unknown metric '{}' for --metric ({} has: {})", printable_text(metric), a.path,
                     na.empty() ? "no metrics" : fmt::format("{}", fmt::join(na, ", ")));
}

// Matching by params found nothing, or left points out, while the labels pair up: say how
// to compare them anyway.
std::string label_match_hint(const CompareArgs &a, const ResultSet &ra, const ResultSet &rb, const CompareReport &c) {
  if (a.match == "label" || c.only_a.empty() || c.only_b.empty()) return "";
  CompareOptions by_label;
  by_label.match_by_label = true;
  CompareReport l = compare_results(ra, rb, by_label);
  if (l.points.size() <= c.points.size()) return "";
  return fmt::format("bpfbench: hint: {} point{} pair up by suite and label but not by params; "
                     "--match label compares them and shows the params that differ\n",
                     l.points.size() - c.points.size(), l.points.size() - c.points.size() == 1 ? "" : "s");
}

// `--fail-on-regression`: names the worst point, counts the others over the limit.
int regression_exit(const CompareReport &c, double limit_pct) {
  const PointComparison *w = c.worst_regression();
  if (!w || -w->speed_change_pct < limit_pct) return kExitOk;
  size_t others = 0;
  for (const auto &p : c.points)
    if (&p != w && p.verdict == Verdict::Slower && !p.absolute && -p.speed_change_pct >= limit_pct) ++others;
  fmt::print(stderr, "bpfbench: {}\n", regression_message(w->suite, w->label, -w->speed_change_pct, limit_pct, others));
  return kExitPartial;
}

}  // namespace

int cmd_compare(const CompareArgs &a) {
  auto ra = load_results(a.a);
  if (!ra) {
    fmt::print(stderr, "bpfbench: error: {}\n", ra.error().message);
    return kExitBadInput;
  }
  auto rb = load_results(a.b);
  if (!rb) {
    fmt::print(stderr, "bpfbench: error: {}\n", rb.error().message);
    return kExitBadInput;
  }
  if (std::string why = unknown_metric(a.metric, *ra, *rb); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return kExitBadInput;
  }
  if (a.normalize)
    for (const ResultSet *rs : {&*ra, &*rb})
      if (!rs->calibration || rs->calibration->points.empty()) {
        fmt::print(stderr, "bpfbench: error: --normalize: {} has no calibration (it ran with --calibration off?)\n",
                   rs->path);
        return kExitBadInput;
      }
  CompareOptions o;
  o.metric = a.metric;
  o.alpha = a.alpha;
  o.min_change_pct = a.threshold_pct;
  o.normalize = a.normalize;
  o.drift_threshold_pct = a.drift_threshold_pct;
  o.noise_threshold_pct = a.noise_threshold_pct;
  o.match_by_label = a.match == "label";
  CompareReport c = compare_results(*ra, *rb, o);
  if (a.format == "json") fmt::print("{}\n", json_text(compare_to_json(c), 2));
  else if (a.format == "markdown") fmt::print("{}", compare_to_markdown(c));
  else fmt::print("{}", compare_to_text(c));
  std::string hint = label_match_hint(a, *ra, *rb, c);
  if (c.points.empty()) {
    fmt::print(stderr, "bpfbench: error: no point of {} matches a point of {} (by suite, label{})\n{}", a.a, a.b,
               o.match_by_label ? "" : " and params", hint);
    return kExitBadInput;
  }
  size_t unjudged = 0;
  for (const auto &p : c.points) unjudged += p.verdict == Verdict::Drift || p.verdict == Verdict::Noisy;
  if (unjudged > 0)
    fmt::print(stderr, "bpfbench: warning: {} point{} not judged (drift or noisy: see the notes)\n", unjudged,
               unjudged == 1 ? "" : "s");
  fmt::print(stderr, "{}", hint);
  return a.fail_on_regression_pct ? regression_exit(c, *a.fail_on_regression_pct) : kExitOk;
}

}  // namespace bpfbench::cli
