// Runs producer/consumer threads for warmup + duration and samples counters per interval.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/sample.hpp"
#include "runtime/components.hpp"
#include "runtime/counters.hpp"
#include "runtime/stop.hpp"

namespace bpfbench {

struct HarnessOptions {
  int64_t warmup_ns = 1'000'000'000;
  int64_t duration_ns = 5'000'000'000;
  int64_t interval_ns = 1'000'000'000;  // the kernel bench samples every second
  int producers = 1;                    // 0 = none: in back-to-back mode the consumer thread produces
  int consumers = 0;
  bool affinity = false;
  std::vector<int> prod_cpus;  // explicit lists (imply affinity); empty = 0.. order
  std::vector<int> cons_cpus;
  // Adaptive length: when set, measured intervals go on for up to max_duration_ns
  // (duration_ns is ignored) and end as soon as `enough(measured samples so far)` is true.
  std::function<bool(const std::vector<Sample> &)> enough;
  int64_t max_duration_ns = 30'000'000'000;
  // Called on the sampling thread when the measured part begins (after the last warmup
  // sample, or once every thread started when there is no warmup) and when it ends (after
  // its last sample, before the threads stop): profilers and counters bracket it.
  std::function<void()> on_measure_begin, on_measure_end;
};

// Number of warmup / measured intervals for the options (each at least the rounding
// up of the time over the interval; measured at least 1).
int warmup_intervals(const HarnessOptions &o);
int measured_intervals(const HarnessOptions &o);

struct HarnessResult {
  std::vector<Sample> warmup, samples;
  bool interrupted = false;    // the external stop was requested before the end
  bool enough = false;         // adaptive: `enough` returned true before the limit
  std::optional<Error> error;  // a thread failed (affinity, producer error)
  // Producer operations after the last sample (the unfinished interval, each thread's last
  // loop), read once every thread is joined: with the samples' and the first read's, every
  // operation of the run (the self-checks add them up).
  uint64_t late_producer_ops = 0;
};

// Reads the counters of one interval; `producer_ops` is the producers' operation count
// during the interval (the harness keeps those counters).
using MeasureFn = std::function<std::map<std::string, uint64_t>(uint64_t producer_ops)>;
// Called on the sampling thread after each interval; `iter` counts from 0 over warmup
// and measured intervals together, as the kernel bench numbers them.
using SampleFn = std::function<void(int iter, const Sample &s, bool warmup)>;

// Starts consumers then producers (pinned per assign_cpus), samples on the calling
// thread at absolute deadlines t0 + k*interval, stops every thread and joins it on every
// path. An external stop ends the run within ~50 ms; the unfinished interval is dropped.
HarnessResult run_harness(const HarnessOptions &opts, Producer &producer, Consumer *consumer, const MeasureFn &measure,
                          const StopSource &external, const SampleFn &on_sample = {});

}  // namespace bpfbench
