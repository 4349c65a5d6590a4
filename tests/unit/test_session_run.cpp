// `run`'s session in-process (root + BPF): rounds round-robin and until a precision target,
// skipped points, `expect` and the exit code, the calibration at start and end, and what
// the results file holds; told through a RunListener that records it (the CLI's printing
// of the same is tested end to end in test_cli_run.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "results/compare.hpp"
#include "results/report_text.hpp"
#include "results/expectations.hpp"
#include "results/results.hpp"
#include "session/exit_codes.hpp"
#include "session/run_session.hpp"
#include "session_support.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"
#include "result_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using bpfbench::test::Loaded;
using bpfbench::test::RunRecorder;
using bpfbench::test::TempDir;

namespace {

nlohmann::json read_results_json(const std::string &path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Runs `l`'s plan as `run` does after verifying it; the outcome.
RunOutcome run_session(Loaded &l, const RunArgs &a, RunRecorder &rec, int64_t calibration_ns = 0) {
  StopSource stop;
  RunSession s(a, l.fe, std::move(l.programs), stop, rec, RunObservers{}, calibration_ns);
  s.measure();
  s.finish_unfinished();
  return s.conclude();
}

}  // namespace

TEST_CASE("run session: every point runs N rounds round-robin, final after its last, the rounds in the results file",
          "[runtime][session][rounds]") {
  BB_REQUIRE_ROOT();
  PlanOverrides o;
  o.rounds = 3;
  o.interval_ns = 250'000'000;
  Loaded l("suite \"S\" < bench trigger as \"{prog}\" < prog [base, rawtp]; warmup 0s; duration 1s > >\n", o);
  TempDir d;
  RunArgs a;
  a.json_out = (d.path / "r.json").string();
  RunRecorder rec;
  RunOutcome out = run_session(l, a, rec);
  INFO(fmt::format("{}", fmt::join(rec.events, "\n")));
  CHECK(out.end == RunEnd::Ok);
  CHECK(out.exit_code == kExitOk);
  CHECK(out.tally.ran == 2);
  CHECK(rec.of("setup") == std::vector<std::string>{"base 1", "rawtp 1", "base 2", "rawtp 2", "base 3", "rawtp 3"});
  CHECK(rec.of("round") == rec.of("setup"));  // each round told before the rounds are combined
  // Final only after the third round, once, then the end of the points.
  CHECK(rec.events.back() == "done");
  CHECK(rec.of("final") == std::vector<std::string>{"base", "rawtp"});
  CHECK(std::find(rec.events.begin(), rec.events.end(), "final base") >
        std::find(rec.events.begin(), rec.events.end(), "setup base 3"));
  CHECK(rec.started_count["rawtp"] == 3);
  CHECK(rec.samples["rawtp"] == 12);  // 3 rounds x 1 s / 250 ms
  const PointResult &rawtp = rec.finals["rawtp"];
  CHECK(rawtp.status == PointResult::Status::Ok);
  CHECK(std::regex_search(
      format_summary(rawtp),
      std::regex(R"(Summary: hits +\d+\.\d{3} .*\[3 rounds, 12 samples, hits CI ±\d+\.\d{2}% over rounds\])")));

  auto j = read_results_json(a.json_out);
  // The machine's knobs at the start of the run, without doctor's timed probes.
  CHECK(j["doctor"]["schema"] == "bpfbench-doctor/1");
  CHECK(j["doctor"]["sampled"] == false);
  CHECK(j["doctor"]["findings"].size() >= 9);
  CHECK(j["complete"] == true);
  REQUIRE(j["points"].size() == 2);
  for (const auto &p : j["points"]) {
    CHECK(p["rounds"] == 3);
    REQUIRE(p["samples"].size() == 12);
    for (size_t i = 0; i < 12; ++i) CHECK(p["samples"][i]["round"] == i / 4);
    auto means = p["stats"]["hits"]["round_means"].get<std::vector<double>>();
    REQUIRE(means.size() == 3);
    CHECK(means[0] > 0);
    CHECK(p["stats"]["hits"]["mean"].get<double>() == Approx((means[0] + means[1] + means[2]) / 3));
  }
}

TEST_CASE("run session: rounds with a precision target are min-duration slices until the CI over rounds is met",
          "[runtime][session][rounds]") {
  BB_REQUIRE_ROOT();
  PlanOverrides o;
  o.min_duration_ns = 500'000'000;
  Loaded l("bench trigger as \"base\" < prog base; warmup 0s; until ci < 50%; rounds 2; >\n", o);
  TempDir d;
  RunArgs a;
  a.quiet = true;
  a.json_out = (d.path / "r.json").string();
  RunRecorder rec;
  RunOutcome out = run_session(l, a, rec);
  CHECK(out.exit_code == kExitOk);
  const int rounds = int(rec.of("setup").size());
  CHECK(rounds >= 2);
  CHECK(rec.of("final") == std::vector<std::string>{"base"});
  auto j = read_results_json(a.json_out);
  REQUIRE(j["points"].size() == 1);
  const auto &p = j["points"][0];
  CHECK(p["rounds"].get<int>() == rounds);
  // Each round is a fixed slice: 500 ms of 250 ms samples.
  CHECK(p["samples"].size() == size_t(2 * rounds));
  CHECK(p["adaptive"]["ci_target_pct"] == 50);
  CHECK(p["adaptive"]["reached"] == true);
  CHECK(p["stats"]["hits"]["ci95_rel"].get<double>() <= 0.5);
  CHECK(std::regex_search(format_summary(rec.finals["base"]),
                          std::regex(R"(\[\d+ rounds, \d+ samples, hits CI ±\d+\.\d{2}% over rounds: reached 50%\])")));
}

TEST_CASE("run session: a variant the kernel lacks is skipped with its reason, counted, and the rest runs",
          "[runtime][session]") {
  BB_REQUIRE_ROOT();
  Loaded l("bench trigger as \"{prog}\" < prog [fentry, base]; warmup 0s; duration 1s >\n");
  RunArgs a;
  a.quiet = true;
  RunRecorder rec;
  RunOutcome out = run_session(l, a, rec);
  CHECK(out.exit_code == kExitOk);
  CHECK(rec.finals["base"].status == PointResult::Status::Ok);
  // fentry works on some kernels: then it must have run instead.
  const PointResult &f = rec.finals["fentry"];
  INFO(f.reason);
  if (f.status == PointResult::Status::Skipped) {
    CHECK(f.reason.rfind("fentry not supported by this kernel (", 0) == 0);
    CHECK(out.tally.skipped == 1);
    CHECK(out.tally.ran == 1);
    CHECK(rec.started_count.count("fentry") == 0);  // never loaded and attached
  } else {
    CHECK(f.status == PointResult::Status::Ok);
    CHECK(out.tally.ran == 2);
  }
}

TEST_CASE("run session: a failed expect is the point's, the run ends Unmet with exit 1", "[runtime][session][expect]") {
  BB_REQUIRE_ROOT();
  Loaded l("bench trigger as \"ok\" < prog base; warmup 0s; duration 1s; expect hits > 0; >\n"
           "bench trigger as \"never\" < prog base; warmup 0s; duration 1s;\n"
           "  expect hits == 0;\n"
           "  expect hits > 0; >\n");
  RunArgs a;
  a.quiet = true;
  RunRecorder rec;
  RunOutcome out = run_session(l, a, rec);
  CHECK(out.end == RunEnd::Unmet);
  CHECK(out.exit_code == kExitPartial);
  CHECK(out.tally.unmet == 1);
  CHECK(out.tally.ran == 2);
  CHECK(all_passed(rec.finals["ok"].expectations));
  const auto &never = rec.finals["never"].expectations;
  REQUIRE(never.size() == 2);
  CHECK_FALSE(never[0].passed);  // hits == 0
  CHECK(never[1].passed);        // hits > 0
  CHECK(never[0].expect.range.line == 3);

  Loaded good("bench trigger < prog base; warmup 0s; duration 1s; expect hits > 0; expect hits < 1G; >\n");
  RunRecorder rec2;
  CHECK(run_session(good, a, rec2).end == RunEnd::Ok);
}

TEST_CASE("run session: a 1 s calibration at start and end, noise per point, compare reads both back",
          "[runtime][session][drift]") {
  BB_REQUIRE_ROOT();
  Loaded l("bench trigger as \"t\" < prog base; warmup 0s; duration 1s; >\n");
  TempDir d;
  RunArgs a;
  a.quiet = true;
  a.json_out = (d.path / "r.json").string();
  RunRecorder rec;
  RunOutcome out = run_session(l, a, rec, 1'000'000'000);
  INFO(fmt::format("{}", fmt::join(rec.errors, "\n")));
  REQUIRE(out.exit_code == kExitOk);
  CHECK(rec.events.front() == "calibration start");
  REQUIRE(rec.events.size() >= 4);
  CHECK(rec.events[rec.events.size() - 2] == "calibration end");  // after the points, before the end
  CHECK(rec.events.back() == "done");
  auto j = read_results_json(a.json_out);
  const auto &cal = j.at("calibration");
  CHECK(cal["duration_s"] == 1.0);
  REQUIRE(cal["points"].size() == 2);
  CHECK(cal["points"][0]["when"] == "start");
  CHECK(cal["points"][1]["when"] == "end");
  for (const auto &p : cal["points"]) {
    CHECK(p["metric"] == "hits");
    CHECK(p["mean"].get<double>() > 0);
    CHECK(p["n"] == 10);  // 10 intervals of 100 ms
    CHECK(p["noise"]["wall_s"].get<double>() >= 1.0);
    CHECK(p["noise"]["other_cpu_pct"].is_number());  // /proc/stat is readable here
    CHECK(p["noise"]["load1"].is_number());
  }
  const auto &noise = j["points"].at(0).at("noise");
  CHECK(noise["wall_s"].get<double>() >= 1.0);
  CHECK(noise["other_cpu_pct"].get<double>() >= 0);
  CHECK(noise["other_cpu_pct"].get<double>() <= 100);
  // compare reads it back: the same file against itself has calibration ratio 1.
  auto rs = load_results(a.json_out);
  INFO(test::error_text(rs));
  REQUIRE(rs);
  REQUIRE(rs->calibration);
  CompareReport c = compare_results(*rs, *rs, CompareOptions{});
  CHECK(c.drift.known);
  CHECK(c.drift.ratio == Approx(1.0));
  CHECK(compare_to_text(c).find("calibration B/A 1.0000") != std::string::npos);
}
