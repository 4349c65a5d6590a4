// Producers that stay in user space or write one file: the kernel bench's count-global /
// count-local (the cost of counting itself) and rename-* (a /proc comm write, which fires
// task_rename) workloads, as generic producer kinds any family can name.
#pragma once

#include <memory>

#include "compiler/kinds.hpp"
#include "runtime/components.hpp"

namespace bpfbench {

// The producer of `kind` when it is one of CountGlobal, CountLocal, Rename; nullptr otherwise.
// `atomic_count`: Rename counts each write with a locked add (the `op_count` param).
std::unique_ptr<Producer> make_user_producer(ProducerKind kind, bool atomic_count);

// How many operations a counting producer does between two looks at the stop flag and
// two publications of its count (count_global): the count a sample sees lags by less.
inline constexpr uint64_t kCountBatch = 256;

}  // namespace bpfbench
