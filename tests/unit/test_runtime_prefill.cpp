// The setup action `prefill`: per-CPU maps get value = key in every CPU's slot,
// and the read-back self-check fails a map that does not hold what was written. Runtime
// tests need root and BPF; the JSON test does not.
#include <catch2/catch.hpp>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "results/results.hpp"
#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "runtime/setup_actions.hpp"
#include "point_runner.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

// A map made for the test (4-byte keys), closed at scope end.
struct TestMap {
  int fd = -1;
  TestMap(bpf_map_type type, uint32_t value_size, uint32_t max_entries, uint32_t key_size = 4) {
    fd = bpf_map_create(type, "bb_prefill_test", key_size, value_size, max_entries, nullptr);
  }
  ~TestMap() {
    if (fd >= 0) close(fd);
  }
  TestMap(const TestMap &) = delete;
  TestMap &operator=(const TestMap &) = delete;
};

size_t possible_cpus() { return static_cast<size_t>(libbpf_num_possible_cpus()); }

// "" when keys 0..n-1 each hold value = key (low `value_size` bytes, little endian) in every
// CPU's slot (8-byte aligned), else the first difference. Read key by key with
// bpf_map_lookup_elem, apart from the batch read-back prefill checks itself with.
std::string first_difference(int fd, uint32_t value_size, uint64_t n, bool per_cpu) {
  const size_t cpus = per_cpu ? possible_cpus() : 1, slot = per_cpu ? (value_size + 7) / 8 * 8 : value_size;
  std::vector<uint8_t> v(cpus * slot);
  for (uint32_t k = 0; k < n; ++k) {
    if (bpf_map_lookup_elem(fd, &k, v.data()) != 0) return "key " + std::to_string(k) + " is missing";
    for (size_t c = 0; c < cpus; ++c) {
      uint64_t got = 0, want = value_size < 8 ? k & ((uint64_t{1} << (8 * value_size)) - 1) : k;
      std::memcpy(&got, &v[c * slot], std::min<size_t>(value_size, 8));  // x86: little endian
      if (got != want)
        return "key " + std::to_string(k) + " on CPU " + std::to_string(c) + " holds " + std::to_string(got);
    }
  }
  return "";
}

uint64_t count_u32_keys(int fd) {
  uint64_t n = 0;
  uint32_t key = 0, next = 0;
  for (const void *prev = nullptr; bpf_map_get_next_key(fd, prev, &next) == 0; prev = &key, key = next) ++n;
  return n;
}

// Points of the fixture family percpu_prefill: no warmup, two 250 ms intervals.
struct PrefillRunner : test::PointRunner {
  PrefillRunner() : PointRunner({test::fixtures_dir()}) {}
  PointResult run(const std::string &prog, int64_t nr_keys) {
    PlanPoint p = point("percpu_prefill", prog, {{"nr_keys", nr_keys}});
    if (possible_cpus() >= 2) {  // one producer on each of CPUs 0 and 1: both slots are read
      p.producers = 2;
      p.affinity = true;
    }
    return PointRunner::run(p);
  }
};

}  // namespace

TEST_CASE("prefill writes every CPU's slot of per-CPU maps", "[runtime][setup][prefill]") {
  BB_REQUIRE_ROOT();
  REQUIRE(possible_cpus() > 0);
  // 1000 keys: a value buffer of value_size per key gave the kernel other keys' bytes;
  // past 65536 / CPUs keys per batch it read past the buffer's end (EFAULT).
  const uint64_t past = 65536 / possible_cpus() + 5000;
  struct Case {
    bpf_map_type type;
    uint32_t value_size;
    const char *name;
  };
  for (uint64_t n : {uint64_t{1000}, past})
    for (Case c :
         {Case{BPF_MAP_TYPE_PERCPU_HASH, 4, "percpu_hash u32"}, Case{BPF_MAP_TYPE_PERCPU_ARRAY, 8, "percpu_array u64"},
          Case{BPF_MAP_TYPE_PERCPU_ARRAY, 12, "percpu_array 12 bytes"},
          Case{BPF_MAP_TYPE_LRU_PERCPU_HASH, 8, "lru_percpu_hash u64"}}) {
      INFO(c.name << ", " << n << " keys");
      // An LRU hash evicts before it is full (per-CPU free lists): give it room.
      bool lru = c.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
      TestMap m(c.type, c.value_size, static_cast<uint32_t>(lru ? 2 * n : n));
      REQUIRE(m.fd >= 0);
      Result<> filled = prefill_map(m.fd, n);
      INFO((filled ? "" : filled.error().message));
      REQUIRE(filled);
      CHECK(first_difference(m.fd, c.value_size, n, true) == "");
      if (c.type != BPF_MAP_TYPE_PERCPU_ARRAY) CHECK(count_u32_keys(m.fd) == n);
    }
}

TEST_CASE("prefill refuses more keys than the key size can tell apart", "[runtime][setup][prefill]") {
  BB_REQUIRE_ROOT();
  TestMap m(BPF_MAP_TYPE_HASH, 8, 300, 1);
  REQUIRE(m.fd >= 0);
  // Keys 256..299 used to wrap onto 0..43 silently: 256 entries, 44 of them wrong.
  Result<> filled = prefill_map(m.fd, 300);
  REQUIRE_FALSE(filled);
  CHECK(filled.error().message == "300 keys do not fit a 1-byte key");
  CHECK(count_u32_keys(m.fd) == 0);  // refused before writing any
  CHECK(prefill_map(m.fd, 256));
  CHECK(count_u32_keys(m.fd) == 256);
}

