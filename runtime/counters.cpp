#include "runtime/counters.hpp"

#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "bpfbench_shared.h"

namespace bpfbench {

BssCounters::~BssCounters() {
  if (base_) munmap(base_, len_);
}

Result<> BssCounters::init(const BpfObject &obj, const std::vector<std::string> &vars) {
  if (vars.empty()) return {};
  bpf_map *m = obj.map(".bss");
  if (!m || bpf_map__fd(m) < 0) return BpfError{BpfPhase::Setup, ENOENT, "the object has no loaded .bss map", ""};
  std::vector<Var> found;
  for (const auto &v : vars) {
    auto dv = obj.datasec_var(".bss", v);
    if (!dv) return BpfError{BpfPhase::Setup, ENOENT, "no counter global '" + v + "' in .bss", ""};
    if (dv->size % sizeof(bb_counter) != 0 || dv->size == 0)
      return BpfError{BpfPhase::Setup, EINVAL, "counter '" + v + "' is not an array of struct bb_counter", ""};
    found.push_back(Var{dv->offset, dv->size / sizeof(bb_counter)});
  }
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t len = (bpf_map__value_size(m) + page - 1) / page * page;
  void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);
  if (p == MAP_FAILED) return BpfError{BpfPhase::Setup, errno, "cannot mmap the .bss map", ""};
  base_ = p;
  len_ = len;
  vars_ = std::move(found);
  return {};
}

uint64_t BssCounters::take(size_t i) {
  const Var &v = vars_.at(i);
  auto *slots = reinterpret_cast<bb_counter *>(static_cast<char *>(base_) + v.offset);
  uint64_t sum = 0;
  for (size_t s = 0; s < v.slots; ++s) sum += __atomic_exchange_n(&slots[s].value, 0, __ATOMIC_RELAXED);
  return sum;
}

ProducerCounters::ProducerCounters(size_t n) : n_(n), slots_(new ProducerSlot[n ? n : 1]) {}

uint64_t ProducerCounters::take_delta(std::atomic<uint64_t> ProducerSlot::*field, uint64_t &last) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n_; ++i) sum += (slots_[i].*field).load(std::memory_order_relaxed);
  uint64_t d = sum - last;
  last = sum;
  return d;
}

uint64_t ProducerCounters::take() { return take_delta(&ProducerSlot::ops, last_); }

uint64_t ProducerCounters::take_kernel_ns() { return take_delta(&ProducerSlot::kernel_ns, last_kernel_ns_); }

}  // namespace bpfbench
