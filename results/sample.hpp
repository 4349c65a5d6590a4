// One sampling interval's counts: what the harness produces and the statistics read.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace bpfbench {

// One sampling interval: its real length (CLOCK_MONOTONIC) and each metric's count
// during it (metric name -> events).
struct Sample {
  double duration_s = 0;
  std::map<std::string, uint64_t> deltas;
};

}  // namespace bpfbench
