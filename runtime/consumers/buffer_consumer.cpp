#include "runtime/consumers/buffer_consumers.hpp"

namespace bpfbench {

std::string BufferConsumer::run(int, const std::atomic<bool> &stop) {
  uint64_t triggers = 0;
  auto trigger = [&]() -> std::string {
    if (!cfg_.trigger || (cfg_.max_triggers && triggers >= cfg_.max_triggers)) return "";
    ++triggers;
    return cfg_.trigger();
  };
  if (auto e = trigger(); !e.empty()) return e;
  while (!stop.load(std::memory_order_relaxed)) {
    if (auto e = wait_and_drain(); !e.empty()) return e;
    // The batch just drained is all there is (the program ran synchronously in the
    // trigger), so the next one starts with an empty buffer: no drops by construction.
    if (auto e = trigger(); !e.empty()) return e;
  }
  return drain();
}

}  // namespace bpfbench
