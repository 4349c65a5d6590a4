// Runtime components families reuse: producers (event generators) and consumers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/counters.hpp"

namespace bpfbench {

// A producer runs on its own thread until `stop` is set, counting its operations in
// `slot`. It returns "" or why it had to give up (the run then fails with that reason).
class Producer {
 public:
  virtual ~Producer() = default;
  virtual std::string run(int index, ProducerSlot &slot, const std::atomic<bool> &stop) = 0;
};

// A consumer drains what producers generate (ring buffers, ...). Same contract.
class Consumer {
 public:
  virtual ~Consumer() = default;
  virtual std::string run(int index, const std::atomic<bool> &stop) = 0;
};

struct ProducerConfig {
  std::string kind;         // syscall | test_run | uprobe_nop | uprobe_push | uprobe_ret | none
  int test_run_fd = -1;     // test_run: the driver program
  uint64_t ops_per_run = 1; // test_run: operations one run stands for (batch_iters)
};

// The producer kinds this runtime knows.
const std::vector<std::string> &producer_kinds();
const std::vector<std::string> &consumer_kinds();

// nullptr + `error` for an unknown kind or a bad config. Kind "none" yields a producer
// that just waits for stop.
std::unique_ptr<Producer> make_producer(const ProducerConfig &cfg, std::string &error);

// Consumer kind "none" yields nullptr without error: no consumer threads are started.
// Ring buffer / perf buffer consumers plug in here.
std::unique_ptr<Consumer> make_consumer(const std::string &kind, std::string &error);

}  // namespace bpfbench
