// The one clock of the runtime: CLOCK_MONOTONIC in nanoseconds (intervals, stats windows,
// noise snapshots).
#pragma once

#include <time.h>

#include <cstdint>

namespace bpfbench {

inline int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace bpfbench