TEST_CASE("the prefill self-check reads every key and CPU slot back", "[runtime][setup][prefill]") {
  BB_REQUIRE_ROOT();
  const size_t cpus = possible_cpus();
  TestMap m(BPF_MAP_TYPE_PERCPU_HASH, 4, 200);
  REQUIRE(m.fd >= 0);
  REQUIRE(prefill_map(m.fd, 100));
  Result<SelfCheck> c = check_prefill(m.fd, 100);
  REQUIRE(c);
  CHECK(c->name == "prefill");
  CHECK(c->ok);
  CHECK(c->expected == 100);
  CHECK(c->observed == 100);
  CHECK(c->detail == "");

  // Key 7 gets 99 on the last CPU, key 3 goes, key 500 (never written) comes.
  std::vector<uint64_t> v(cpus, 7);
  v.back() = 99;
  uint32_t k7 = 7, k3 = 3, k500 = 500;
  REQUIRE(bpf_map_update_elem(m.fd, &k7, v.data(), BPF_EXIST) == 0);
  REQUIRE(bpf_map_delete_elem(m.fd, &k3) == 0);
  REQUIRE(bpf_map_update_elem(m.fd, &k500, v.data(), BPF_NOEXIST) == 0);
  c = check_prefill(m.fd, 100);
  REQUIRE(c);
  CHECK_FALSE(c->ok);
  CHECK(c->expected == 100);
  CHECK(c->observed == 98);
  CHECK(c->detail == "100 keys written, 98 read back with value = key on every CPU (100 entries in the map; " +
                         std::string("1 with another value (first: key 7 on CPU ") + std::to_string(cpus - 1) +
                         " holds 99); 1 with a key never written (first: 500))");
}

TEST_CASE("prefill: per-CPU maps read right by the program on each CPU", "[runtime][setup][prefill]") {
  BB_REQUIRE_ROOT();
  PrefillRunner t;
  for (int64_t n : {int64_t{1000}, static_cast<int64_t>(65536 / possible_cpus() + 5000)}) {
    INFO(n << " keys");
    PointResult r = t.run("lookup", n);
    INFO(to_string(r.status) << ": " << r.reason);
    REQUIRE(r.status == PointResult::Status::Ok);
    CHECK(test::sampled_total(r, "hits") > 0);
    CHECK(test::sampled_total(r, "bad") == 0);
    REQUIRE(r.self_checks.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      const SelfCheck &c = r.self_checks[i];
      CHECK(c.name == "prefill");
      CHECK(c.ok);
      CHECK(c.expected == double(n));
      CHECK(c.observed == double(n));
      CHECK(c.detail == (i == 0 ? "map 'pc_hash'" : "map 'pc_array'"));
    }
  }
}

TEST_CASE("prefill: a map that drops keys fails the setup with both counts", "[runtime][setup][prefill]") {
  BB_REQUIRE_ROOT();
  // An LRU hash evicts before it is full: filled to max_entries, it keeps fewer keys, and
  // the point used to run on the map that silently held fewer.
  PrefillRunner t;
  PointResult r = t.run("lru", 1000);
  CHECK(r.status == PointResult::Status::Failed);
  INFO(r.reason);
  CHECK(r.reason.rfind("setup: prefill 'lru': 1000 keys written, ", 0) == 0);
  REQUIRE(r.self_checks.size() == 1);
  const SelfCheck &c = r.self_checks[0];
  CHECK_FALSE(c.ok);
  CHECK(c.expected == 1000);
  CHECK(c.observed < 1000);
  CHECK(c.detail.rfind("map 'lru': 1000 keys written, " + std::to_string(int64_t(c.observed)) +
                           " read back with value = key (" + std::to_string(int64_t(c.observed)) +
                           " entries in the map",
                       0) == 0);
  CHECK(r.reason.find(std::to_string(int64_t(c.observed)) + " read back") != std::string::npos);
}

TEST_CASE("self_checks go into the point's JSON", "[results][prefill]") {
  PointResult r;
  r.self_checks.push_back({"prefill", 1000, 1000, true, "map 'h'"});
  r.self_checks.push_back({"prefill", 1000, 976, false, ""});
  nlohmann::json j = point_result_to_json(PlanPoint{}, r, "", 0, 0);
  REQUIRE(j["self_checks"].size() == 2);
  CHECK(j["self_checks"][0] ==
        nlohmann::json(
            {{"name", "prefill"}, {"expected", 1000}, {"observed", 1000}, {"ok", true}, {"detail", "map 'h'"}}));
  CHECK(j["self_checks"][1] ==
        nlohmann::json({{"name", "prefill"}, {"expected", 1000}, {"observed", 976}, {"ok", false}, {"detail", ""}}));
  CHECK(point_result_to_json(PlanPoint{}, PointResult{}, "", 0, 0)["self_checks"] == nlohmann::json::array());
}
