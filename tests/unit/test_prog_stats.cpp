// BPF run-time stats and verifier/JIT facts: the verifier stats line, the prog_*
// metrics from synthetic samples, JSON fields, compare flagging changed facts (the
// kernel side is in test_runtime_prog_stats.cpp).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <optional>

#include "results/compare.hpp"
#include "results/prog_info.hpp"
#include "results/results.hpp"
#include "result_support.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

// One point's JSON with a measured program whose facts are `insns`, `jited` and `offset`.
nlohmann::json point_with_facts(uint32_t insns, uint32_t jited, std::optional<uint32_t> offset = std::nullopt) {
  PlanPoint p;
  p.label = "tp";
  p.family = "trigger";
  p.program = "tp";
  p.report = {"hits"};
  PointResult r;
  r.report = {"hits"};
  for (int i = 0; i < 3; ++i) {
    Sample s;
    s.duration_s = 1.0;
    s.deltas = {{"hits", uint64_t(1'000'000 + i * 1000)}};
    r.samples.push_back(s);
  }
  MetricSpec hits;
  hits.name = "hits";
  hits.source.kind = MetricSourceKind::Counter;
  hits.source.operand = "bb_hits";
  r.summary = summarize(r.samples, {hits}, 1, r.report);
  ProgFacts f;
  f.name = "bench_trigger_tp";
  f.verified_insns = insns;
  f.jited_len = jited;
  f.xlated_len = 100;
  f.jit_offset64 = offset;
  r.prog_facts.push_back(f);
  return point_result_to_json(p, r, "sha", 3.0, 1'000'000'000);
}

ResultSet stats_set_of(const nlohmann::json &point) {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  doc.points.push_back(point);
  auto rs = results_from_json(nlohmann::json::parse(doc.to_json().dump()));
  INFO(test::error_text(rs));
  REQUIRE(rs);
  return *rs;
}

}  // namespace

TEST_CASE("verifier stats line: peak states and verification time", "[prog_stats]") {
  ProgFacts f;
  // As kernel 6.18 prints it at log level 4: the time first.
  const std::string log = "verification time 41 usec\nstack depth 0\nprocessed 27 insns (limit 1000000) "
                          "max_states_per_insn 0 total_states 2 peak_states 2 mark_read 1\n";
  REQUIRE(parse_verifier_stats(log, f));
  CHECK(f.peak_states == 2);
  CHECK(f.total_states == 2);
  CHECK(f.verification_time_us == 41);
  ProgFacts none;
  CHECK_FALSE(parse_verifier_stats("", none));
  CHECK_FALSE(none.peak_states);
}

TEST_CASE("prog_ns and prog_time_share from the interval counts", "[prog_stats]") {
  std::vector<Sample> samples;
  for (int i = 0; i < 4; ++i) {
    Sample s;
    s.duration_s = 1.0;
    // 2M runs of 50 ns: 0.1 s of each second inside the program.
    s.deltas = {{kProgRunsKey, 2'000'000}, {kProgRunNsKey, 100'000'000}, {kProgWallNsKey, 1'000'000'000}};
    samples.push_back(s);
  }
  Summary sum = summarize(samples, with_prog_stat_metrics({}, true), 1, {"hits"});
  REQUIRE(sum.find("prog_ns"));
  CHECK(sum.find("prog_runs")->mean == Approx(2.0));
  CHECK(sum.find("prog_ns")->mean == Approx(50.0));
  CHECK(sum.find("prog_ns")->unit == "ns/run");
  CHECK_FALSE(sum.find("prog_ns")->higher_is_better);
  CHECK(sum.find("prog_time_share")->mean == Approx(0.1));
  CHECK(sum.find("total_ops")->mean == 0);  // the program's runs are not operations
  CHECK_FALSE(summarize(samples, with_prog_stat_metrics({}, false), 1, {"hits"}).find("prog_ns"));
}

TEST_CASE("run JSON holds prog_stats and prog_facts", "[prog_stats]") {
  nlohmann::json j = point_with_facts(27, 96);
  REQUIRE(j.contains("prog_stats"));
  for (const char *k : {"enabled", "sysctl_was_enabled", "note", "programs"}) CHECK(j["prog_stats"].contains(k));
  REQUIRE(j["prog_facts"].size() == 1);
  for (const char *k : {"name", "id", "verified_insns", "xlated_len", "jited_len", "jit_offset64", "peak_states",
                        "total_states", "verification_time_us"})
    CHECK(j["prog_facts"][0].contains(k));
  CHECK(j["prog_facts"][0]["peak_states"].is_null());  // not captured: null, never a made-up 0
  CHECK(j["prog_facts"][0]["jit_offset64"].is_null());
  CHECK(point_with_facts(27, 96, 44)["prog_facts"][0]["jit_offset64"] == 44);
}

TEST_CASE("the JIT offset mod 64 is read back, compared and shown, and out of range is a bad file",
          "[prog_stats][compare]") {
  ResultSet a = stats_set_of(point_with_facts(27, 96, 8));
  REQUIRE(a.points.at(0).prog_facts.at(0).jit_offset64 == 8u);
  CHECK_FALSE(stats_set_of(point_with_facts(27, 96)).points.at(0).prog_facts.at(0).jit_offset64);
  CompareReport moved = compare_results(a, stats_set_of(point_with_facts(27, 96, 24)), CompareOptions{});
  REQUIRE(moved.points.size() == 1);
  CHECK(moved.points[0].facts_changed ==
        std::vector<std::string>{"bench_trigger_tp: JITed code starts at 8 -> 24 mod 64 (a small loop's time can "
                                 "move with it)"});
  // Unknown on one side (an older file, or addresses hidden): nothing to say.
  CHECK(compare_results(a, stats_set_of(point_with_facts(27, 96)), CompareOptions{}).points[0].facts_changed.empty());
  ProgFacts f;
  f.name = "bench_tp";
  f.jit_offset64 = 12;
  CHECK(format_prog_facts(f).find(" bytes JITed at 12 mod 64") != std::string::npos);

  nlohmann::json bad = point_with_facts(27, 96, 8);
  bad["prog_facts"][0]["jit_offset64"] = 64;
  ResultsDoc doc;
  doc.file = "x.bdsl";
  doc.points.push_back(bad);
  std::string err = test::expect_error(results_from_json(nlohmann::json::parse(doc.to_json().dump())));
  CHECK(err.find("jit_offset64") != std::string::npos);
}

TEST_CASE("compare flags a changed verified insn count or JITed size", "[prog_stats][compare]") {
  ResultSet a = stats_set_of(point_with_facts(27, 96));
  REQUIRE(a.points.at(0).prog_facts.size() == 1);
  CompareReport same = compare_results(a, stats_set_of(point_with_facts(27, 96)), CompareOptions{});
  REQUIRE(same.points.size() == 1);
  CHECK(same.points[0].facts_changed.empty());
  CompareReport c = compare_results(a, stats_set_of(point_with_facts(31, 112)), CompareOptions{});
  REQUIRE(c.points.size() == 1);
  CHECK(c.points[0].facts_changed == std::vector<std::string>{"bench_trigger_tp: verified insns 27 -> 31",
                                                              "bench_trigger_tp: JITed size 96 -> 112 bytes"});
  CHECK(compare_to_text(c).find("verified insns 27 -> 31") != std::string::npos);
  CHECK(compare_to_json(c)["points"][0]["facts_changed"].size() == 2);
}
