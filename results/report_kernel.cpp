#include "results/report_kernel.hpp"

#include <fmt/printf.h>

#include <algorithm>

#include "results/report_text.hpp"

namespace bpfbench {
namespace {

double rate_of(const Sample &s, const char *name) {
  auto it = s.deltas.find(name);
  if (it == s.deltas.end() || s.duration_s <= 0) return 0.0;
  return double(it->second) / 1e6 / s.duration_s;
}

MetricSummary summary_of(const PointResult &r, const char *name) {
  const MetricSummary *m = r.summary.find(name);
  return m ? *m : MetricSummary{};
}

}  // namespace

std::string format_kernel_progress(KernelReport style, int iter, const Sample &s, int producers, int64_t interval_ns) {
  const double dev_us = (s.duration_s * 1e9 - double(interval_ns)) / 1000.0;
  const double hits = rate_of(s, "hits");
  std::string out = fmt::sprintf("Iter %3d (%7.3lfus): ", iter, dev_us);
  switch (style) {
  case KernelReport::HitsDrops: {
    const double drops = rate_of(s, "drops");
    return out + fmt::sprintf("hits %8.3lfM/s (%7.3lfM/prod), drops %8.3lfM/s, total operations %8.3lfM/s", hits,
                              hits / std::max(producers, 1), drops, hits + drops);
  }
  case KernelReport::Ops:
    return out + fmt::sprintf("hits %8.3lfM/s (%7.3lfM/prod)", hits, hits / std::max(producers, 1));
  case KernelReport::LocalStorage:
    return out + fmt::sprintf("hits %8.3lfM/s important_hits %8.3lfM/s", hits, rate_of(s, "important_hits"));
  case KernelReport::PerCpu: return "";
  case KernelReport::Creates: {
    const double kmallocs = rate_of(s, "kmallocs");
    return out + fmt::sprintf("creates %8.3lfk/s (%7.3lfk/prod), %3.2lf kmallocs/create", hits * 1e3,
                              hits * 1e3 / std::max(producers, 1), hits > 0 ? kmallocs / hits : 0.0);
  }
  }
  return out;
}

std::string format_kernel_summary(KernelReport style, const PointResult &r) {
  if (r.status != PointResult::Status::Ok && r.status != PointResult::Status::Interrupted) return format_summary(r);
  if (r.samples.empty()) return format_summary(r);
  const MetricSummary hits = summary_of(r, "hits");
  const int prods = std::max(r.producers, 1);
  switch (style) {
  case KernelReport::HitsDrops: {
    const MetricSummary drops = summary_of(r, "drops"), total = summary_of(r, "total_ops");
    return fmt::sprintf("Summary: hits %8.3lf \u00b1 %5.3lfM/s (%7.3lfM/prod), drops %8.3lf \u00b1 %5.3lfM/s, "
                        "total operations %8.3lf \u00b1 %5.3lfM/s",
                        hits.mean, hits.stddev, hits.mean / prods, drops.mean, drops.stddev, total.mean, total.stddev);
  }
  case KernelReport::Ops:
    return fmt::sprintf("Summary: throughput %8.3lf \u00b1 %5.3lf M ops/s (%7.3lfM ops/prod), latency %8.3lf ns/op",
                        hits.mean, hits.stddev, hits.mean / prods, 1000.0 / hits.mean * prods);
  case KernelReport::LocalStorage: {
    const MetricSummary imp = summary_of(r, "important_hits");
    return fmt::sprintf("Summary: hits throughput %8.3lf \u00b1 %5.3lf M ops/s, hits latency %8.3lf ns/op, "
                        "important_hits throughput %8.3lf \u00b1 %5.3lf M ops/s",
                        hits.mean, hits.stddev, 1000.0 / hits.mean, imp.mean, imp.stddev);
  }
  case KernelReport::PerCpu: return "";
  case KernelReport::Creates: {
    // Intervals of equal length: the ratio of the means is the kernel bench's ratio of totals.
    const MetricSummary kmallocs = summary_of(r, "kmallocs");
    return fmt::sprintf("Summary: creates %8.3lf \u00b1 %5.3lfk/s (%7.3lfk/prod), %4.2lf kmallocs/create",
                        hits.mean * 1e3, hits.stddev * 1e3, hits.mean * 1e3 / prods,
                        hits.mean > 0 ? kmallocs.mean / hits.mean : 0.0);
  }
  }
  return format_summary(r);
}

}  // namespace bpfbench
