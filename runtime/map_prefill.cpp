#include "runtime/map_prefill.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace bpfbench {
namespace {

bool is_per_cpu(uint32_t type) {
  return type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_PERCPU_ARRAY ||
         type == BPF_MAP_TYPE_LRU_PERCPU_HASH || type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;
}

// Little-endian bytes of `v` in `size` bytes (zero-extended or truncated).
void put_le(uint8_t *dst, size_t size, uint64_t v) {
  for (size_t i = 0; i < size; ++i) dst[i] = i < 8 ? static_cast<uint8_t>(v >> (8 * i)) : 0;
}

// The number in little-endian bytes; UINT64_MAX when it does not fit 64 bits.
uint64_t get_le(const uint8_t *src, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i) {
    if (i >= 8 && src[i]) return UINT64_MAX;
    if (i < 8) v |= static_cast<uint64_t>(src[i]) << (8 * i);
  }
  return v;
}

// Key number `k` in the map's key format (an LPM trie: {prefixlen, k}).
void put_key(uint8_t *dst, const MapLayout &l, uint32_t prefix_len, uint64_t k) {
  if (l.type != BPF_MAP_TYPE_LPM_TRIE) return put_le(dst, l.key_size, k);
  put_le(dst, 4, prefix_len);
  put_le(dst + 4, l.key_size - 4, k);
}

// The prefix length an LPM trie key gets (0 for other maps), once `n` distinct keys are
// known to fit the key: its bytes, or an LPM trie's prefix bits.
Result<uint32_t> checked_prefix_len(const MapLayout &l, uint64_t n, uint32_t lpm_prefix_len) {
  if (n && l.key_size == 0) return Error("the map has no keys");
  uint64_t bits = 8ull * l.key_size;
  if (l.type == BPF_MAP_TYPE_LPM_TRIE) {
    if (l.key_size <= 4) return Error("an LPM trie key of " + std::to_string(l.key_size) + " bytes has no data");
    const uint64_t data_bits = 8ull * (l.key_size - 4);
    if (lpm_prefix_len > data_bits)
      return Error("prefix length " + std::to_string(lpm_prefix_len) + " is longer than the key's " +
                   std::to_string(data_bits) + " data bits");
    bits = lpm_prefix_len ? lpm_prefix_len : data_bits;
    if (bits < 64 && n > (uint64_t{1} << bits))
      return Error(std::to_string(n) + " keys do not fit " + std::to_string(bits) + " prefix bits");
    return static_cast<uint32_t>(bits);
  }
  if (bits < 64 && n > (uint64_t{1} << bits))
    return Error(std::to_string(n) + " keys do not fit a " + std::to_string(l.key_size) + "-byte key");
  return 0u;
}

// Entries per batch syscall: 64K (one syscall instead of 64K: 4M keys ~ 1 s less), fewer
// when per-CPU values would make the buffers larger than 16 MiB (64K entries of 8 bytes
// on 256 CPUs are 128 MiB).
uint32_t chunk_for(const MapLayout &l) {
  constexpr uint64_t kChunk = 65536, kBytes = 16u << 20;
  return static_cast<uint32_t>(std::clamp<uint64_t>(kBytes / (l.key_size + l.value_bytes()), 1, kChunk));
}

// Key `k`'s value in every slot of `val` (slot padding stays as it is: zero).
void put_value(uint8_t *val, const MapLayout &l, uint64_t k) {
  for (size_t c = 0; c < l.slots; ++c) put_le(val + c * l.slot_size, l.value_size, k);
}

// What a read-back found.
struct Tally {
  uint64_t entries = 0;  // read back (an array: keys 0..n-1 only)
  uint64_t good = 0;     // keys 0..n-1 with value = key in every slot
  uint64_t wrong = 0;    // keys 0..n-1 with another value somewhere
  uint64_t extra = 0;    // a hash map's keys outside 0..n-1
  std::string first_wrong, first_extra;

  void add(const MapLayout &l, uint64_t n, const uint8_t *key, const uint8_t *val) {
    uint64_t k = get_le(key, l.key_size);
    if (k >= n && l.array) return;  // an array has every key; those past n were not written
    ++entries;
    if (k >= n) {
      if (!extra++) first_extra = k == UINT64_MAX ? "one wider than 64 bits" : std::to_string(k);
      return;
    }
    const uint64_t want = l.value_size < 8 ? k & ((uint64_t{1} << (8 * l.value_size)) - 1) : k;  // as put_le
    for (size_t c = 0; c < l.slots; ++c) {
      const uint8_t *slot = val + c * l.slot_size;
      if (get_le(slot, l.value_size) == want) continue;
      if (!wrong++)
        first_wrong = "key " + std::to_string(k) + (l.slots > 1 ? " on CPU " + std::to_string(c) : "") + " holds " +
                      std::to_string(get_le(slot, std::min<size_t>(l.value_size, 8)));
      return;
    }
    ++good;
  }
};

// Map types without batch lookups: get_next_key + lookup, one entry at a time.
Result<> read_one_by_one(int fd, const MapLayout &l, uint64_t n, Tally &t) {
  std::vector<uint8_t> key(l.key_size), next(l.key_size), val(l.value_bytes());
  for (bool first = true;; first = false) {
    if (l.array && t.entries >= n) return {};
    if (bpf_map_get_next_key(fd, first ? nullptr : key.data(), next.data()) != 0)
      return errno == ENOENT ? Result<>() : Error("reading the keys back failed: " + errno_text(errno));
    if (bpf_map_lookup_elem(fd, next.data(), val.data()) == 0) t.add(l, n, next.data(), val.data());
    else if (errno != ENOENT) return Error("reading a value back failed: " + errno_text(errno));
    key.swap(next);
  }
}

