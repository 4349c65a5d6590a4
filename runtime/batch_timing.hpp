// The runtime side of in-BPF batch timing (bpfbench_shared.h's BB_BATCH_TIMING and
// BB_BATCH_LOOP; the kernel bench's bench_bpf_timing): a template that opts in keeps, per
// CPU, one sample per program run of the time its bb_batch_iters timed operations took.
// This sets the batch size (calibrated as the kernel bench does, or the point's
// `batch_iters`), collects samples during the measured part only, serves the
// `batch_timing:<stat>` metrics and ends the run at a sample target (`timing_samples`).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "results/batch_timing.hpp"
#include "runtime/bpf_object.hpp"

namespace bpfbench {

class BatchTimingRun {
 public:
  BatchTimingRun() = default;
  ~BatchTimingRun();
  BatchTimingRun(const BatchTimingRun &) = delete;
  BatchTimingRun &operator=(const BatchTimingRun &) = delete;

  // Maps the object's .bss when it has bb_batch_ns (false, nothing mapped, when not).
  Result<bool> init(const BpfObject &obj);
  bool active() const { return base_ != nullptr; }

  // Before the producers start: the batch size, from the point's `batch_iters` param when
  // it is > 0, else calibrated with `run_once` (one program run; five runs per step): the
  // ns per operation of 100-operation batches gives the size of a ~10 ms batch (100 to
  // 10M operations), then batches of N and 2N operations check that time grows with N.
  // Samples taken here are dropped. Returns the size (a program run is size + 1 operations).
  Result<uint32_t> prepare(const PlanPoint &p, const std::function<Result<>()> &run_once);
  uint32_t batch_iters() const { return res_.batch_iters; }  // the size prepare set; 0 before

  void begin();  // the measured part starts: samples from now on
  void end();    // and ends: what was taken is kept for result()

  // Each `batch_timing:<stat>` metric's value over the samples so far, in thousandths
  // (compiler/family/kinds.hpp level_unit_scale), into `values` under the metric's name.
  void read_levels(const std::vector<MetricSpec> &metrics, std::map<std::string, uint64_t> &values) const;

  // Whether the samples so far reach `timing_samples` per producer (never when 0).
  bool reached(int producers) const;
  int64_t target() const { return target_; }

  BatchTimingResult result() const;

 private:
  uint64_t count() const;              // samples so far, every CPU
  std::vector<double> per_op() const;  // samples / iters, sorted
  uint64_t median_of(uint32_t iters, int runs, const std::function<Result<>()> &run_once, Error *err);
  void clear();

  void *base_ = nullptr;
  size_t len_ = 0, slots_ = 0;
  size_t ns_off_ = 0, idx_off_ = 0, on_off_ = 0, iters_off_ = 0;
  BatchTimingResult res_;
  int64_t target_ = 0;
  std::vector<double> kept_;  // the measured part's samples, once it ended
  bool ended_ = false;
};

}  // namespace bpfbench
