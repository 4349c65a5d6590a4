// One load of one side's program for an interleaved ab point: opened, configured, set up
// and loaded like a point run's, nothing attached (a dispatcher or test_run reaches it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/prog_info.hpp"
#include "runtime/ab/interleavable.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/counters.hpp"
#include "runtime/setup_actions.hpp"
#include "runtime/stop.hpp"

namespace bpfbench {

class LoadedCopy {
 public:
  // `metric` says which counter to read (none for a producer-counted metric).
  Result<> load(const AbSideInput &side, const SliceMetric &metric, bool verbose, const StopSource &stop);

  int measured_fd() const { return measured_fd_; }  // the program the events are to run
  int driver_fd() const { return driver_fd_; }      // what test_run calls (-1: nothing)
  // The metric's counter since the last call (0 for a producer-counted metric).
  uint64_t take() { return has_counter_ ? counters_.take(0) : 0; }
  const std::optional<ProgFacts> &facts() const { return facts_; }

 private:
  // Destroyed in reverse: counters, the object, then the setup state.
  SetupState setup_;
  BpfObject obj_;
  BssCounters counters_;
  bool has_counter_ = false;
  int measured_fd_ = -1, driver_fd_ = -1;
  std::optional<ProgFacts> facts_;
};

}  // namespace bpfbench
