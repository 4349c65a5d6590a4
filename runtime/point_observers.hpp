// What observes a point's run (runtime/run_point.cpp starts and reads them): the counters
// of its object read each interval, and what the self-checks add up from them; the latency
// histogram, per-CPU counters and kernel threads' CPU time; the BPF run-time stats; perf
// record and the hardware counters over the measured part; and what runs beside the point.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "compiler/family/self_checks.hpp"
#include "results/point_result.hpp"
#include "runtime/batch_timing.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/counters.hpp"
#include "runtime/harness.hpp"
#include "runtime/hw_counters.hpp"
#include "runtime/interference.hpp"
#include "runtime/kthread_stat.hpp"
#include "runtime/latency_hist.hpp"
#include "runtime/memory_cgroup.hpp"
#include "runtime/per_cpu.hpp"
#include "runtime/profiler.hpp"
#include "runtime/prog_stats.hpp"
#include "runtime/self_checks.hpp"

namespace bpfbench {

// Destroyed in reverse order, and before the point's components and object: the watch,
// the stats switch (its fd closed), the readers, perf and the counters' mappings.
struct PointObservers {
  std::vector<std::string> counter_vars;        // the counter:<var> sources read
  std::map<std::string, size_t> counter_index;  // var -> index in counter_vars
  std::vector<ResolvedSelfCheck> checks;        // family.json `self_checks` that apply
  SourceTotals totals;                          // what the checks add up
  uint64_t late_producer_ops = 0;               // the harness's count after the last sample
  BssCounters counters;
  LatencyHistReader hist;  // bb_lat_hist, when the template keeps one
  PerCpuReader per_cpu;
  std::unique_ptr<PointProfiler> profiler;       // run --profile
  std::unique_ptr<HwCounters> hw;                // run --hw-counters
  std::map<std::string, KthreadStime> kthreads;  // metric name -> reader
  ProgStatsReader prog_reader;                   // run_cnt / run_time_ns per program
  BpfStatsSwitch stats_switch;                   // bpf_enable_stats while the harness runs
  InterferenceWatch watch;                       // what runs beside the point

  // What runs beside the point is watched from here (before its load) to the end of its
  // measured part, on the CPUs its threads are pinned to (or all it may use).
  void watch_begin(const HarnessOptions &h);
  // Reads the object's counter `var` each interval (once, however often it is asked for).
  void read_counter(const std::string &var);
  // Once attached: the counters and the latency histogram in the object's .bss.
  Result<> map_object(const BpfObject &obj);
  // Which programs' run-time stats are read (with `prog_stats`, run --prog-stats).
  void watch_prog_stats(const FamilyManifest &f, const ProgramSpec &prog, const BpfObject &obj, bool prog_stats,
                        ProgStatsInfo &info);
  // One interval's counts, metric by metric, from wherever each metric's source is.
  std::map<std::string, uint64_t> read_interval(const std::vector<MetricSpec> &metrics, uint64_t producer_ops,
                                                ProducerCounters &consumed, const MemoryCgroup &cgroup,
                                                const BatchTimingRun &batch);
  // Before the harness: the self-checks' counts start from zero.
  void zero_checked_counters();
  // Switches the kernel's run-time stats on for the harness run.
  void start_prog_stats(ProgStatsInfo &info);
  // After the harness: the stats switched off; whether the samples have the prog_* counts.
  bool stop_prog_stats(ProgStatsInfo &info);
  // perf record (`profile`) and the hardware counters, opened before the harness.
  void open_profilers(const ProfileOptions *profile, bool hw_counters, const std::string &label);
  // The observers of the measured part, started and stopped with it by the harness's hooks.
  void bracket(HarnessOptions &h, BatchTimingRun &batch, std::optional<LatencyHistogram> &latency_hist);
  // After the harness: the profile and the hardware counts, into `r`.
  void finish(PointResult &r, const std::atomic<bool> *stop);
};

}  // namespace bpfbench
