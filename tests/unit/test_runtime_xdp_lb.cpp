// The xdp_lb family (the kernel's xdp-lb): every scenario's packet through the
// balancer, its verdict and output bytes checked (the validation runs, check_output) and
// its counts self-checked; a wrong expectation failing the point; in-BPF batch timing
// (calibration, the sample target); and `bpfbench bench xdp-lb`. Runtime tests need root.
#include <catch2/catch.hpp>

#include <regex>

#include "compiler/family/enum_choices.hpp"
#include "point_runner.hpp"
#include "run_process.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

struct XdpRunner : test::PointRunner {
  // The point of `scenario`: its presets applied (as the front end does), batches of
  // `iters` packets (0: calibrated), then `values`.
  PlanPoint scenario(const std::string &name, int64_t iters = 2000,
                     std::vector<std::pair<std::string, ParamValue>> values = {}) {
    PlanPoint p = point("xdp_lb", "xdp_lb");
    p.duration_ns = kInterval;
    const FamilyManifest &f = fams.get("xdp_lb");
    test::set_param(p, "scenario", test::word(name));
    if (const auto *preset = preset_of(*f.param("scenario"), name))
      for (const auto &[n, v] : *preset) test::set_param(p, n, v);
    if (!p.param("batch_iters")->i) test::set_param(p, "batch_iters", test::num(iters));
    for (auto &[n, v] : values) test::set_param(p, n, v);
    return p;
  }
};

std::vector<std::string> scenarios() {
  test::Families fams;
  return fams.get("xdp_lb").param("scenario")->choices;
}

const SelfCheck *xdp_self_check(const PointResult &r, const std::string &name) {
  for (const auto &c : r.self_checks)
    if (c.name == name) return &c;
  return nullptr;
}

size_t count_checks(const PointResult &r, const std::string &name) {
  size_t n = 0;
  for (const auto &c : r.self_checks) n += c.name == name;
  return n;
}

std::string text(const PlanPoint &p, const char *name) { return p.param(name)->to_string(); }

}  // namespace

TEST_CASE("xdp_lb: every scenario validates its verdict and packet, runs, and passes its self-checks",
          "[runtime][xdp_lb]") {
  BB_REQUIRE_ROOT();
  XdpRunner r;
  const std::vector<std::string> all = scenarios();
  REQUIRE(all.size() == 24);  // the kernel bench's scenarios
  for (const auto &name : all) {
    DYNAMIC_SECTION(name) {
      PlanPoint p = r.scenario(name);
      PointResult res = r.run(p);
      INFO(name << ": " << res.reason);
      REQUIRE(res.status == PointResult::Status::Ok);
      CHECK(test::sampled_total(res, "hits") > 0);
      for (const auto &c : res.self_checks) {
        INFO(c.name << ": " << c.detail);
        CHECK(c.ok);
      }
      // lb_fill, lb_arm_cold, two validation runs of the balancer (verdict), lb_arm.
      CHECK(count_checks(res, "run_program") == 5);
      const std::string expect = text(p, "expect_packet");
      CHECK(count_checks(res, "run_program_output") == (expect == "any" ? 0u : 2u));
      if (const SelfCheck *out = xdp_self_check(res, "run_program_output")) {
        const int64_t len = p.param("packet_len")->i;
        const bool v6_tunnel = text(p, "expect_outer_dst").find(':') != std::string::npos;
        CHECK(out->expected == double(expect == "input" ? len : len + (v6_tunnel ? 40 : 20)));
        CHECK(out->observed == out->expected);
      }
      for (const char *c : {"packets_vs_producer", "verdicts"}) CHECK(xdp_self_check(res, c));
      const std::string lru = text(p, "lru_miss");
      const bool lru_checked = lru != "any" && p.param("flow_mask")->i == 0;
      CHECK((xdp_self_check(res, "lru_hits") || xdp_self_check(res, "lru_miss_all") ||
             xdp_self_check(res, "lru_miss_first")) == lru_checked);
      REQUIRE(res.batch_timing);
      CHECK(res.batch_timing->batch_iters == uint32_t(p.param("batch_iters")->i));  // 2000, or warmup's 6500
      CHECK_FALSE(res.batch_timing->calibrated);
      CHECK(!res.batch_timing->per_op_ns.empty());
      const MetricSummary *p50 = res.summary.find("p50");
      REQUIRE(p50);
      CHECK(p50->mean > 0);
    }
  }
}

