#include "runtime/batch_timing.hpp"

#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "bpfbench_shared.h"

namespace bpfbench {
namespace {

constexpr uint32_t kSeedBatch = 100, kMinBatch = 100, kMaxBatch = 10000000, kDefaultBatch = 10000;
constexpr uint64_t kTargetNs = 10'000'000;  // ~10 ms a batch
constexpr int kRuns = 5;

}  // namespace

BatchTimingRun::~BatchTimingRun() {
  if (base_) ::munmap(base_, len_);
}

Result<bool> BatchTimingRun::init(const BpfObject &obj) {
  auto ns = obj.datasec_var(".bss", "bb_batch_ns");
  if (!ns) return false;
  auto idx = obj.datasec_var(".bss", "bb_batch_idx"), on = obj.datasec_var(".bss", "bb_batch_on"),
       iters = obj.datasec_var(".bss", "bb_batch_iters");
  const size_t row = sizeof(uint64_t) * BB_BATCH_SAMPLES;
  if (!idx || !on || !iters || ns->size % row != 0 || idx->size != sizeof(uint32_t) * (ns->size / row) ||
      on->size != sizeof(uint32_t) || iters->size != sizeof(uint32_t))
    return BpfError{BpfPhase::Setup, EINVAL,
                    "bb_batch_ns, bb_batch_idx, bb_batch_on and bb_batch_iters are not BB_BATCH_TIMING's", ""};
  bpf_map *m = obj.map(".bss");
  if (!m || bpf_map__fd(m) < 0) return BpfError{BpfPhase::Setup, ENOENT, "the object has no loaded .bss map", ""};
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t len = (bpf_map__value_size(m) + page - 1) / page * page;
  void *p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);
  if (p == MAP_FAILED) return BpfError{BpfPhase::Setup, errno, "cannot mmap the .bss map", ""};
  base_ = p;
  len_ = len;
  ns_off_ = ns->offset;
  idx_off_ = idx->offset;
  on_off_ = on->offset;
  iters_off_ = iters->offset;
  const int possible = libbpf_num_possible_cpus();
  slots_ = std::min(ns->size / row, possible > 0 ? size_t(possible) : size_t(BB_MAX_CPUS));
  return true;
}

namespace {
template <typename T>
T *at(void *base, size_t off) {
  return reinterpret_cast<T *>(static_cast<char *>(base) + off);
}
}  // namespace

uint64_t BatchTimingRun::count() const {
  uint64_t n = 0;
  for (size_t c = 0; c < slots_; ++c)
    n += std::min<uint32_t>(__atomic_load_n(at<uint32_t>(base_, idx_off_) + c, __ATOMIC_RELAXED), BB_BATCH_SAMPLES);
  return n;
}

