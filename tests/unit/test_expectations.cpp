// `expect`: checked names and units, judged on the summary mean, FAILED + exit 1 on a run.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/pipeline.hpp"
#include "run_process.hpp"
#include "results/expectations.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;

namespace {

struct ExpectBdsl {
  std::string path;
  explicit ExpectBdsl(const std::string &text) {
    char tmpl[] = "/tmp/bpfbench-expect-XXXXXX.bdsl";
    int fd = mkstemps(tmpl, 5);
    REQUIRE(fd >= 0);
    close(fd);
    path = tmpl;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~ExpectBdsl() { fs::remove(path); }
};

struct Front {
  Frontend fe;
  bool ok = false;
  std::string text;
  explicit Front(const ExpectBdsl &f) {
    FrontendOptions opts;
    opts.nproc = 2;
    ok = run_frontend(f.path, opts, fe);
    text = render_all(fe.diags, fe.sources);
  }
};

}  // namespace

TEST_CASE("expect values are in the metric's reported unit, suffixes scale them", "[expect]") {
  ExpectBdsl f("let floor = 2;\n"
               "defaults < expect drops == 0; expect hits > floor; >\n"
               "bench ringbuf < batch 10; expect hits >= 500K; expect total_ops != 3G; >\n"
               "bench trigger < prog tp; report hits, latency; expect latency < 2us; >\n");
  Front r(f);
  INFO(r.text);
  REQUIRE(r.ok);
  const auto &rb = r.fe.plan->points.at(0).expectations;
  REQUIRE(rb.size() == 4);  // defaults first
  CHECK(rb[0].text == "drops == 0");
  CHECK(rb[1].text == "hits > floor");
  CHECK(rb[1].value == 2.0);
  CHECK(rb[2].metric == "hits");
  CHECK(rb[2].op == ">=");
  CHECK(rb[2].value == Approx(0.5));
  CHECK(rb[2].unit == "M/s");
  CHECK(rb[3].value == Approx(3000.0));
  // trigger has no `drops`: the defaults' expect does not apply to it.
  const auto &tr = r.fe.plan->points.at(1).expectations;
  REQUIRE(tr.size() == 2);
  CHECK(tr[0].text == "hits > floor");
  CHECK(tr[1].metric == "latency");
  CHECK(tr[1].value == Approx(2000.0));
  CHECK(tr[1].unit == "ns/op");
}

TEST_CASE("bad expects are located errors", "[expect]") {
  ExpectBdsl f("bench ringbuf < expect drop == 0; >\n"
               "bench ringbuf as \"b\" < expect hits > 5ms; >\n"
               "bench ringbuf as \"c\" < expect hits > fast; >\n"
               "bench trigger < expect latency < 100; >\n");
  Front r(f);
  INFO(r.text);
  CHECK_FALSE(r.ok);
  CHECK(r.text.find(f.path + ":1:24-27: error: unknown metric 'drop' for family 'ringbuf' in 'expect'\n") !=
        std::string::npos);
  CHECK(r.text.find("hint: did you mean 'drops'?") != std::string::npos);
  CHECK(r.text.find(f.path + ":2:38-40: error: unit 'ms' does not fit 'hits', which is reported in M/s") !=
        std::string::npos);
  CHECK(r.text.find(f.path + ":3:38-41: error: 'expect hits' needs a number") != std::string::npos);
  CHECK(r.text.find(f.path + ":4:24-30: error: 'latency' is only measured when the bench reports it") !=
        std::string::npos);
}

TEST_CASE("expectations are judged on the summary mean, a missing metric fails", "[expect]") {
  Summary s;
  s.metrics.push_back(MetricSummary{});
  s.metrics.back().name = "hits";
  s.metrics.back().unit = "M/s";
  s.metrics.back().mean = 1.5;
  auto mk = [](std::string m, std::string op, double v) {
    PlanExpectation e;
    e.metric = m;
    e.op = op;
    e.value = v;
    e.unit = "M/s";
    e.text = m + " " + op + " " + std::to_string(v);
    return e;
  };
  auto res = evaluate_expectations(
      {mk("hits", ">", 0), mk("hits", "==", 1.5), mk("hits", "<", 1), mk("hits", "!=", 1.5), mk("drops", "==", 0)}, s);
  REQUIRE(res.size() == 5);
  CHECK(res[0].passed);
  CHECK(res[1].passed);
  CHECK_FALSE(res[2].passed);
  CHECK_FALSE(res[3].passed);
  CHECK_FALSE(res[4].passed);
  CHECK_FALSE(res[4].measured);
  CHECK_FALSE(all_passed(res));
  CHECK(all_passed({res[0], res[1]}));
  std::string text = format_failed_expectations("pt", res, [](const SourceRange &) { return "f.bdsl:1:2"; });
  CHECK(text == "pt: FAILED: expect hits < 1.000000 (hits = 1.500M/s) at f.bdsl:1:2\n"
                "pt: FAILED: expect hits != 1.500000 (hits = 1.500M/s) at f.bdsl:1:2\n"
                "pt: FAILED: expect drops == 0.000000 (drops was not measured) at f.bdsl:1:2\n");
  auto j = expectations_to_json(res);
  REQUIRE(j.size() == 5);
  CHECK(j[2]["passed"] == false);
  CHECK(j[2]["actual"] == 1.5);
  CHECK(j[2]["expect"] == "hits < 1.000000");
}

// The outcome (exit 1, the tally, each expectation's result): test_session_run.cpp; here,
// how `run` prints it.
TEST_CASE("a failed expect prints the point FAILED at the expect's line and the run exits 1",
          "[expect][runtime][cli]") {
  BB_REQUIRE_ROOT();
  ExpectBdsl f("bench trigger as \"ok\" < prog base; warmup 0s; duration 1s; expect hits > 0; >\n"
               "bench trigger as \"never\" < prog base; warmup 0s; duration 1s;\n"
               "  expect hits == 0;\n"
               "  expect hits > 0; >\n");
  auto r = bpfbench::test::run_process({BPFBENCH_BINARY, "run", "-q", f.path}, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("never: FAILED: expect hits == 0 (hits = ") != std::string::npos);
  CHECK(r.out.find("M/s) at " + f.path + ":3:3\n") != std::string::npos);
  CHECK(r.out.find("ok: FAILED") == std::string::npos);
  CHECK(r.out.find("never: FAILED: expect hits > 0") == std::string::npos);  // that one held
  CHECK(r.err.find("1 point FAILED an expectation") != std::string::npos);
}
