#include "runtime/latency_hist.hpp"

#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "bpfbench_shared.h"

namespace bpfbench {

static_assert(BB_HIST_BUCKETS == kHistBuckets, "bpfbench_shared.h and results/histogram.hpp disagree");

LatencyHistReader::~LatencyHistReader() {
  if (base_) ::munmap(base_, len_);
}

Result<bool> LatencyHistReader::init(const BpfObject &obj) {
  auto dv = obj.datasec_var(".bss", kVar);
  if (!dv) return false;
  if (dv->size == 0 || dv->size % sizeof(bb_hist) != 0)
    return BpfError{BpfPhase::Setup, EINVAL, std::string(kVar) + " is not an array of struct bb_hist", ""};
  bpf_map *m = obj.map(".bss");
  if (!m || bpf_map__fd(m) < 0) return BpfError{BpfPhase::Setup, ENOENT, "the object has no loaded .bss map", ""};
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t len = (bpf_map__value_size(m) + page - 1) / page * page;
  void *p = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, bpf_map__fd(m), 0);
  if (p == MAP_FAILED) return BpfError{BpfPhase::Setup, errno, "cannot mmap the .bss map", ""};
  base_ = p;
  len_ = len;
  offset_ = dv->offset;
  // Only the CPUs that can exist write their slot (the BPF side masks the CPU id).
  const int possible = libbpf_num_possible_cpus();
  slots_ = std::min(dv->size / sizeof(bb_hist), possible > 0 ? size_t(possible) : size_t(BB_MAX_CPUS));
  return true;
}

LatencyHistogram LatencyHistReader::read() const {
  LatencyHistogram h;
  if (!base_) return h;
  const auto *slots = reinterpret_cast<const bb_hist *>(static_cast<const char *>(base_) + offset_);
  for (size_t s = 0; s < slots_; ++s)
    for (size_t k = 0; k < kHistBuckets; ++k) h.buckets[k] += __atomic_load_n(&slots[s].buckets[k], __ATOMIC_RELAXED);
  return h;
}

LatencyHistogram LatencyHistReader::since_begin() const {
  LatencyHistogram h = last_;
  for (size_t k = 0; k < kHistBuckets; ++k) h.buckets[k] -= std::min(h.buckets[k], start_.buckets[k]);
  return h;
}

}  // namespace bpfbench
