#include "results/report_kernel.hpp"

#include <fmt/printf.h>

#include <algorithm>
#include <cmath>

#include "results/report_text.hpp"

namespace bpfbench {
namespace {

double rate_of(const Sample &s, const char *name) {
  auto it = s.deltas.find(name);
  if (it == s.deltas.end() || s.duration_s <= 0) return 0.0;
  return double(it->second) / 1e6 / s.duration_s;
}

uint64_t count_of(const Sample &s, const char *name) {
  auto it = s.deltas.find(name);
  return it == s.deltas.end() ? 0 : it->second;
}

// The kernel bench's false-hit line: its total counts a false hit twice (it is a drop too).
std::string false_hits_line(uint64_t false_hits, uint64_t hits, uint64_t drops, const char *pct_sep) {
  const uint64_t total = false_hits + hits + drops;
  return fmt::sprintf("%ld false hits of %ld total operations. Percentage =%s%2.2f %%", false_hits, total, pct_sep,
                      total ? double(false_hits) / double(total) * 100 : 0.0);
}

// The lpm-trie bench's rates of BPF time: operations in millions (insert, delete) or
// thousands (free) per second of BPF time, latencies in ns or ms.
struct BpfTimeScale {
  double rate_divisor, lat_divisor;
  char rate;
  const char *unit;
};
BpfTimeScale scale_of(KernelReport style) {
  return style == KernelReport::FreeTime ? BpfTimeScale{1e3, 1e6, 'K', "ms"} : BpfTimeScale{1e6, 1.0, 'M', "ns"};
}

// Operations per second of BPF time (the lpm-trie bench leaves out its resets).
double bpf_rate(const Sample &s, const BpfTimeScale &sc) {
  const uint64_t ns = count_of(s, "bpf_ns");
  return ns ? double(count_of(s, "hits")) / sc.rate_divisor / (double(ns) / 1e9) : 0.0;
}

std::string bpf_time_summary(const PointResult &r, int prods, const BpfTimeScale &sc) {
  double mean = 0, stddev = 0, latency = 0;
  const double n = double(r.samples.size());
  for (const auto &s : r.samples) {
    mean += bpf_rate(s, sc) / n;
    if (uint64_t hits = count_of(s, "hits")) latency += double(count_of(s, "bpf_ns")) / double(hits) / n;
  }
  for (const auto &s : r.samples)
    if (n > 1) stddev += (mean - bpf_rate(s, sc)) * (mean - bpf_rate(s, sc)) / (n - 1);
  return fmt::sprintf("Summary: throughput %8.3lf \u00b1 %5.3lf %c ops/s (%7.3lf%c ops/prod), latency %8.3lf %s/op",
                      mean, std::sqrt(stddev), sc.rate, mean / prods, sc.rate, latency / sc.lat_divisor / prods,
                      sc.unit);
}

// Mean and sample standard deviation, as the kernel bench's basic_stats helpers.
struct MeanStddev {
  double mean = 0, stddev = 0;
};
MeanStddev mean_stddev(const std::vector<double> &v) {
  MeanStddev m;
  if (v.empty()) return {std::nan(""), std::nan("")};
  for (double x : v) m.mean += x / double(v.size());
  if (v.size() > 1)
    for (double x : v) m.stddev += (x - m.mean) * (x - m.mean) / (double(v.size()) - 1);
  m.stddev = std::sqrt(m.stddev);
  return m;
}

// local-storage-tasks-trace's Iter lines: grace-period latency (ns) and kthread ticks per
// grace period, each interval's totals over its grace periods (nan when none ended, as there).
std::string tasks_trace_progress(int iter, const Sample &s) {
  const double gp = double(count_of(s, "gp"));
  return fmt::sprintf("Iter %d\t avg tasks_trace grace period latency\t%lf ns\n"
                      "Iter %d\t avg ticks per tasks_trace grace period\t%lf",
                      iter, double(count_of(s, "gp_ns")) / gp, iter, double(count_of(s, "kthread_ticks")) / gp);
}

// Its SUMMARY lines: the mean and stddev of the intervals' values in µs and ticks, over the
// intervals in which a grace period ended (the kernel bench's own average turns nan on one
// without).
std::string tasks_trace_summary(const PointResult &r) {
  std::vector<double> latency_us, ticks;
  for (const auto &s : r.samples)
    if (const double gp = double(count_of(s, "gp")); gp > 0) {
      latency_us.push_back(double(count_of(s, "gp_ns")) / 1000.0 / gp);
      ticks.push_back(double(count_of(s, "kthread_ticks")) / gp);
    }
  const MeanStddev l = mean_stddev(latency_us), t = mean_stddev(ticks);
  return fmt::sprintf("SUMMARY tasks_trace grace period latency\tavg %.3lf us\tstddev %.3lf us\n"
                      "SUMMARY ticks per tasks_trace grace period\tavg %.3lf\tstddev %.3lf",
                      l.mean, l.stddev, t.mean, t.stddev);
}

double per_second(const Sample &s, const char *name) {
  return s.duration_s > 0 ? double(count_of(s, name)) / s.duration_s : 0.0;
}

// The part that runs without fentry, in the same shapes: task storage creates+deletes
// (M/s) and the rcu_tasks_trace kthread's system ticks per second.
std::string tasks_trace_churn_progress(int iter, const Sample &s) {
  return fmt::sprintf("Iter %d\t task local storage creates+deletes\t%lf M/s\n"
                      "Iter %d\t tasks_trace kthread ticks per second\t%lf",
                      iter, rate_of(s, "hits"), iter, per_second(s, "kthread_ticks"));
}

std::string tasks_trace_churn_summary(const PointResult &r) {
  std::vector<double> hits, ticks;
  for (const auto &s : r.samples) {
    hits.push_back(rate_of(s, "hits"));
    ticks.push_back(per_second(s, "kthread_ticks"));
  }
  const MeanStddev h = mean_stddev(hits), t = mean_stddev(ticks);
  return fmt::sprintf("SUMMARY task local storage creates+deletes\tavg %.3lf M/s\tstddev %.3lf M/s\n"
                      "SUMMARY tasks_trace kthread ticks per second\tavg %.3lf\tstddev %.3lf",
                      h.mean, h.stddev, t.mean, t.stddev);
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
  case KernelReport::PerCpu:
  case KernelReport::BatchTiming: return "";
  case KernelReport::FalseHits:
    return out + false_hits_line(count_of(s, "false_hits"), count_of(s, "hits"), count_of(s, "drops"), " ");
  case KernelReport::BpfTime:
  case KernelReport::FreeTime: {
    const BpfTimeScale sc = scale_of(style);
    return out + fmt::sprintf("hits %8.3lf%c/s (%7.3lf%c/prod)", bpf_rate(s, sc), sc.rate,
                              bpf_rate(s, sc) / std::max(producers, 1), sc.rate);
  }
  case KernelReport::Creates: {
    const double kmallocs = rate_of(s, "kmallocs");
    return out + fmt::sprintf("creates %8.3lfk/s (%7.3lfk/prod), %3.2lf kmallocs/create", hits * 1e3,
                              hits * 1e3 / std::max(producers, 1), hits > 0 ? kmallocs / hits : 0.0);
  }
  case KernelReport::Sockmap:
    // The kernel bench also prints send and read calls/s; bpfbench counts bytes only.
    return out + fmt::sprintf("Send Speed %8.3lf MB/s, BPF Speed %8.3lf MB/s, Rcv Speed %8.3lf MB/s",
                              rate_of(s, "send"), rate_of(s, "bpf"), rate_of(s, "recv"));
  case KernelReport::HtabMem:
    return out + fmt::sprintf("per-prod-op %7.2lfk/s, memory usage %7.2lfMiB", hits * 1e3 / std::max(producers, 1),
                              double(count_of(s, "memory")) / 1048576.0);
  case KernelReport::TasksTrace: return tasks_trace_progress(iter, s);
  case KernelReport::TasksTraceChurn: return tasks_trace_churn_progress(iter, s);
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
  case KernelReport::PerCpu:
  case KernelReport::BatchTiming: return "";
  case KernelReport::FalseHits: {
    uint64_t f = 0, h = 0, d = 0;
    for (const auto &s : r.samples) {
      f += count_of(s, "false_hits");
      h += count_of(s, "hits");
      d += count_of(s, "drops");
    }
    return "Summary: " + false_hits_line(f, h, d, "  ");
  }
  case KernelReport::BpfTime:
  case KernelReport::FreeTime: return bpf_time_summary(r, prods, scale_of(style));
  case KernelReport::Creates: {
    // Intervals of equal length: the ratio of the means is the kernel bench's ratio of totals.
    const MetricSummary kmallocs = summary_of(r, "kmallocs");
    return fmt::sprintf("Summary: creates %8.3lf \u00b1 %5.3lfk/s (%7.3lfk/prod), %4.2lf kmallocs/create",
                        hits.mean * 1e3, hits.stddev * 1e3, hits.mean * 1e3 / prods,
                        hits.mean > 0 ? kmallocs.mean / hits.mean : 0.0);
  }
  case KernelReport::Sockmap: {
    // As the kernel bench: MB the BPF program saw, the total summed in whole MB sample by
    // sample (its `long` accumulator), and the mean MB/s.
    long total = 0;
    for (const auto &s : r.samples) total = static_cast<long>(double(total) + double(count_of(s, "bpf")) / 1e6);
    return fmt::sprintf("Summary: total trans %8.3lu MB \u00b1 %5.3lf MB/s", static_cast<unsigned long>(total),
                        summary_of(r, "bpf").mean);
  }
  case KernelReport::HtabMem: {
    const MetricSummary mem = summary_of(r, "memory"), peak = summary_of(r, "peak_memory");
    return fmt::sprintf("Summary: per-prod-op %7.2lf \u00b1 %7.2lfk/s, memory usage %7.2lf \u00b1 %7.2lfMiB,"
                        " peak memory usage %7.2lfMiB",
                        hits.mean * 1e3 / prods, hits.stddev * 1e3 / prods, mem.mean, mem.stddev, peak.mean);
  }
  case KernelReport::TasksTrace: return tasks_trace_summary(r);
  case KernelReport::TasksTraceChurn: return tasks_trace_churn_summary(r);
  }
  return format_summary(r);
}

KernelText format_kernel_batch_timing(const PointResult &r, const std::string &name, bool machine_readable) {
  if (!r.batch_timing) return {format_summary(r), ""};
  const std::string warning = format_batch_calibration_warning(*r.batch_timing);
  if (machine_readable) return {format_batch_timing_result_line(*r.batch_timing, name), warning};
  return {format_batch_timing_report(*r.batch_timing, name), warning};
}

}  // namespace bpfbench
