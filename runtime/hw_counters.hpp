// Hardware counters (cycles, instructions, cache misses) of bpfbench's threads over a
// point's measured part, with perf_event_open; probed first, since VMs often have no PMU.
#pragma once

#include <cstdint>
#include <string>

#include "util/error.hpp"
#include "results/hw_counts.hpp"

namespace bpfbench {

struct HwProbe {
  bool available = false;
  std::string reason;  // when not: "no hardware PMU: perf_event_open(cycles): No such file or directory (ENOENT)"
};
// Opens (and closes) a cycles counter on this thread.
HwProbe probe_hw_counters();

// Counters opened on the calling thread with `inherit`, so the threads it creates after
// (the harness's producers) count into them; their counts reach these fds when they exit,
// so read() after the threads are joined. Disabled until enable().
class HwCounters {
 public:
  HwCounters() = default;
  ~HwCounters();
  HwCounters(const HwCounters &) = delete;
  HwCounters &operator=(const HwCounters &) = delete;

  Result<> open();
  void enable();
  void disable();
  // Totals since enable(); `ops` is filled in by the caller.
  Result<HwCounts> read() const;

 private:
  int cycles_ = -1, instructions_ = -1, cache_misses_ = -1;
};

}  // namespace bpfbench
