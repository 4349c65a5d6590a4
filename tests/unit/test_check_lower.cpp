// Semantics of check + lower: sweep order, zips, defaults, overrides, labels, units.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "compiler/pipeline.hpp"

using namespace bpfbench;

namespace {

struct TempFile {
  std::string path;
  explicit TempFile(const std::string &text) {
    char tmpl[] = "/tmp/bpfbench-test-XXXXXX.bdsl";
    int fd = mkstemps(tmpl, 5);
    REQUIRE(fd >= 0);
    close(fd);
    path = tmpl;
    std::ofstream(path) << text;
  }
  ~TempFile() { unlink(path.c_str()); }
};

const RunPlan &plan_of(Frontend &fe, const std::string &text, PlanOverrides o = {}) {
  static thread_local std::unique_ptr<TempFile> keep;
  keep = std::make_unique<TempFile>(text);
  FrontendOptions opts;
  opts.nproc = 4;
  opts.overrides = o;
  bool ok = run_frontend(keep->path, opts, fe);
  INFO(render_all(fe.diags, fe.sources));
  REQUIRE(ok);
  return *fe.plan;
}

int64_t param(const PlanPoint &p, const std::string &n) {
  const ParamValue *v = p.param(n);
  REQUIRE(v);
  return v->i;
}

}  // namespace

TEST_CASE("several sweeps form a product, the first one outermost", "[check]") {
  Frontend fe;
  auto &plan = plan_of(fe, "bench ringbuf < sweep batch [1, 2]; sweep sample_rate [10, 20, 30] >");
  REQUIRE(plan.points.size() == 6);
  CHECK(param(plan.points[0], "batch") == 1);
  CHECK(param(plan.points[0], "sample_rate") == 10);
  CHECK(param(plan.points[2], "sample_rate") == 30);
  CHECK(param(plan.points[3], "batch") == 2);
  CHECK(param(plan.points[3], "sample_rate") == 10);
  CHECK(plan.points[4].label == "ringbuf-2-20");
  for (size_t i = 0; i < plan.points.size(); ++i) CHECK(plan.points[i].index == i);
}

TEST_CASE("a zipped sweep feeds one value to several params", "[check]") {
  Frontend fe;
  auto &plan = plan_of(
      fe, "let r = [1, 5, 10];\nbench ringbuf as \"b{batch}-s{sample_rate}\" < sweep (batch, sample_rate) over r >");
  REQUIRE(plan.points.size() == 3);
  CHECK(plan.points[1].label == "b5-s5");
  CHECK(param(plan.points[2], "batch") == 10);
  CHECK(param(plan.points[2], "sample_rate") == 10);
}

TEST_CASE("a list-valued setting is a sweep, prog can be swept", "[check]") {
  Frontend fe;
  auto &plan = plan_of(fe, "bench ringbuf as \"{prog}\" < prog [reserve_commit, output] >");
  REQUIRE(plan.points.size() == 2);
  CHECK(plan.points[0].program == "reserve_commit");
  CHECK(plan.points[1].program == "output");
  CHECK(plan.points[1].label == "output");
}

