// The producer threads of an interleaved ab point: started once per block of loads, pinned
// like the harness pins them, and read between slices for their operations and CPU time.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <pthread.h>

#include "util/error.hpp"
#include "runtime/components.hpp"
#include "runtime/counters.hpp"

namespace bpfbench {

class ProducerThreads {
 public:
  ProducerThreads() = default;
  ~ProducerThreads() { stop(); }
  ProducerThreads(const ProducerThreads &) = delete;
  ProducerThreads &operator=(const ProducerThreads &) = delete;

  // `cpus`: one entry per thread (-1: not pinned). A thread that cannot start fails it.
  Result<> start(Producer &producer, const std::vector<int> &cpus);
  // CPU time the threads used so far, in ns (their thread clocks, read from here).
  uint64_t cpu_ns() const;
  // Operations since the last call (all threads).
  uint64_t take_ops() { return counters_ ? counters_->take() : 0; }
  // test_run: the kernel-reported duration of the calls since the last call, in ns.
  uint64_t take_kernel_ns() { return counters_ ? counters_->take_kernel_ns() : 0; }
  // A thread that failed (a producer error, a pin that did not take), once stopped or not.
  std::optional<Error> error() const;
  // Stops and joins every thread (idempotent).
  void stop();

 private:
  std::atomic<bool> stop_{false};
  std::unique_ptr<ProducerCounters> counters_;
  std::vector<std::thread> threads_;
  std::vector<clockid_t> clocks_;
  mutable std::mutex mu_;
  std::optional<Error> error_;
};

}  // namespace bpfbench
