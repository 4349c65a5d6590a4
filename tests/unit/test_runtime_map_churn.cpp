// LPM trie keys in prefill_map and the `map_churn` producer (the kernel bench's lpm-trie-free).
// The free program itself needs BPF trampolines: it runs under 6.12 in tests/vm. These
// tests need root and BPF.
#include <catch2/catch.hpp>

#include <bpf/bpf.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "runtime/map_churn.hpp"
#include "runtime/map_prefill.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

struct LpmKey {
  uint32_t prefixlen, data;
};

// An LPM trie like the lpm_trie family's (8-byte keys, 4-byte values), closed at scope end.
struct Trie {
  int fd = -1;
  explicit Trie(uint32_t max_entries = 100000) {
    bpf_map_create_opts o{};  // not LIBBPF_OPTS: clang -Wpedantic flags its compound literal
    o.sz = sizeof(o);
    o.map_flags = BPF_F_NO_PREALLOC;
    fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bb_churn_test", sizeof(LpmKey), 4, max_entries, &o);
  }
  ~Trie() {
    if (fd >= 0) close(fd);
  }
  Trie(const Trie &) = delete;
  Trie &operator=(const Trie &) = delete;
};

// Keys of the trie, counted one by one.
uint64_t count_trie_keys(int fd) {
  uint64_t n = 0;
  LpmKey key{}, next{};
  for (const void *prev = nullptr; bpf_map_get_next_key(fd, prev, &next) == 0; prev = &key, key = next) ++n;
  return n;
}

}  // namespace

TEST_CASE("prefill: LPM trie keys are {prefix_len, i} with value i", "[runtime][prefill][map_churn]") {
  BB_REQUIRE_ROOT();
  Trie t;
  REQUIRE(t.fd >= 0);
  REQUIRE(prefill_map(t.fd, 1000, 24));
  CHECK(count_trie_keys(t.fd) == 1000);
  for (uint32_t i : {0u, 1u, 999u}) {
    INFO(i);
    LpmKey k{24, i};
    uint32_t v = ~0u;
    REQUIRE(bpf_map_lookup_elem(t.fd, &k, &v) == 0);
    CHECK(v == i);
  }
  LpmKey absent{24, 1000};  // exact match of a key never written: nothing longer matches
  uint32_t v = 0;
  CHECK(bpf_map_lookup_elem(t.fd, &absent, &v) != 0);
}

TEST_CASE("prefill: LPM trie keys that cannot be told apart are refused", "[runtime][prefill][map_churn]") {
  BB_REQUIRE_ROOT();
  Trie t;
  REQUIRE(t.fd >= 0);
  auto r = prefill_map(t.fd, 257, 8);
  REQUIRE(!r);
  CHECK(r.error().message == "257 keys do not fit 8 prefix bits");
  auto l = prefill_map(t.fd, 10, 33);
  REQUIRE(!l);
  CHECK(l.error().message == "prefix length 33 is longer than the key's 32 data bits");
  CHECK(count_trie_keys(t.fd) == 0);
}

TEST_CASE("map_churn creates, fills and closes copies of its template", "[runtime][map_churn]") {
  BB_REQUIRE_ROOT();
  Trie tmpl;
  REQUIRE(tmpl.fd >= 0);
  auto producer = make_map_churn_producer(tmpl.fd, 5000, 32);
  ProducerSlot slot;
  std::atomic<bool> stop{false};
  std::string err;
  std::thread th([&] { err = test::error_of(producer->run(0, slot, stop)); });
  // Until the first map is done (a count, not a time: 20 s bounds a hang).
  test::wait_until([&] { return slot.ops.load() > 0; }, std::chrono::seconds(20), std::chrono::milliseconds(5));
  stop = true;
  th.join();
  CHECK(err == "");
  CHECK(slot.ops.load() > 0);            // maps made, filled and closed
  CHECK(count_trie_keys(tmpl.fd) == 0);       // the template itself is only copied
  // A second producer thread is refused, as the kernel bench's validate() does.
  ProducerSlot other;
  stop = true;
  CHECK(test::error_of(producer->run(1, other, stop)).find("one producer") != std::string::npos);
}

TEST_CASE("map_churn reports a fill that cannot work", "[runtime][map_churn]") {
  BB_REQUIRE_ROOT();
  Trie tmpl(100);  // 5000 keys do not fit max_entries 100
  REQUIRE(tmpl.fd >= 0);
  auto producer = make_map_churn_producer(tmpl.fd, 5000, 32);
  ProducerSlot slot;
  std::atomic<bool> stop{false};
  std::string err = test::error_of(producer->run(0, slot, stop));
  CHECK(err == "map_churn producer: filling a map failed: 5000 keys do not fit (max_entries 100)");
  CHECK(slot.ops.load() == 0);
}
