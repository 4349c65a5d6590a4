// Per-CPU rates of a family's `per_cpu` counters (e.g. hashmap_full_update's per-CPU
// events/sec), read from .bss and reported like the kernel bench prints them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "results/point_result.hpp"
#include "runtime/bpf_object.hpp"

namespace bpfbench {

// Reads the two `struct bb_counter` arrays of a PerCpuSpec from a loaded object's .bss
// (map lookups, no mapping). snapshot() marks the start of the measured period;
// end_interval() closes one measured interval, a sample of each CPU that ran in it.
class PerCpuReader {
 public:
  Result<> init(const BpfObject &obj, const PerCpuSpec &spec);
  void snapshot();
  void end_interval();
  // CPUs whose ns grew since the snapshot, in CPU order, with their interval samples.
  std::vector<PerCpuRate> rates() const;

 private:
  bool read(std::vector<uint64_t> &ops, std::vector<uint64_t> &ns) const;
  int fd_ = -1;
  size_t value_size_ = 0, ops_off_ = 0, ns_off_ = 0, slots_ = 0;
  std::vector<uint64_t> ops0_, ns0_;        // at the snapshot
  std::vector<uint64_t> ops_last_, ns_last_;  // at the last interval's end
  std::vector<std::vector<double>> sample_rates_;
  std::vector<uint64_t> sample_ns_;
};

}  // namespace bpfbench
