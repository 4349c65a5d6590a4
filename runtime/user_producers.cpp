#include "runtime/user_producers.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "util/error.hpp"

namespace bpfbench {
namespace {

// count_global: every producer thread does a locked increment of one shared counter, so
// the cache line bounces between the CPUs (the kernel bench's count-global). The thread
// publishes what it did to its own slot once per kCountBatch increments (one plain store
// per batch, off the contended line) and looks at the stop flag between batches, so the
// totals are exact.
class CountGlobalProducer final : public Producer {
 public:
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    while (!stop.load(std::memory_order_relaxed)) {
      for (uint64_t i = 0; i < kCountBatch; ++i) shared_.value.fetch_add(1, std::memory_order_relaxed);
      slot.add(kCountBatch);
    }
    return {};
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
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    while (!stop.load(std::memory_order_relaxed))
      for (uint64_t i = 0; i < kCountBatch; ++i) slot.ops.fetch_add(1, std::memory_order_relaxed);
    return {};
  }
};

// rename: a write() to a /proc comm file in a loop, which calls __set_task_comm() and
// fires the task_rename tracepoint. `main` (the kernel bench's rename-*): the producer
// thread writes the process's main thread's name to /proc/self/comm, 14 bytes as the
// kernel bench's "test_overhead" with its NUL; renaming another task takes 9-12 % longer per
// write here than renaming oneself (docs/families/rename.md). Otherwise each producer
// thread writes its own name to /proc/thread-self/comm, so several producers do not
// contend for one task. Either way the name written is the one the task has: nothing is
// renamed. Each write is counted with a plain add, or with the kernel bench's locked add
// (`atomic`, the family's `op_count atomic`).
class RenameProducer final : public Producer {
 public:
  RenameProducer(bool atomic, bool main)
      : atomic_(atomic),
        path_(main ? "/proc/self/comm" : "/proc/thread-self/comm") {}
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    char name[kWriteMax] = {};
    int rd = open(path_, O_RDONLY | O_CLOEXEC);
    if (rd < 0) return Error(std::string("cannot open ") + path_ + ": " + errno_text(errno));
    ssize_t n = read(rd, name, sizeof(name) - 1);
    close(rd);
    if (n <= 0) return Error(std::string("cannot read ") + path_);
    name[strcspn(name, "\n")] = '\0';
    // The name, its NUL and NUL padding up to the kernel bench's 14 bytes.
    const size_t len = std::max(strlen(name) + 1, kKernelBenchWrite);
    int fd = open(path_, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return Error(std::string("cannot open ") + path_ + " for writing: " + errno_text(errno));
    std::string err;
    count_calls(slot, stop, atomic_, [&] {
      if (write(fd, name, len) >= 0) return true;
      err = std::string("write to ") + path_ + " failed: " + errno_text(errno);
      return false;
    });
    close(fd);
    if (!err.empty()) return Error(err);
    return {};
  }

 private:
  static constexpr size_t kWriteMax = 16;          // TASK_COMM_LEN: a name and its NUL
  static constexpr size_t kKernelBenchWrite = 14;  // sizeof("test_overhead")
  bool atomic_;
  const char *path_;
};

}  // namespace

std::unique_ptr<Producer> make_user_producer(const ProducerConfig &cfg) {
  switch (cfg.kind) {
  case ProducerKind::CountGlobal: return std::make_unique<CountGlobalProducer>();
  case ProducerKind::CountLocal: return std::make_unique<CountLocalProducer>();
  case ProducerKind::Rename: return std::make_unique<RenameProducer>(cfg.atomic_count, cfg.rename_main);
  default: return nullptr;
  }
}

}  // namespace bpfbench
