// The htab_mem family (the kernel bench's htab-mem), the cgroup_memory metric
// source (a memory cgroup per point) and the syscall_pair producer. Runtime tests need
// root and BPF; the producer's argument check does not.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/memory_cgroup.hpp"
#include "runtime/pair_producer.hpp"
#include "point_runner.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;
namespace fs = std::filesystem;

namespace {

std::string own_cgroups() {
  std::ifstream in("/proc/self/cgroup");
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Cgroups this process made and left behind, in the hierarchy a point would use.
size_t leftover_cgroups() {
  auto h = find_memory_hierarchy();
  if (!h) return 0;
  size_t n = 0;
  const std::string prefix = "bpfbench-" + std::to_string(getpid()) + "-";
  std::error_code ec;
  for (const std::string &dir : {h->mount + h->path, h->mount})
    for (const auto &e : fs::directory_iterator(dir, ec))
      n += e.path().filename().string().rfind(prefix, 0) == 0;
  return n;
}

// `prog` of htab_mem with `producers` threads and the int params in `v`.
PlanPoint htab_point(test::PointRunner &r, const std::string &prog, int producers,
                     std::vector<std::pair<std::string, int64_t>> v = {}) {
  PlanPoint p = r.point("htab_mem", prog, std::move(v));
  p.producers = producers;
  return p;
}

const MetricSummary &metric(const PointResult &r, const std::string &name) {
  const MetricSummary *m = r.summary.find(name);
  REQUIRE(m);
  return *m;
}

}  // namespace

TEST_CASE("syscall_pair needs an even number of threads", "[producers]") {
  for (int n : {0, 1, 3, 7}) {
    auto p = make_syscall_pair_producer(n);
    INFO(n);
    REQUIRE_FALSE(p);
    CHECK(p.error().message ==
          "producer syscall_pair needs an even number of producers (its threads take turns in pairs), not " +
              std::to_string(n));
  }
  CHECK(make_syscall_pair_producer(2));
}

TEST_CASE("htab_mem: memory is read from a cgroup of the point's own, which is gone after it", "[runtime][htab_mem]") {
  BB_REQUIRE_ROOT();
  const std::string before = own_cgroups();
  test::PointRunner r;
  PointResult res = r.run(htab_point(r, "overwrite", 2));
  if (!test::ran_or_skipped(res)) return;
  CHECK(test::sampled_total(res, "hits") > 0);
  const MetricSummary &mem = metric(res, "memory"), &peak = metric(res, "peak_memory");
  CHECK(mem.unit == "MiB");
  CHECK(mem.mean > 0);
  // The peak is the most the cgroup held since before load: never below a reading.
  CHECK(peak.mean >= mem.max);
  CHECK(own_cgroups() == before);  // moved back
  CHECK(leftover_cgroups() == 0);  // and removed
}

TEST_CASE("htab_mem preallocated: the cgroup holds the whole map from load on", "[runtime][htab_mem]") {
  BB_REQUIRE_ROOT();
  test::PointRunner r;
  PlanPoint p = htab_point(r, "overwrite", 2, {{"value_size", 4096}, {"max_entries", 8192}});
  test::set_param(p, "preallocated", test::num(1));
  PointResult pre = r.run(p);
  if (!test::ran_or_skipped(pre)) return;
  // 8192 preallocated elements of 4096-byte values: at least 32 MiB, counted two ways.
  CHECK(metric(pre, "memory").min >= 32.0);
  CHECK(metric(pre, "memory").mean < 64.0);
  PointResult lazy = r.run(htab_point(r, "overwrite", 2, {{"value_size", 4096}}));
  REQUIRE(lazy.status == PointResult::Status::Ok);
  // Without preallocation only the keys the program touches (2 CPUs x 64) have elements.
  CHECK(metric(lazy, "memory").mean < 16.0);
  CHECK(leftover_cgroups() == 0);
}

TEST_CASE("htab_mem add_del_on_diff_cpu: pairs take turns and stop", "[runtime][htab_mem]") {
  BB_REQUIRE_ROOT();
  test::PointRunner r;
  PointResult res = r.run(htab_point(r, "add_del_on_diff_cpu", 4));
  if (!test::ran_or_skipped(res)) return;
  CHECK(test::sampled_total(res, "hits") > 0);
  CHECK(metric(res, "peak_memory").mean > 0);
  // A point with an odd count fails with the producer's reason (check refuses it before).
  PointResult odd = r.run(htab_point(r, "add_del_on_diff_cpu", 3));
  CHECK(odd.status == PointResult::Status::Failed);
  CHECK(odd.reason.find("needs an even number of producers") != std::string::npos);
  CHECK(leftover_cgroups() == 0);
}
