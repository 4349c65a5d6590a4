// Hardware counter totals of a point's measured part (runtime/hw_counters.hpp reads them
// with perf_event_open where the machine has a PMU) and the per-operation figures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace bpfbench {

struct HwCounts {
  uint64_t cycles = 0, instructions = 0, cache_misses = 0;
  bool has_cache_misses = false;  // some PMUs have no generic cache-miss event
  uint64_t ops = 0;               // the operations they cover (the primary count)
  // Scaled by time_enabled / time_running when the PMU multiplexed the events.
  double scale = 1.0;
};

struct HwPerOp {
  double cycles = 0, instructions = 0, ipc = 0;
  std::optional<double> cache_misses;
};
// nullopt when there were no operations or no cycles.
std::optional<HwPerOp> per_op(const HwCounts &c);

// "hw: 812.3 cycles/op, 1503.0 instructions/op, IPC 1.85, 0.42 cache-misses/op"
std::string format_hw(const HwCounts &c);
nlohmann::json hw_to_json(const HwCounts &c);

}  // namespace bpfbench
