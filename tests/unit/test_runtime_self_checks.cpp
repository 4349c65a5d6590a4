// Runtime tests (root + BPF) of the self-checks: on the shipped families the two counts of
// the same events agree exactly and the check is in the JSON; a program that counts every
// event twice fails its point with both counts (run_point and `bpfbench run`, exit 2).
#include <catch2/catch.hpp>

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/escape.hpp"
#include "results/results.hpp"
#include "run_process.hpp"
#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "temp_dir.hpp"
#include "point_runner.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

using Runner = test::PointRunner;

uint64_t sampled(const PointResult &r, const std::string &metric) { return test::sampled_total(r, metric); }

// A family whose program counts every getpgid() of bpfbench twice: its self-check must fail.
test::TempDir double_count_family() {
  test::TempDir dir;
  dir.write("double_count/prog.bpf.c", R"(char _license[] SEC("license") = "GPL";
struct bb_counter bb_hits[BB_MAX_CPUS] = {};
SEC("?tp/syscalls/sys_enter_getpgid")
int bench_twice(void *ctx)
{
	if ((__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid)
		bb_add(bb_hits, 2);
	return 0;
}
)");
  dir.write("double_count/family.json", R"({ "family": "double_count", "description": "test: counts twice",
  "template": "prog.bpf.c", "producer": "syscall",
  "programs": [ { "name": "twice", "section": "?tp/syscalls/sys_enter_getpgid", "function": "bench_twice",
                  "requires": ["prog_type:tracepoint"] } ],
  "metrics": [ { "name": "hits", "source": "counter:bb_hits", "unit": "M/s" } ],
  "self_checks": [ { "name": "hits_vs_producer", "expected": ["producer"], "observed": ["hits"] } ] })");
  return dir;
}

}  // namespace

TEST_CASE("self-checks pass on tp, rawtp, kernel-count and uprobe points", "[runtime][self_checks]") {
  BB_REQUIRE_ROOT();
  Runner run;
  REQUIRE_FALSE(run.fams.diags.has_errors());
  const std::pair<const char *, const char *> points[] = {{"trigger", "tp"},
                                                          {"trigger", "rawtp"},
                                                          {"trigger", "kernel-count"},
                                                          {"uprobes", "uprobe-nop"},
                                                          {"uprobes", "uretprobe-ret"}};
  for (const auto &[family, prog] : points) {
    DYNAMIC_SECTION(family << "/" << prog) {
      if (!run.supported(family, prog)) {
        WARN(prog << " is not supported here");
        continue;
      }
      PlanPoint p = test::make_point(run.fams.get(family), prog, 0, 2 * Runner::kInterval);
      p.producers = 2;
      PointResult r = run.run(p);
      INFO(to_string(r.status) << ": " << r.reason);
      REQUIRE(r.status == PointResult::Status::Ok);
      REQUIRE(r.self_checks.size() == 1);
      const SelfCheck &c = r.self_checks[0];
      INFO(c.detail);
      CHECK(c.name == "hits_vs_producer");
      CHECK(c.ok);
      CHECK(c.expected == c.observed);
      // The whole run: at least what the samples hold, which leave out the start and the end.
      CHECK(c.observed >= double(sampled(r, "hits")));
      CHECK(sampled(r, "hits") > 0);
      nlohmann::json j = point_result_to_json(p, r, "", 1, Runner::kInterval);
      REQUIRE(j["self_checks"].size() == 1);
      CHECK(j["self_checks"][0]["name"] == "hits_vs_producer");
      CHECK(j["self_checks"][0]["ok"] == true);
      CHECK(j["self_checks"][0]["expected"] == c.expected);
    }
  }
}