// Every entry of the map (an array: up to key n-1) into `t`, in batches.
Result<> read_back(int fd, const MapLayout &l, uint64_t n, Tally &t) {
  uint32_t chunk = chunk_for(l);
  std::vector<uint8_t> keys, vals;
  // The batch position: a bucket number for hash maps, a key for arrays.
  std::vector<uint8_t> in(std::max<size_t>(l.key_size, 8)), out(in.size());
  for (bool first = true;;) {
    keys.resize(size_t{chunk} * l.key_size);
    vals.resize(size_t{chunk} * l.value_bytes());
    uint32_t cnt = chunk;
    LIBBPF_OPTS(bpf_map_batch_opts, bo);
    int rc = bpf_map_lookup_batch(fd, first ? nullptr : in.data(), out.data(), keys.data(), vals.data(), &cnt, &bo);
    int e = rc ? errno : 0;
    if (e == ENOSPC && cnt == 0 && chunk < l.max_entries) {  // one hash bucket holds more than `chunk`
      chunk *= 2;
      continue;
    }
    if (e && e != ENOENT) {
      if (first && (e == EINVAL || e == ENOTSUP || e == EOPNOTSUPP)) return read_one_by_one(fd, l, n, t);
      return Error("batch lookup failed: " + errno_text(e));
    }
    for (uint32_t i = 0; i < cnt; ++i) t.add(l, n, &keys[size_t{i} * l.key_size], &vals[size_t{i} * l.value_bytes()]);
    if (e == ENOENT || (l.array && t.entries >= n)) return {};  // ENOENT: that was the last batch
    in.swap(out);
    first = false;
  }
}

}  // namespace

Result<MapLayout> map_layout(int fd) {
  bpf_map_info info{};
  uint32_t len = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0) return Error("cannot read map info: " + errno_text(errno));
  MapLayout l;
  l.type = info.type;
  l.key_size = info.key_size;
  l.value_size = info.value_size;
  l.max_entries = info.max_entries;
  l.array = info.type == BPF_MAP_TYPE_ARRAY || info.type == BPF_MAP_TYPE_PERCPU_ARRAY;
  l.slot_size = info.value_size;
  if (is_per_cpu(info.type)) {
    int cpus = libbpf_num_possible_cpus();
    if (cpus <= 0) return Error("cannot count the possible CPUs: " + errno_text(-cpus));
    l.slots = static_cast<size_t>(cpus);
    l.slot_size = (size_t{info.value_size} + 7) / 8 * 8;
  }
  return l;
}

Result<> prefill_map(int fd, uint64_t n, uint32_t lpm_prefix_len) {
  Result<MapLayout> layout = map_layout(fd);
  if (!layout) return layout.error();
  const MapLayout &l = *layout;
  if (n > l.max_entries)
    return Error(std::to_string(n) + " keys do not fit (max_entries " + std::to_string(l.max_entries) + ")");
  Result<uint32_t> prefix = checked_prefix_len(l, n, lpm_prefix_len);
  if (!prefix) return prefix.error();
  const size_t ks = l.key_size, vb = l.value_bytes();
  const uint64_t chunk = chunk_for(l);
  std::vector<uint8_t> keys(chunk * ks), vals(chunk * vb);
  bool batch = true;
  for (uint64_t start = 0; start < n; start += chunk) {
    uint32_t cnt = static_cast<uint32_t>(std::min(chunk, n - start));
    for (uint32_t i = 0; i < cnt; ++i) {
      put_key(&keys[i * ks], l, *prefix, start + i);
      put_value(&vals[i * vb], l, start + i);
    }
    if (batch) {
      LIBBPF_OPTS(bpf_map_batch_opts, bo);
      uint32_t done = cnt;
      if (bpf_map_update_batch(fd, keys.data(), vals.data(), &done, &bo) == 0) continue;
      int e = errno;
      if (e != EINVAL && e != ENOTSUP && e != EOPNOTSUPP) return Error("batch update failed: " + errno_text(e));
      batch = false;  // map type without batch ops: one key at a time
    }
    for (uint32_t i = 0; i < cnt; ++i)
      if (bpf_map_update_elem(fd, &keys[i * ks], &vals[i * vb], BPF_ANY) != 0)
        return Error("update of key " + std::to_string(start + i) + " failed: " + errno_text(errno));
  }
  return {};
}

Result<SelfCheck> check_prefill(int fd, uint64_t n) {
  Result<MapLayout> layout = map_layout(fd);
  if (!layout) return layout.error();
  Tally t;
  if (n) BB_TRY(read_back(fd, *layout, n, t));
  SelfCheck c{"prefill", static_cast<double>(n), static_cast<double>(t.good), t.good == n && t.extra == 0, ""};
  if (c.ok) return c;
  c.detail = std::to_string(n) + " keys written, " + std::to_string(t.good) + " read back with value = key" +
             (layout->slots > 1 ? " on every CPU" : "");
  std::vector<std::string> notes;
  if (!layout->array) notes.push_back(std::to_string(t.entries) + " entries in the map");
  if (t.wrong) notes.push_back(std::to_string(t.wrong) + " with another value (first: " + t.first_wrong + ")");
  if (t.extra) notes.push_back(std::to_string(t.extra) + " with a key never written (first: " + t.first_extra + ")");
  for (size_t i = 0; i < notes.size(); ++i) c.detail += (i ? "; " : " (") + notes[i];
  if (!notes.empty()) c.detail += ")";
  return c;
}

}  // namespace bpfbench
