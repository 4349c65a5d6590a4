#include "runtime/pair_producer.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>
#include <vector>

namespace bpfbench {
namespace {

// One pair's turn: 0 = the adder's (even thread), 1 = the deleter's (odd thread).
struct alignas(64) Turn {
  std::atomic<uint32_t> who{0};
};

// Waits until `t` is `mine`; false when `stop` was set first.
bool wait_for_turn(Turn &t, uint32_t mine, const std::atomic<bool> &stop) {
  for (;;) {
    uint32_t now = t.who.load(std::memory_order_acquire);
    if (now == mine) return true;
    if (stop.load(std::memory_order_relaxed)) return false;
    timespec timeout{0, 10'000'000};
    (void)syscall(SYS_futex, reinterpret_cast<uint32_t *>(&t.who), FUTEX_WAIT_PRIVATE, now, &timeout, nullptr, 0);
  }
}

void pass_turn(Turn &t, uint32_t to) {
  t.who.store(to, std::memory_order_release);
  (void)syscall(SYS_futex, reinterpret_cast<uint32_t *>(&t.who), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

class SyscallPairProducer final : public Producer {
 public:
  explicit SyscallPairProducer(int producers) : turns_(size_t(producers / 2)) {}
  Result<void> run(int index, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    if (index < 0 || size_t(index / 2) >= turns_.size())
      return Error("syscall_pair producer: thread " + std::to_string(index) + " has no partner");
    Turn &t = turns_[size_t(index / 2)];
    const uint32_t mine = uint32_t(index % 2);
    while (wait_for_turn(t, mine, stop)) {
      if (mine == 0)
        (void)syscall(__NR_getpgid, 0);
      else
        (void)syscall(__NR_getppid);
      slot.add(1);
      pass_turn(t, 1 - mine);
    }
    return {};
  }

 private:
  std::vector<Turn> turns_;
};

}  // namespace

Result<std::unique_ptr<Producer>> make_syscall_pair_producer(int producers) {
  if (producers < 2 || producers % 2)
    return Error("producer syscall_pair needs an even number of producers (its threads take turns in pairs), not " +
                 std::to_string(producers));
  return std::unique_ptr<Producer>(std::make_unique<SyscallPairProducer>(producers));
}

}  // namespace bpfbench
