#include "runtime/per_cpu.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace bpfbench {
namespace {

// The layout of struct bb_counter (bpfbench_shared.h): one u64 per 128-byte slot.
constexpr size_t kSlotSize = 128;

}  // namespace

Result<> PerCpuReader::init(const BpfObject &obj, const PerCpuSpec &spec) {
  bpf_map *bss = obj.map(".bss");
  auto ops = obj.datasec_var(".bss", spec.ops), ns = obj.datasec_var(".bss", spec.ns);
  if (!bss || !ops || !ns)
    return BpfError{BpfPhase::Setup, ENOENT, "per_cpu: no .bss arrays '" + spec.ops + "' and '" + spec.ns + "'", {}};
  fd_ = bpf_map__fd(bss);
  value_size_ = bpf_map__value_size(bss);
  ops_off_ = ops->offset;
  ns_off_ = ns->offset;
  slots_ = std::min(ops->size, ns->size) / kSlotSize;
  snapshot();
  return {};
}

bool PerCpuReader::read(std::vector<uint64_t> &ops, std::vector<uint64_t> &ns) const {
  if (fd_ < 0) return false;
  std::vector<uint8_t> buf(value_size_);
  uint32_t zero = 0;
  if (bpf_map_lookup_elem(fd_, &zero, buf.data()) != 0) return false;
  ops.assign(slots_, 0);
  ns.assign(slots_, 0);
  for (size_t i = 0; i < slots_; ++i) {
    std::memcpy(&ops[i], &buf[ops_off_ + i * kSlotSize], sizeof(uint64_t));
    std::memcpy(&ns[i], &buf[ns_off_ + i * kSlotSize], sizeof(uint64_t));
  }
  return true;
}

void PerCpuReader::snapshot() {
  if (!read(ops0_, ns0_)) ops0_.clear(), ns0_.clear();
  ops_last_ = ops0_;
  ns_last_ = ns0_;
  sample_rates_.assign(slots_, {});
  sample_ns_.assign(slots_, 0);
}

void PerCpuReader::end_interval() {
  std::vector<uint64_t> ops, ns;
  if (!read(ops, ns) || ops_last_.size() != slots_ || sample_rates_.size() != slots_) return;
  for (size_t i = 0; i < slots_; ++i) {
    const uint64_t d_ops = ops[i] - ops_last_[i], d_ns = ns[i] - ns_last_[i];
    if (d_ns == 0) continue;
    sample_rates_[i].push_back(double(d_ops) * 1e9 / double(d_ns));
    sample_ns_[i] += d_ns;
  }
  ops_last_ = std::move(ops);
  ns_last_ = std::move(ns);
}

std::vector<PerCpuRate> PerCpuReader::rates() const {
  std::vector<PerCpuRate> out;
  std::vector<uint64_t> ops, ns;
  if (!read(ops, ns)) return out;
  for (size_t i = 0; i < slots_; ++i) {
    PerCpuRate r;
    r.cpu = static_cast<int>(i);
    r.ops = ops[i] - (i < ops0_.size() ? ops0_[i] : 0);
    r.ns = ns[i] - (i < ns0_.size() ? ns0_[i] : 0);
    if (r.ns == 0) continue;
    r.rate = double(r.ops) * 1e9 / double(r.ns);
    if (i < sample_rates_.size()) {
      r.sample_rates = sample_rates_[i];
      r.sample_ns = sample_ns_[i];
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace bpfbench
