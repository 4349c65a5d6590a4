#include "runtime/point_observers.hpp"

#include <unistd.h>

#include "runtime/cpuset.hpp"
#include "runtime/run_point.hpp"

namespace bpfbench {

void PointObservers::watch_begin(const HarnessOptions &h) {
  std::vector<int> pinned;
  auto cpus = assign_cpus(h.producers, h.consumers, h.affinity, h.prod_cpus, h.cons_cpus,
                          static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  if (cpus) {
    pinned = cpus->producers;
    pinned.insert(pinned.end(), cpus->consumers.begin(), cpus->consumers.end());
  }
  watch.begin(measured_cpus(pinned));
}

void PointObservers::read_counter(const std::string &var) {
  if (counter_index.emplace(var, counter_vars.size()).second) counter_vars.push_back(var);
}

Result<> PointObservers::map_object(const BpfObject &obj) {
  BB_TRY(counters.init(obj, counter_vars));
  auto found = hist.init(obj);
  if (!found) return found.error();
  return {};
}

// The point's program is "the program" (its counts are the prog_* metrics), whether
// attached or run by BPF_PROG_TEST_RUN; the test_run driver and attached extras are
// reported beside it in the JSON.
void PointObservers::watch_prog_stats(const FamilyManifest &f, const ProgramSpec &prog, const BpfObject &obj,
                                      bool prog_stats, ProgStatsInfo &info) {
  info.sysctl_was_enabled = read_bpf_stats_sysctl().value_or(false);
  if (!prog_stats) {
    info.note = "off (the default; run --prog-stats turns them on)";
    return;
  }
  const std::string driver = test_run_driver(f, prog);
  if (!prog.function.empty()) prog_reader.add(prog.function, "measured", obj.program_fd(prog.function));
  if (!driver.empty() && driver != prog.function) prog_reader.add(driver, "driver", obj.program_fd(driver));
  for (const auto &x : attached_extra_programs(f, prog)) prog_reader.add(x, "attached", obj.program_fd(x));
  if (prog_reader.empty()) info.note = "no BPF program loaded";
}

std::map<std::string, uint64_t> PointObservers::read_interval(const std::vector<MetricSpec> &metrics,
                                                              uint64_t producer_ops, ProducerCounters &consumed,
                                                              const MemoryCgroup &cgroup, const BatchTimingRun &batch) {
  std::vector<uint64_t> vals(counter_vars.size());
  for (size_t i = 0; i < vals.size(); ++i) vals[i] = counters.take(i);
  if (hist.active()) hist.sample();
  uint64_t consumer_ops = consumed.take();
  if (!checks.empty()) {
    totals["producer"] += producer_ops;
    totals["consumer"] += consumer_ops;
    for (size_t i = 0; i < vals.size(); ++i) totals["counter:" + counter_vars[i]] += vals[i];
  }
  std::map<std::string, uint64_t> d;
  for (const auto &m : metrics) {
    switch (m.source.kind) {
    case MetricSourceKind::Producer: d[m.name] = producer_ops; break;
    case MetricSourceKind::Consumer: d[m.name] = consumer_ops; break;
    case MetricSourceKind::Counter: d[m.name] = vals[counter_index.at(m.source.operand)]; break;
    case MetricSourceKind::KthreadStime: d[m.name] = kthreads.at(m.name).take(); break;
    case MetricSourceKind::CgroupMemory: d[m.name] = cgroup.read(m.source.operand); break;
    case MetricSourceKind::Ratio: break;        // derived from two others when summarized
    case MetricSourceKind::Sum: break;          // added from the others below
    case MetricSourceKind::BatchTiming: break;  // below, all from one read
    }
  }
  batch.read_levels(metrics, d);
  if (stats_switch.is_on()) prog_reader.take(d);
  add_sum_counts(metrics, d);
  return d;
}

// What setup or attach counted is no producer's doing.
void PointObservers::zero_checked_counters() {
  if (!checks.empty())
    for (size_t i = 0; i < counter_vars.size(); ++i) counters.take(i);
}

// An fd; closing it puts the switch back as it was. A kernel that refuses leaves the point
// without prog_* metrics.
void PointObservers::start_prog_stats(ProgStatsInfo &info) {
  if (prog_reader.empty()) return;
  if (Result<> on = stats_switch.on(); !on) info.note = on.error().message;
  info.enabled = stats_switch.is_on();
}

bool PointObservers::stop_prog_stats(ProgStatsInfo &info) {
  const bool with_stats = stats_switch.is_on() && prog_reader.has_measured();
  prog_reader.mark_end();
  stats_switch.off();
  if (with_stats) info.programs = prog_reader.totals();
  return with_stats;
}

// The hardware counters are opened here, before the harness, so the producer threads it
// creates inherit them.
void PointObservers::open_profilers(const ProfileOptions *profile, bool hw_counters, const std::string &label) {
  if (profile) {
    profiler = std::make_unique<PointProfiler>(*profile, label);
    profiler->prepare();  // perf's start-up before the harness, events off
  }
  if (hw_counters) {
    hw = std::make_unique<HwCounters>();
    if (!hw->open()) hw.reset();
  }
}

// The latency histogram, perf record (--profile), the batch timing and the hardware
// counters (--hw-counters).
void PointObservers::bracket(HarnessOptions &h, BatchTimingRun &batch, std::optional<LatencyHistogram> &latency_hist) {
  h.on_measure_begin = [this, &batch] {
    if (profiler) profiler->begin();
    if (hist.active()) hist.begin();
    batch.begin();
    if (hw) hw->enable();
  };
  h.on_measure_end = [this, &batch, &latency_hist] {
    batch.end();
    if (hw) hw->disable();
    if (hist.active()) latency_hist = hist.since_begin();
    if (profiler) profiler->end();
  };
}

// After the harness (threads joined, so inherited counters are summed), while the
// programs are still loaded (perf script resolves their symbols from the kernel).
void PointObservers::finish(PointResult &r, const std::atomic<bool> *stop) {
  if (profiler) r.profile = profiler->finish(stop);
  if (!hw) return;
  auto counts = hw->read();
  if (!counts) return;
  const std::string &primary = r.summary.primary.empty() ? std::string("hits") : r.summary.primary;
  for (const auto &s : r.samples)
    if (auto it = s.deltas.find(primary); it != s.deltas.end()) counts->ops += it->second;
  r.hw_counters = *counts;
}

}  // namespace bpfbench
