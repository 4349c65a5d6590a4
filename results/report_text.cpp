#include "results/report_text.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>

#include <algorithm>

namespace bpfbench {
namespace {

double rate_of(const Sample &s, const std::string &name) {
  auto it = s.deltas.find(name);
  if (it == s.deltas.end() || s.duration_s <= 0) return 0.0;
  return double(it->second) / 1e6 / s.duration_s;
}

bool is_core(const std::string &m) { return m == "hits" || m == "drops" || m == "total_ops" || m == "latency"; }

std::string first_line(const std::string &s) { return s.substr(0, s.find('\n')); }

}  // namespace

std::string format_progress(int iter, const Sample &s, int producers, int64_t interval_ns,
                            const std::vector<std::string> &metrics, const std::vector<MetricSpec> *specs) {
  double dev_us = (s.duration_s * 1e9 - double(interval_ns)) / 1000.0;
  double hits = rate_of(s, "hits"), drops = rate_of(s, "drops");
  std::string out;
  // hits first, as the kernel bench, where the family has them; else its own metrics only.
  if (s.deltas.count("hits"))
    out += fmt::sprintf(", hits %8.3lfM/s (%7.3lfM/prod)", hits, hits / std::max(producers, 1));
  // Drops and the total only where the family counts drops (bpfbench bench keeps the
  // kernel bench's fixed line: results/report_kernel.hpp).
  if (s.deltas.count("drops"))
    out += fmt::sprintf(", drops %8.3lfM/s, total operations %8.3lfM/s", drops, hits + drops);
  for (const auto &m : metrics) {
    if (is_core(m)) continue;
    const MetricSpec *spec = nullptr;
    if (specs)
      for (const auto &x : *specs)
        if (x.name == m) spec = &x;
    if (spec && report_of(*spec) == MetricReport::AsIs)
      out +=
          fmt::sprintf(", %s %8.3lf%s", m, metric_values({s}, *spec).at(0), spec->unit.empty() ? "" : " " + spec->unit);
    else if (s.deltas.count(m)) out += fmt::sprintf(", %s %8.3lfM/s", m, rate_of(s, m));
  }
  return fmt::sprintf("Iter %3d (%7.3lfus): ", iter, dev_us) + out.substr(std::min<size_t>(2, out.size()));
}

std::string format_summary(const PointResult &r) {
  using S = PointResult::Status;
  if (r.status == S::Skipped) return "Skipped: " + r.reason;
  if (r.status == S::Failed) return "Failed: " + first_line(r.reason);
  // Not a row of zeros: nothing was measured.
  if (r.status == S::Interrupted && r.samples.empty()) return "Interrupted before the first measured interval";
  const MetricSummary zero{};
  auto get = [&](const char *n) -> const MetricSummary & {
    const MetricSummary *m = r.summary.find(n);
    return m ? *m : zero;
  };
  const auto &hits = get("hits"), &drops = get("drops"), &total = get("total_ops");
  std::string out;
  if (r.summary.find("hits"))
    out = fmt::sprintf(", hits %8.3lf \u00b1 %5.3lfM/s (%7.3lfM/prod)", hits.mean, hits.stddev,
                       hits.mean / std::max(r.producers, 1));
  if (r.summary.find("drops")) {
    out += fmt::sprintf(", drops %8.3lf \u00b1 %5.3lfM/s", drops.mean, drops.stddev);
    out += fmt::sprintf(", total operations %8.3lf \u00b1 %5.3lfM/s", total.mean, total.stddev);
  }
  for (const auto &m : r.report) {
    if (is_core(m)) continue;
    if (const MetricSummary *x = r.summary.find(m)) {
      if (!x->has_value()) out += fmt::sprintf(", %s n/a", m);
      else if (x->unit == "M/s") out += fmt::sprintf(", %s %8.3lf \u00b1 %5.3lfM/s", m, x->mean, x->stddev);
      else
        out += fmt::sprintf(", %s %8.3lf \u00b1 %5.3lf%s", m, x->mean, x->stddev, x->unit.empty() ? "" : " " + x->unit);
    }
  }
  if (std::find(r.report.begin(), r.report.end(), "latency") != r.report.end())
    if (const MetricSummary *l = r.summary.find("latency"))
      out += l->has_value() ? fmt::sprintf(", latency %8.3lf ns/op", l->mean)
                            : fmt::sprintf(", latency n/a (%s)", l->no_value);
  const MetricSummary *p = r.summary.find(r.summary.primary);
  std::string target =
      r.precision_pct > 0
          ? fmt::sprintf(": %s %g%%%s", r.precision_reached ? "reached" : "did not reach", r.precision_pct,
                         r.precision_note.empty() ? "" : " (" + r.precision_note + ", stopped at the minimum)")
          : "";
  if (p && !r.round_sizes.empty())  // --rounds (a stop may have left only one)
    out += fmt::sprintf(" [%zu round%s, %zu samples, %s CI \u00b1%.2f%%%s%s]", r.round_sizes.size(),
                        r.round_sizes.size() == 1 ? "" : "s", p->n, p->name, p->rel_ci() * 100,
                        p->round_means.size() >= 2 ? " over rounds" : "", target);
  else if (p && r.precision_pct > 0)
    out += fmt::sprintf(" [%zu samples, %s CI \u00b1%.2f%%%s]", p->n, p->name, p->rel_ci() * 100, target);
  if (r.status == S::Interrupted) out += " (interrupted)";
  return "Summary: " + out.substr(std::min<size_t>(2, out.size()));
}

std::string format_table_row(const std::string &label, const PointResult &r, const std::vector<std::string> &metrics,
                             bool per_prod) {
  using S = PointResult::Status;
  if (r.status == S::Skipped) return fmt::sprintf("%-20s: skipped: %s", label, r.reason);
  if (r.status == S::Failed) return fmt::sprintf("%-20s: failed: %s", label, first_line(r.reason));
  if (r.status == S::Interrupted && r.samples.empty()) return fmt::sprintf("%-20s: interrupted, not measured", label);
  const std::string first = metrics.empty() ? "hits" : metrics.front();
  const MetricSummary *m = r.summary.find(first);
  double mean = m ? m->mean : 0, sd = m ? m->stddev : 0;
  std::string unit = m ? m->unit : "M/s";
  if (m && !m->has_value()) return fmt::sprintf("%-20s: %s n/a (%s)", label, first, m->no_value);
  std::string out = unit == "M/s" ? fmt::sprintf("%-20s: %8.3lf \u00b1 %5.3lfM/s", label, mean, sd)
                                  : fmt::sprintf("%-20s: %8.3lf \u00b1 %5.3lf %s", label, mean, sd, unit);
  if (per_prod && unit == "M/s") out += fmt::sprintf(" (%7.3lfM/prod)", mean / std::max(r.producers, 1));
  // The other reported metrics, as the kernel scripts print drops after hits.
  std::vector<std::string> rest;
  for (size_t i = 1; i < metrics.size(); ++i) {
    const MetricSummary *x = r.summary.find(metrics[i]);
    if (!x) continue;
    if (!x->has_value()) rest.push_back(x->name + " n/a");
    else if (x->name == "latency")  // derived from the mean rate: no spread of its own (as in Summary)
      rest.push_back(fmt::sprintf("latency %.3lf ns/op", x->mean));
    else if (x->unit == "M/s") rest.push_back(fmt::sprintf("%s %.3lf \u00b1 %.3lfM/s", x->name, x->mean, x->stddev));
    else
      rest.push_back(
          fmt::sprintf("%s %.3lf \u00b1 %.3lf%s", x->name, x->mean, x->stddev, x->unit.empty() ? "" : " " + x->unit));
  }
  if (!rest.empty()) out += " (" + fmt::format("{}", fmt::join(rest, ", ")) + ")";
  if (r.status == S::Interrupted) out += " (interrupted)";
  return out;
}

}  // namespace bpfbench
