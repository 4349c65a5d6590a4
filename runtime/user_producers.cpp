#include "runtime/user_producers.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "results/error.hpp"

namespace bpfbench {
namespace {

// count_global: every producer thread does a locked increment of one shared counter, so
// the cache line bounces between the CPUs (the kernel bench's count-global). The thread
// publishes what it did to its own slot once per kCountBatch increments (one plain store
// per batch, off the contended line) and looks at the stop flag between batches, so the
// totals are exact.
class CountGlobalProducer final : public Producer {
 public:
  std::string run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    while (!stop.load(std::memory_order_relaxed)) {
      for (uint64_t i = 0; i < kCountBatch; ++i) shared_.value.fetch_add(1, std::memory_order_relaxed);
      slot.add(kCountBatch);
    }
    return "";
  }

 private:
  struct alignas(128) Shared {
    std::atomic<uint64_t> value{0};
  };
  Shared shared_;
};

// count_local: every thread does a locked increment of its own 128-byte aligned counter,
// which is its slot (the kernel bench's count-local): no line is shared, so this is the
// cost of an uncontended atomic add.
class CountLocalProducer final : public Producer {
 public:
  std::string run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    while (!stop.load(std::memory_order_relaxed))
      for (uint64_t i = 0; i < kCountBatch; ++i) slot.ops.fetch_add(1, std::memory_order_relaxed);
    return "";
  }
};

// rename: write() of the thread's own name to /proc/thread-self/comm, which calls
// __set_task_comm() and fires the task_rename tracepoint (the kernel bench's rename-*,
// which writes "test_overhead" to /proc/self/comm, renaming the main thread). Writing
// the name the thread already has leaves every name as it was; per thread, so several
// producers do not rename each other. Each write is counted with a plain add, or with
// the kernel bench's locked add (`atomic`, the family's `op_count atomic`).
class RenameProducer final : public Producer {
 public:
  explicit RenameProducer(bool atomic) : atomic_(atomic) {}
  std::string run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    char name[16] = {};
    int rd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC);
    if (rd < 0) return "cannot open /proc/thread-self/comm: " + errno_text(errno);
    ssize_t n = read(rd, name, sizeof(name) - 1);
    close(rd);
    if (n <= 0) return "cannot read /proc/thread-self/comm";
    size_t len = strcspn(name, "\n");
    int fd = open("/proc/thread-self/comm", O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return "cannot open /proc/thread-self/comm for writing: " + errno_text(errno);
    std::string err;
    count_calls(slot, stop, atomic_, [&] {
      if (write(fd, name, len) >= 0) return true;
      err = "write to /proc/thread-self/comm failed: " + errno_text(errno);
      return false;
    });
    close(fd);
    return err;
  }

 private:
  bool atomic_;
};

}  // namespace

std::unique_ptr<Producer> make_user_producer(ProducerKind kind, bool atomic_count) {
  switch (kind) {
  case ProducerKind::CountGlobal: return std::make_unique<CountGlobalProducer>();
  case ProducerKind::CountLocal: return std::make_unique<CountLocalProducer>();
  case ProducerKind::Rename: return std::make_unique<RenameProducer>(atomic_count);
  default: return nullptr;
  }
}

}  // namespace bpfbench
