// Per-interval counter deltas: BPF per-CPU slots in an mmap'ed .bss, and user-side
// per-producer operation counts.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/bpf_object.hpp"

namespace bpfbench {

// `struct bb_counter <var>[BB_MAX_CPUS]` globals of a loaded object, read through a
// read-write mapping of its .bss map (libbpf makes global data maps BPF_F_MMAPABLE).
class BssCounters {
 public:
  BssCounters() = default;
  ~BssCounters();
  BssCounters(const BssCounters &) = delete;
  BssCounters &operator=(const BssCounters &) = delete;

  // Maps .bss of a loaded object and locates each counter variable. On error nothing
  // stays mapped.
  Result<> init(const BpfObject &obj, const std::vector<std::string> &vars);

  // Sum over the slots of counter `i` (index into the vars given to init), each slot
  // atomically swapped with 0: consecutive calls return per-interval deltas.
  uint64_t take(size_t i);
  size_t size() const { return vars_.size(); }

 private:
  struct Var {
    size_t offset;
    size_t slots;
  };
  void *base_ = nullptr;
  size_t len_ = 0;
  std::vector<Var> vars_;
};

// One producer's operation count. Only its producer writes it (plain load + store, no
// locked instruction in the hot loop); the sampler reads it. 128-byte aligned so two
// producers never share a cache line.
struct alignas(128) ProducerSlot {
  std::atomic<uint64_t> ops{0};
  // test_run: the kernel's own duration of the producer's calls, in ns (BPF_PROG_TEST_RUN
  // reports it: the runs alone, without the syscall or the time the thread was preempted).
  std::atomic<uint64_t> kernel_ns{0};

  void add(uint64_t n) { ops.store(ops.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  void add_kernel_ns(uint64_t n) {
    kernel_ns.store(kernel_ns.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  // A locked add, as the kernel bench's inc_counter() (atomic_inc) counts each operation of
  // its user-space producers: the `op_count atomic` param (docs/families.md).
  void add_atomic(uint64_t n) { ops.fetch_add(n, std::memory_order_relaxed); }
};

// Calls op() until stop, or until it returns false when it returns a bool, counting each
// call that completed in `slot`: a plain add, or the kernel bench's locked add (atomic).
// The choice is made once, outside the loop.
template <typename Op>
void count_calls(ProducerSlot &slot, const std::atomic<bool> &stop, bool atomic, Op op) {
  auto loop = [&](auto add) {
    while (!stop.load(std::memory_order_relaxed)) {
      if constexpr (std::is_same_v<decltype(op()), bool>) {
        if (!op()) return;
      } else {
        op();
      }
      add();
    }
  };
  if (atomic) loop([&slot] { slot.add_atomic(1); });
  else loop([&slot] { slot.add(1); });
}

class ProducerCounters {
 public:
  explicit ProducerCounters(size_t n);
  ProducerSlot &slot(size_t i) { return slots_[i]; }
  size_t size() const { return n_; }
  // Operations of all producers since the previous call.
  uint64_t take();
  // The test_run calls' kernel-reported duration (all producers) since the previous call.
  uint64_t take_kernel_ns();

 private:
  size_t n_;
  std::unique_ptr<ProducerSlot[]> slots_;
  uint64_t last_ = 0, last_kernel_ns_ = 0;
  // The sum of one field over the slots, less `last` (then set to the sum).
  uint64_t take_delta(std::atomic<uint64_t> ProducerSlot::*field, uint64_t &last);
};

}  // namespace bpfbench
