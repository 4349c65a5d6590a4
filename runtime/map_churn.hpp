// The `map_churn` producer (the kernel's lpm-trie-free): round and round, it
// creates a map like the object's map `churn_map` (type, key and value size, flags,
// max_entries), fills it with keys 0..n-1 as the `prefill` setup action does (an LPM
// trie's keys {prefix_len, i}), and closes it, so the kernel frees a full map each round
// (from a workqueue, shortly after the close: what a program on bpf_map_free_deferred
// times). The copies are named kChurnMapName, so such a program can tell them from every
// other map being freed. An operation is one map created, filled and closed.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/components.hpp"

namespace bpfbench {

inline constexpr const char *kChurnTemplateMap = "churn_map";
inline constexpr const char *kChurnMapName = "bb_churn";

// `template_fd`: the object's `churn_map`; `entries` keys per map (the `nr_entries`
// param); `prefix_len` for LPM trie keys (the `prefix_len` param, 0: every data bit).
// One producer thread (index 0); a second one is refused, as the kernel bench refuses.
std::unique_ptr<Producer> make_map_churn_producer(int template_fd, uint64_t entries, uint32_t prefix_len);

}  // namespace bpfbench