std::vector<double> BatchTimingRun::per_op() const {
  std::vector<double> out;
  const uint32_t iters = res_.batch_iters ? res_.batch_iters : 1;
  for (size_t c = 0; c < slots_; ++c) {
    const uint32_t n =
        std::min<uint32_t>(__atomic_load_n(at<uint32_t>(base_, idx_off_) + c, __ATOMIC_ACQUIRE), BB_BATCH_SAMPLES);
    const uint64_t *row = at<uint64_t>(base_, ns_off_) + c * BB_BATCH_SAMPLES;
    for (uint32_t i = 0; i < n; ++i)
      if (uint64_t ns = __atomic_load_n(row + i, __ATOMIC_RELAXED)) out.push_back(double(ns) / iters);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void BatchTimingRun::clear() {
  __atomic_store_n(at<uint32_t>(base_, on_off_), 0, __ATOMIC_RELEASE);
  std::memset(at<char>(base_, ns_off_), 0, slots_ * sizeof(uint64_t) * BB_BATCH_SAMPLES);
  for (size_t c = 0; c < slots_; ++c) __atomic_store_n(at<uint32_t>(base_, idx_off_) + c, 0, __ATOMIC_RELEASE);
}

// The median of the first `runs` samples of `runs` runs of `iters` operations (0: none).
uint64_t BatchTimingRun::median_of(uint32_t iters, int runs, const std::function<Result<>()> &run_once, Error *err) {
  clear();
  __atomic_store_n(at<uint32_t>(base_, iters_off_), iters, __ATOMIC_RELEASE);
  __atomic_store_n(at<uint32_t>(base_, on_off_), 1, __ATOMIC_RELEASE);
  for (int i = 0; i < runs; ++i)
    if (Result<> r = run_once(); !r) {
      *err = r.error();
      return 0;
    }
  __atomic_store_n(at<uint32_t>(base_, on_off_), 0, __ATOMIC_RELEASE);
  std::vector<uint64_t> v;
  for (size_t c = 0; c < slots_ && v.size() < size_t(runs); ++c) {
    const uint32_t n = std::min<uint32_t>(at<uint32_t>(base_, idx_off_)[c], BB_BATCH_SAMPLES);
    for (uint32_t i = 0; i < n && v.size() < size_t(runs); ++i)
      v.push_back(at<uint64_t>(base_, ns_off_)[c * BB_BATCH_SAMPLES + i]);
  }
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Result<uint32_t> BatchTimingRun::prepare(const PlanPoint &p, const std::function<Result<>()> &run_once) {
  target_ = p.int_param(kind_params::timing_samples.name, target_);
  const ParamValue *fixed = p.param(kind_params::batch_iters);
  res_ = BatchTimingResult{};
  if (fixed && fixed->is_int && fixed->i > 0) {
    res_.batch_iters = static_cast<uint32_t>(std::min<int64_t>(fixed->i, kMaxBatch));
  } else {
    Error err("");
    res_.calibrated = true;
    const uint64_t seed = median_of(kSeedBatch, kRuns, run_once, &err);
    if (!err.message.empty()) return Error("batch timing calibration: " + err.message);
    res_.calibration_ns_per_op = seed / kSeedBatch;
    res_.batch_iters =
        seed == 0 ? kDefaultBatch
        : res_.calibration_ns_per_op == 0
            ? kMinBatch
            : static_cast<uint32_t>(std::clamp<uint64_t>(kTargetNs / res_.calibration_ns_per_op, kMinBatch, kMaxBatch));
    const uint64_t n = seed ? median_of(res_.batch_iters, kRuns, run_once, &err) : 0;
    const uint64_t n2 = n ? median_of(res_.batch_iters * 2, kRuns, run_once, &err) : 0;
    if (!err.message.empty()) return Error("batch timing calibration: " + err.message);
    res_.ratio_2n_n = n && n2 ? double(n2) / double(n) : 0.0;
  }
  clear();
  __atomic_store_n(at<uint32_t>(base_, iters_off_), res_.batch_iters, __ATOMIC_RELEASE);
  return res_.batch_iters;
}

void BatchTimingRun::begin() {
  if (!base_) return;
  clear();
  __atomic_store_n(at<uint32_t>(base_, on_off_), 1, __ATOMIC_RELEASE);
}

void BatchTimingRun::end() {
  if (!base_) return;
  __atomic_store_n(at<uint32_t>(base_, on_off_), 0, __ATOMIC_RELEASE);
  kept_ = per_op();
  ended_ = true;
}

void BatchTimingRun::read_levels(const std::vector<MetricSpec> &metrics,
                                 std::map<std::string, uint64_t> &values) const {
  if (!base_) return;
  std::optional<BatchTimingStats> s;
  for (const auto &m : metrics) {
    if (m.source.kind != MetricSourceKind::BatchTiming) continue;
    if (!s) s = batch_timing_stats(ended_ ? kept_ : per_op());
    const double x = batch_timing_stat(*s, m.source.operand).value_or(0.0);
    values[m.name] = x > 0 ? static_cast<uint64_t>(std::llround(x * 1000.0)) : 0;
  }
}

bool BatchTimingRun::reached(int producers) const {
  return base_ && target_ > 0 && count() >= uint64_t(target_) * uint64_t(std::max(producers, 1));
}

BatchTimingResult BatchTimingRun::result() const {
  BatchTimingResult r = res_;
  r.per_op_ns = ended_ ? kept_ : per_op();
  return r;
}

}  // namespace bpfbench
