// Filling a map with keys 0..n-1 (value = key) for the setup action `prefill`, and
// reading it back to prove the map holds what was written (a wrong number
// cannot pass silently).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "util/error.hpp"
#include "results/point_result.hpp"

namespace bpfbench {

// How user space passes one entry of map `fd` to the kernel. A per-CPU map's value is one
// slot per possible CPU, each value_size rounded up to 8 bytes (what the kernel copies in
// and out; a buffer of value_size bytes per key makes it read past the end).
struct MapLayout {
  uint32_t type = 0, key_size = 0, value_size = 0, max_entries = 0;
  size_t slots = 1;      // 1, or libbpf_num_possible_cpus() for per-CPU maps
  size_t slot_size = 0;  // value_size, or value_size rounded up to 8 for per-CPU maps
  bool array = false;    // every key 0..max_entries-1 exists (array maps)
  size_t value_bytes() const { return slots * slot_size; }
};
Result<MapLayout> map_layout(int fd);

// Inserts keys 0..n-1 into map `fd`: key and value = the key's number, little endian,
// zero-extended or truncated to the key/value size, in every CPU's slot of a per-CPU map.
// Refuses `n` beyond max_entries or beyond the distinct keys of the key size.
// An LPM trie's key is {__u32 prefixlen, data}: prefixlen = `lpm_prefix_len` (0: every
// data bit) and data = the key's number, little endian, as the kernel's lpm-trie bench
// fills its tries (value = the number too). check_prefill does not read LPM tries.
Result<> prefill_map(int fd, uint64_t n, uint32_t lpm_prefix_len = 0);

// Reads map `fd` back after prefill_map(fd, n): how many of the keys 0..n-1 it holds with
// the value prefill_map wrote in every CPU slot (`observed`, against `expected` = n), and
// for a hash map, whether it holds any other key. One BPF_MAP_LOOKUP_BATCH per 64K entries
// (element by element where batches are unsupported). When not ok, `detail` says what
// differs ("1000 keys written, 976 read back with value = key (976 entries in the map)").
// An Error only when the map cannot be read.
Result<SelfCheck> check_prefill(int fd, uint64_t n);

}  // namespace bpfbench