TEST_CASE("xdp_lb: a wrong expectation fails the point with what differs", "[runtime][xdp_lb]") {
  BB_REQUIRE_ROOT();
  XdpRunner r;
  SECTION("the verdict, in the validation run") {
    PointResult res = r.run(r.scenario("tcp-v4-lru-hit", 2000, {{"expect_retval", test::num(2)}}));
    CHECK(res.status == PointResult::Status::Failed);
    CHECK(res.reason == "setup: run_program 'xdp_lb' returned 3, expected 2");
  }
  SECTION("the output packet, byte by byte") {
    PointResult res = r.run(r.scenario("tcp-v4-lru-hit", 2000, {{"expect_outer_dst", test::word("192.168.1.3")}}));
    CHECK(res.status == PointResult::Status::Failed);
    CHECK(res.reason == "setup: run_program 'xdp_lb': the output packet differs from the expected one: got 90 bytes, "
                        "expected 90; offset 0x019: got 0xc2 expected 0xc1; offset 0x021: got 0x02 expected 0x03");
  }
  SECTION("the LRU misses, in the self-check over the run") {
    PointResult res = r.run(r.scenario("tcp-v4-lru-hit", 2000, {{"lru_miss", test::word("all")}}));
    CHECK(res.status == PointResult::Status::Failed);
    CHECK(res.reason.rfind("self-check 'lru_miss_all' failed: expected ", 0) == 0);
    const SelfCheck *c = xdp_self_check(res, "lru_miss_all");
    REQUIRE(c);
    CHECK(c->expected > 0);
    CHECK(c->observed == 0);  // every packet hit
  }
  SECTION("every call's output, where the source varies after validation") {
    PointResult res = r.run(r.scenario("tcp-v4-lru-diverse", 2000, {{"check_output", test::num(1)}}));
    CHECK(res.status == PointResult::Status::Failed);
    CHECK(res.reason.find("test_run call 1: the output packet differs from the expected one: got 90 bytes, "
                          "expected 90; offset ") != std::string::npos);
  }
}

TEST_CASE("xdp_lb: calibrated batches, and the run ends at its sample target", "[runtime][xdp_lb][batch_timing]") {
  BB_REQUIRE_ROOT();
  XdpRunner r;
  PlanPoint p = r.scenario("tcp-v4-ch", 0, {{"timing_samples", test::num(3)}});
  p.duration_ns = 20'000'000'000;  // the target ends it long before
  PointResult res = r.run(p);
  INFO(res.reason);
  REQUIRE(res.status == PointResult::Status::Ok);
  REQUIRE(res.batch_timing);
  CHECK(res.batch_timing->calibrated);
  CHECK(res.batch_timing->calibration_ns_per_op > 0);
  CHECK(res.batch_timing->batch_iters >= 100u);
  CHECK(res.batch_timing->batch_iters <= 10000000u);
  CHECK(res.batch_timing->ratio_2n_n > 1.0);
  CHECK(res.batch_timing->per_op_ns.size() >= 3u);
  CHECK(res.samples.size() < 20u);                    // ended by the target, not after 20 s of intervals
  for (const auto &c : res.self_checks) CHECK(c.ok);  // producer ops = calls x (batch_iters + 1)
}

