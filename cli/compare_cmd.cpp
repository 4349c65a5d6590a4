// `bpfbench compare A.json B.json`: per point change, significance, verdict; CI gate.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cli/results_cmds.hpp"
#include "compiler/escape.hpp"
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

}  // namespace

int cmd_compare(const CompareArgs &a) {
  std::string err;
  auto ra = load_results(a.a, err);
  if (!ra) {
    fmt::print(stderr, "bpfbench: error: {}\n", err);
    return kExitBadInput;
  }
  auto rb = load_results(a.b, err);
  if (!rb) {
    fmt::print(stderr, "bpfbench: error: {}\n", err);
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
  CompareReport c = compare_results(*ra, *rb, o);
  if (a.format == "json") fmt::print("{}\n", json_text(compare_to_json(c), 2));
  else if (a.format == "markdown") fmt::print("{}", compare_to_markdown(c));
  else fmt::print("{}", compare_to_text(c));
  if (c.points.empty()) {
    fmt::print(stderr, "bpfbench: error: no point of {} matches a point of {} (by suite, label and params)\n", a.a,
               a.b);
    return kExitBadInput;
  }
  size_t unjudged = 0;
  for (const auto &p : c.points) unjudged += p.verdict == Verdict::Drift || p.verdict == Verdict::Noisy;
  if (unjudged > 0)
    fmt::print(stderr, "bpfbench: warning: {} point{} not judged (drift or noisy: see the notes)\n", unjudged,
               unjudged == 1 ? "" : "s");
  if (a.fail_on_regression_pct && c.worst_regression_pct() >= *a.fail_on_regression_pct) {
    fmt::print(stderr, "bpfbench: regression: a point is {:.2f}% slower (limit {}%)\n", c.worst_regression_pct(),
               *a.fail_on_regression_pct);
    return kExitPartial;
  }
  return kExitOk;
}

}  // namespace bpfbench::cli