TEST_CASE("defaults apply to later benches, a bench overrides them, the CLI overrides both", "[check]") {
  Frontend fe;
  PlanOverrides o;
  o.producers = 3;
  auto &plan = plan_of(fe,
                       "defaults < warmup 2s; duration 7s; batch 9; >\n"
                       "bench ringbuf as \"a\" < duration 3s >\nbench ringbuf as \"b\" < >",
                       o);
  REQUIRE(plan.points.size() == 2);
  CHECK(plan.points[0].warmup_ns == 2'000'000'000);
  CHECK(plan.points[0].duration_ns == 3'000'000'000);
  CHECK(plan.points[1].duration_ns == 7'000'000'000);
  CHECK(param(plan.points[1], "batch") == 9);
  CHECK(plan.points[0].producers == 3);
}

TEST_CASE("units scale by the parameter's type", "[check]") {
  Frontend fe;
  auto &plan = plan_of(fe, "bench ringbuf < ring_size 1M; batch 1K; warmup 250ms; duration 3s >");
  const PlanPoint &p = plan.points.at(0);
  CHECK(param(p, "ring_size") == 1 << 20);
  CHECK(param(p, "batch") == 1000);
  CHECK(p.warmup_ns == 250'000'000);
  CHECK(p.duration_ns == 3'000'000'000);
}

TEST_CASE("geometric, log and step ranges expand as documented", "[check]") {
  Frontend fe;
  auto &plan = plan_of(fe, "bench ringbuf as \"g{batch}\" < batch [1..64 *4] >\n"
                           "bench ringbuf as \"l{batch}\" < batch [1..1000 log 4] >\n"
                           "bench ringbuf as \"s{batch}\" < batch [10..35 step 10] >\n"
                           "bench ringbuf as \"p{producers}\" < producers [1..nproc] >");
  std::vector<std::string> labels;
  for (const auto &p : plan.points) labels.push_back(p.label);
  CHECK(labels == std::vector<std::string>{"g1", "g4", "g16", "g64", "l1", "l10", "l100", "l1000", "s10", "s20", "s30",
                                           "p1", "p2", "p3", "p4"});
}

TEST_CASE("defaults are the manifest's, a point records where each value was written", "[check]") {
  Frontend fe;
  auto &plan = plan_of(fe, "bench ringbuf <\n  batch 7 >");
  const PlanPoint &p = plan.points.at(0);
  CHECK(param(p, "sample_rate") == 500);
  CHECK(p.program == "reserve_commit");
  CHECK(p.report == std::vector<std::string>{"hits", "drops"});
  for (size_t i = 0; i < p.params.size(); ++i) {
    if (p.params[i].first == "batch") {
      CHECK(p.param_ranges[i].line == 2);
      CHECK(p.param_ranges[i].col == 9);
    } else {
      CHECK_FALSE(p.param_ranges[i].valid());
    }
  }
}

TEST_CASE("suite titles reach every point of the suite", "[check]") {
  Frontend fe;
  auto &plan = plan_of(fe, "suite \"S\" < bench ringbuf as \"x\" < > >\nbench ringbuf as \"y\" < >");
  CHECK(plan.points.at(0).suite == "S");
  CHECK(plan.points.at(1).suite.empty());
}

TEST_CASE("a range step takes the bounds' unit", "[check]") {
  Frontend fe;
  auto &plan = plan_of(fe, "bench ringbuf as \"w{warmup}\" < warmup [0ms..1s step 500ms] >");
  REQUIRE(plan.points.size() == 3);
  CHECK(plan.points[1].warmup_ns == 500'000'000);
  CHECK(plan.points[2].warmup_ns == 1'000'000'000);
}

TEST_CASE("adaptive points sample every 250ms unless --interval says otherwise", "[check][adaptive]") {
  const std::string text =
      "bench ringbuf as \"fixed\" < duration 3s >\nbench ringbuf as \"adaptive\" < until ci < 2% >";
  {
    Frontend fe;
    auto &plan = plan_of(fe, text);
    REQUIRE(plan.points.size() == 2);
    CHECK(plan.points[0].precision_pct == 0);
    CHECK(plan.points[0].interval_ns == 1'000'000'000);
    CHECK(plan.points[1].precision_pct == 2);
    CHECK(plan.points[1].interval_ns == kAdaptiveIntervalNs);
    CHECK(plan.points[1].min_duration_ns == 1'500'000'000);
  }
  {
    Frontend fe;
    PlanOverrides o;
    o.precision_pct = 0.5;  // --precision makes both adaptive
    auto &plan = plan_of(fe, text, o);
    CHECK(plan.points[0].precision_pct == 0.5);
    CHECK(plan.points[0].interval_ns == kAdaptiveIntervalNs);
  }
  {
    Frontend fe;
    PlanOverrides o;
    o.interval_ns = 500'000'000;  // --interval wins for fixed and adaptive points
    auto &plan = plan_of(fe, text, o);
    CHECK(plan.points[0].interval_ns == 500'000'000);
    CHECK(plan.points[1].interval_ns == 500'000'000);
  }
}

TEST_CASE("until takes a decimal percentage", "[check][adaptive]") {
  Frontend fe;
  auto &plan = plan_of(fe, "bench ringbuf as \"a\" < until ci < 0.5% >\n"
                           "bench ringbuf as \"b\" < until ci <= 2.25% >\n"
                           "bench ringbuf as \"c\" < until ci < 0.01% >");
  REQUIRE(plan.points.size() == 3);
  CHECK(plan.points[0].precision_pct == Approx(0.5));
  CHECK(plan.points[1].precision_pct == Approx(2.25));
  CHECK(plan.points[2].precision_pct == Approx(0.01));
}

TEST_CASE("rounds is a setting of every bench and run --rounds overrides it", "[check][rounds]") {
  const std::string text = "bench ringbuf as \"one\" < >\nbench ringbuf as \"r{rounds}\" < rounds 3 >";
  {
    Frontend fe;
    auto &plan = plan_of(fe, text);
    REQUIRE(plan.points.size() == 2);
    CHECK(plan.points[0].rounds == 1);
    CHECK(plan.points[1].rounds == 3);
    CHECK(plan.points[1].label == "r3");
  }
  {
    Frontend fe;
    PlanOverrides o;
    o.rounds = 5;
    auto &plan = plan_of(fe, text, o);
    CHECK(plan.points[0].rounds == 5);
    CHECK(plan.points[1].rounds == 5);
  }
}