// The kernel bench's order: the batch size is calibrated on the plain packet, before
// cold_lru and the source variation are on (setup's calibrate_batch, then lb_arm_cold, the
// validation runs, lb_arm); the validation runs then run whole calibrated batches.
TEST_CASE("xdp_lb: a cold-LRU, varied-source scenario calibrates and runs", "[runtime][xdp_lb][batch_timing]") {
  BB_REQUIRE_ROOT();
  XdpRunner r;
  for (const char *name : {"tcp-v4-rst-miss", "tcp-v4-lru-miss"}) {
    PlanPoint p = r.scenario(name, 0, {{"timing_samples", test::num(3)}});
    p.duration_ns = 20'000'000'000;
    PointResult res = r.run(p);
    INFO(name << ": " << res.reason);
    REQUIRE(res.status == PointResult::Status::Ok);
    REQUIRE(res.batch_timing);
    CHECK(res.batch_timing->calibrated);
    CHECK(res.batch_timing->batch_iters >= 100u);
    CHECK(res.batch_timing->per_op_ns.size() >= 3u);
    CHECK(count_checks(res, "run_program_output") == 0);  // expect_packet any: no bytes compared
    for (const auto &c : res.self_checks) CHECK(c.ok);
  }
}

TEST_CASE("bpfbench bench xdp-lb prints the kernel bench's timing line", "[runtime][xdp_lb][kbench]") {
  BB_REQUIRE_ROOT();
  using test::run_process;
  const std::string num = "[0-9]+\\.[0-9]{2}";
  auto p = run_process({BPFBENCH_BINARY, "bench", "-w0", "xdp-lb", "--scenario", "tcp-v4-lru-hit"}, 120);
  INFO(p.out << p.err);
  REQUIRE(p.exit_code == 0);
  std::smatch m;
  REQUIRE(
      std::regex_match(p.out, m,
                       std::regex("Setting up benchmark 'xdp-lb'\\.\\.\\.\nBenchmark 'xdp-lb' started\\.\n"
                                  "tcp-v4-lru-hit: median (" +
                                  num + ") ns/op, stddev " + num + ", p99 (" + num + ") \\(([0-9]+) samples\\)\n")));
  CHECK(std::stod(m[1].str()) > 0);
  CHECK(std::stod(m[2].str()) >= std::stod(m[1].str()));
  CHECK(std::stoi(m[3].str()) > 100);  // the kernel bench's 200, less the outliers it drops

  auto mr =
      run_process({BPFBENCH_BINARY, "bench", "-w0", "xdp-lb", "--machine-readable", "--scenario", "pass-non-ip"}, 120);
  INFO(mr.out << mr.err);
  REQUIRE(mr.exit_code == 0);
  CHECK(std::regex_match(mr.out,
                         std::regex("RESULT scenario=pass-non-ip samples=[0-9]+ median=" + num + " stddev=" + num +
                                    " cv=" + num + " min=" + num + " p99=" + num + " max=" + num + "\n")));
}

TEST_CASE("bpfbench bench xdp-lb: scenarios listed, argument errors exit 2", "[cli][kbench]") {
  using test::run_process;
  auto list = run_process({BPFBENCH_BINARY, "bench", "xdp-lb", "--list-scenarios"}, 30);
  CHECK(list.exit_code == 0);
  CHECK(list.out.rfind("Available scenarios:\n  tcp-v4-lru-hit        IPv4 TCP, LRU hit, IPIP encap\n", 0) == 0);
  CHECK(std::count(list.out.begin(), list.out.end(), '\n') == 25);
  struct Refusal {
    std::vector<std::string> args;
    const char *message;
  } refusals[] = {
      {{"xdp-lb"}, "bpfbench: error: bench: --scenario is required. Use --list-scenarios to see options.\n"},
      {{"--scenario", "tcp-v4-lru-hti", "xdp-lb"},
       "bpfbench: error: bench: unknown scenario: 'tcp-v4-lru-hti' (use --list-scenarios to see options; did you mean "
       "'tcp-v4-lru-hit'?)\n"},
      {{"-c1", "--scenario", "tcp-v4-ch", "xdp-lb"}, "bpfbench: error: bench: benchmark doesn't support consumers\n"},
      {{"--scenario", "tcp-v4-ch", "trig-tp"},
       "bpfbench: error: bench: --scenario does not apply to benchmark 'trig-tp'\n"},
  };
  for (const auto &f : refusals) {
    std::vector<std::string> argv = {BPFBENCH_BINARY, "bench"};
    argv.insert(argv.end(), f.args.begin(), f.args.end());
    auto r = run_process(argv, 30);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err == f.message);
  }
}
