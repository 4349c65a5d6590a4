// Producers that stay in user space or write one file: the kernel bench's count-global /
// count-local (the cost of counting itself) and rename-* (a /proc comm write, which fires
// task_rename) workloads, as generic producer kinds any family can name.
#pragma once

#include <memory>

#include "compiler/family/kinds.hpp"
#include "runtime/components.hpp"

namespace bpfbench {

// The producer of `cfg.kind` when it is one of CountGlobal, CountLocal, Rename; nullptr
// otherwise. Rename reads `atomic_count` (a locked add per write, the `op_count` param) and
// `rename_main` (whose name it writes, the `comm` param).
std::unique_ptr<Producer> make_user_producer(const ProducerConfig &cfg);

// How many operations a counting producer does between two looks at the stop flag and
// two publications of its count (count_global): the count a sample sees lags by less.
inline constexpr uint64_t kCountBatch = 256;

}  // namespace bpfbench
