// Self-checks at the end of a point: the counts of the same events from two places
// (family.json `self_checks`) compared, so a wrong number cannot pass silently.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "compiler/family/self_checks.hpp"
#include "results/point_result.hpp"

namespace bpfbench {

// Events by source (MetricSource::text(): "producer", "consumer", "counter:bb_hits"), summed
// over the whole harness run: the first read that drops the thread start, the warmup and
// measured intervals, the unfinished last interval, and what the consumer drained once every
// thread had stopped.
using SourceTotals = std::map<std::string, uint64_t>;

// The two sums of `c`; ok when they are equal. No slack: the last counts are read after the
// producer and consumer threads are joined and the buffer drained, so no event is between
// the two reads. (At an interval boundary the BPF side can be ahead by the calls made
// between the producers' read and the counters' read, plus one per producer between its
// syscall and its count; the next interval counts them on the other side too.)
SelfCheck evaluate_self_check(const ResolvedSelfCheck &c, const SourceTotals &totals);

// A failed check's point reason: "self-check 'x' failed: expected 1000, observed 2000 (...)".
std::string self_check_failure(const SelfCheck &c);

}  // namespace bpfbench