TEST_CASE("ringbuf and perfbuf: records emitted == consumed + dropped", "[runtime][self_checks][ringbuf]") {
  BB_REQUIRE_ROOT();
  Runner run;
  const FamilyManifest &f = run.fams.get("ringbuf");
  struct Case {
    const char *prog, *consumer;
    bool back2back, tiny;  // tiny: a 4K buffer (8 pages for perfbuf) that must drop records
  };
  const Case cases[] = {{"reserve_commit", "libbpf", false, false},
                        {"output", "custom", false, true},
                        {"reserve_commit", "custom", true, false},
                        {"perfbuf", "libbpf", false, false},
                        {"perfbuf", "custom", false, true}};
  for (const auto &k : cases) {
    DYNAMIC_SECTION(k.prog << " " << k.consumer << (k.back2back ? " back2back" : "") << (k.tiny ? " tiny" : "")) {
      if (!run.supported("ringbuf", k.prog)) {
        WARN(k.prog << " is not supported here");
        continue;
      }
      PlanPoint p = test::make_point(f, k.prog, 0, 2 * Runner::kInterval);
      test::set_param(p, "consumer", test::word(k.consumer));
      test::set_param(p, "back2back", test::num(k.back2back));
      if (k.tiny) {
        test::set_param(p, "batch", test::num(4000));
        test::set_param(p, "ring_size", test::num(4096));
        test::set_param(p, "perfbuf_pages", test::num(1));
      }
      PointResult r = run.run(p);
      INFO(to_string(r.status) << ": " << r.reason);
      REQUIRE(r.status == PointResult::Status::Ok);
      REQUIRE(r.self_checks.size() == 1);
      const SelfCheck &c = r.self_checks[0];
      INFO(c.detail);
      CHECK(c.name == "records_accounted");
      CHECK(c.ok);
      CHECK(c.expected == c.observed);
      CHECK(c.expected > 0);
      // A tiny buffer drops, and the drops are part of the sum (not necessarily inside the
      // measured intervals: a quiet machine's consumer may drop only at the start or end).
      if (k.tiny) CHECK(c.detail.find("drops (counter:bb_drops) 0;") == std::string::npos);
      CHECK(point_result_to_json(p, r, "", 1, Runner::kInterval)["self_checks"][0]["ok"] == true);
    }
  }
}

TEST_CASE("a program counting each event twice fails its point with both counts", "[runtime][self_checks]") {
  BB_REQUIRE_ROOT();
  test::TempDir dir = double_count_family();
  Runner run({dir.path.string()});
  INFO(render_all(run.fams.diags, run.fams.sources));
  REQUIRE_FALSE(run.fams.diags.has_errors());
  PlanPoint p = test::make_point(run.fams.get("double_count"), "twice", 0, 2 * Runner::kInterval);
  PointResult r = run.run(p);
  REQUIRE(r.status == PointResult::Status::Failed);
  REQUIRE(r.self_checks.size() == 1);
  const SelfCheck &c = r.self_checks[0];
  CHECK_FALSE(c.ok);
  CHECK(c.expected > 0);
  CHECK(c.observed == 2 * c.expected);
  const std::string both = fmt::format("expected {:.0f}, observed {:.0f}", c.expected, c.observed);
  CHECK(r.reason.rfind("self-check 'hits_vs_producer' failed: " + both + " (expected producer ", 0) == 0);
  CHECK(r.reason.find("observed hits (counter:bb_hits) ") != std::string::npos);
}

TEST_CASE("bpfbench run: a failed self-check is a failed point, exit 2, in the JSON", "[runtime][self_checks][cli]") {
  BB_REQUIRE_ROOT();
  test::TempDir dir = double_count_family();
  std::string bdsl = dir.write("t.bdsl", "bench double_count as \"dbl\" < warmup 0s; duration 1s >\n");
  std::string json = (dir.path / "out.json").string();
  auto r =
      test::run_process({BPFBENCH_BINARY, "run", "-q", "--templates", dir.path.string(), bdsl, "--json", json}, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(bdsl + ":1:1: error: bench 'dbl' failed: self-check 'hits_vs_producer' failed: expected ") !=
        std::string::npos);
  std::ifstream in(json);
  nlohmann::json j = nlohmann::json::parse(in);
  const auto &pt = j["points"][0];
  CHECK(pt["status"] == "failed");
  REQUIRE(pt["self_checks"].size() == 1);
  CHECK(pt["self_checks"][0]["ok"] == false);
  CHECK(pt["self_checks"][0]["observed"].get<double>() == 2 * pt["self_checks"][0]["expected"].get<double>());
}
