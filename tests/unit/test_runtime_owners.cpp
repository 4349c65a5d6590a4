// Producers that make local storage owners (sockets, threads) or use them
// (getsockopt), the cgroup attach kind, and the local_storage_create and sk_storage_get
// families built on them. Runtime tests: root and BPF.
#include <catch2/catch.hpp>

#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "point_runner.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

PointResult run(const std::string &family, const std::string &prog,
                std::vector<std::pair<std::string, int64_t>> v = {}) {
  test::PointRunner r;
  return r.run(r.point(family, prog, std::move(v)));
}

}  // namespace

TEST_CASE("local_storage_create socket: one storage per socket made", "[runtime][owners]") {
  BB_REQUIRE_ROOT();
  PointResult r = run("local_storage_create", "socket", {{"batch_size", 8}});
  if (!test::ran_or_skipped(r)) return;
  CHECK(test::sampled_total(r, "hits") > 0);
  CHECK(test::sampled_total(r, "create_errs") == 0);
  CHECK(test::sampled_total(r, "kmallocs") > 0);
  REQUIRE(r.self_checks.size() == 1);  // every socket ran the program: producer == creates + errs
  CHECK(r.self_checks[0].ok);
}

TEST_CASE("local_storage_create task: storages for the threads made", "[runtime][owners]") {
  BB_REQUIRE_ROOT();
  PointResult r = run("local_storage_create", "task", {{"batch_size", 8}});
  if (!test::ran_or_skipped(r)) return;
  CHECK(test::sampled_total(r, "hits") > 0);
  CHECK(test::sampled_total(r, "create_errs") == 0);
}

TEST_CASE("sk_storage_get: every getsockopt() runs the get, the storage is found", "[runtime][owners]") {
  BB_REQUIRE_ROOT();
  PointResult r = run("sk_storage_get", "get");
  if (!test::ran_or_skipped(r)) return;
  CHECK(test::sampled_total(r, "hits") > 0);
  CHECK(test::sampled_total(r, "misses") == 0);
  REQUIRE(r.self_checks.size() == 1);
  CHECK(r.self_checks[0].ok);
}
