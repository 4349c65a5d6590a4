// Reads a template's `struct bb_hist bb_lat_hist[BB_MAX_CPUS]` (the BB_TIME_BEGIN/END
// histogram of bpfbench_shared.h) from the loaded object's .bss, summed over CPUs.
#pragma once

#include <optional>

#include "results/histogram.hpp"
#include "runtime/bpf_object.hpp"

namespace bpfbench {

class LatencyHistReader {
 public:
  static constexpr const char *kVar = "bb_lat_hist";
  LatencyHistReader() = default;
  ~LatencyHistReader();
  LatencyHistReader(const LatencyHistReader &) = delete;
  LatencyHistReader &operator=(const LatencyHistReader &) = delete;

  // Maps .bss when the object has the variable; false (and nothing mapped) when not.
  Result<bool> init(const BpfObject &obj);
  bool active() const { return base_ != nullptr; }
  // The buckets now, summed over the possible CPUs' slots (never reset).
  LatencyHistogram read() const;
  // A snapshot, taken right after each interval's counters are read, so the histogram
  // covers the same intervals as the counters (to within the read of a few slots).
  void sample() { last_ = read(); }
  // The measured part starts at the last snapshot; since_begin() is up to the last one.
  void begin() { start_ = last_; }
  LatencyHistogram since_begin() const;

 private:
  void *base_ = nullptr;
  size_t len_ = 0, offset_ = 0, slots_ = 0;
  LatencyHistogram start_, last_;
};

}  // namespace bpfbench
