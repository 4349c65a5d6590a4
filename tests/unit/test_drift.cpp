// The drift guard of `compare` (results/drift.hpp) on synthetic result pairs, the noise
// facts arithmetic on synthetic /proc text (runtime/noise_facts.hpp), and the reader's
// checks of the new fields (results/results_read.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "metric_support.hpp"
#include "results/compare.hpp"
#include "results/results.hpp"
#include "runtime/noise_facts.hpp"
#include "result_support.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

// `n` one-second samples of hits around `mean` M/s, relative noise `rel_sd`.
PointResult synthetic(double mean, double rel_sd, unsigned seed) { return test::synthetic_hits(mean, rel_sd, seed); }

struct Side {
  double calibration = 0;  // the base loop's M/s at start and end; 0 = no calibration
  double point_mean = 0;
  double other_cpu_pct = 1;
  double calibration_end = 0;  // the end point's M/s when it differs from the start's
  double point_rel_sd = 0.002;  // the point's samples' relative noise
};

// A results file of one point "fentry" (suite "S") with a calibration, through JSON text.
ResultSet result_set(const Side &s, unsigned seed) {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  PlanPoint p;
  p.suite = "S";
  p.family = "trigger";
  p.program = "fentry";
  p.label = "fentry";
  p.report = {"hits"};
  nlohmann::json j = point_result_to_json(p, synthetic(s.point_mean, s.point_rel_sd, seed), "sha", 11.0, 1'000'000'000);
  NoiseFacts n;
  n.wall_s = 11;
  n.load1 = 0.5;
  n.other_cpu_pct = s.other_cpu_pct;
  n.steal_pct = 0;
  j["noise"] = noise_to_json(n);
  doc.points.push_back(j);
  if (s.calibration > 0) {
    Calibration c;
    c.duration_s = 1;
    for (const char *when : {"start", "end"}) {
      double v = std::string(when) == "end" && s.calibration_end > 0 ? s.calibration_end : s.calibration;
      c.points.push_back({when, "hits", "M/s", v, v * 0.002, 10, n});
    }
    doc.calibration = c;
  }
  auto rs = results_from_text(doc.to_json().dump(), "x.json");
  INFO(test::error_text(rs));
  REQUIRE(rs);
  return *rs;
}

}  // namespace

TEST_CASE("drift: calibration 20% apart refuses a verdict, names the point", "[drift][compare]") {
  // B's machine is 20% faster: its calibration and its point both read 20% higher.
  ResultSet a = result_set({10.0, 4.0}, 1), b = result_set({12.0, 4.8}, 2);
  CompareReport c = compare_results(a, b, CompareOptions{});
  REQUIRE(c.drift.known);
  CHECK(c.drift.ratio == Approx(1.2).epsilon(1e-9));
  CHECK(c.drift.drifted);
  REQUIRE(c.points.size() == 1);
  CHECK(c.points[0].verdict == Verdict::Drift);  // not "faster", though B reads 20% higher
  std::string text = compare_to_text(c);
  INFO(text);
  CHECK(text.find("calibration B/A 1.2000") != std::string::npos);
  CHECK(text.find("fentry") != std::string::npos);
  CHECK(text.find("drift: the calibration moved +20.00%") != std::string::npos);
  CHECK(text.find("faster") == std::string::npos);
  CHECK(compare_to_json(c)["points"][0]["verdict"] == "drift");
  CHECK(c.geomeans.at(0).not_judged == 1);
  CHECK(c.worst_regression_pct() == 0);

  // --normalize divides B by 1.2: then B's point is A's again.
  CompareOptions o;
  o.normalize = true;
  CompareReport n = compare_results(a, b, o);
  REQUIRE(n.points.size() == 1);
  CHECK(n.normalized);
  CHECK(n.points[0].mean_b == Approx(b.points[0].metric("hits")->mean / 1.2));
  CHECK(n.points[0].mean_b == Approx(a.points[0].metric("hits")->mean).epsilon(0.01));
  CHECK(n.points[0].verdict != Verdict::Drift);
  CHECK(compare_to_text(n).find("normalized: B × 0.8333") != std::string::npos);
}

TEST_CASE("drift: same calibration judges, busy CPUs make a point noisy", "[drift][compare]") {
  ResultSet a = result_set({10.0, 4.0}, 1), b = result_set({10.0, 4.8}, 2);
  CompareReport c = compare_results(a, b, CompareOptions{});
  CHECK_FALSE(c.drift.drifted);
  CHECK(c.points.at(0).verdict == Verdict::Faster);

  ResultSet busy = result_set({10.0, 4.8, 23.5}, 3);
  CompareReport d = compare_results(a, busy, CompareOptions{});
  CHECK(d.points.at(0).verdict == Verdict::Noisy);
  CHECK(compare_to_text(d).find("other processes took 23.5% of the CPUs during B") != std::string::npos);

  // Without a calibration on one side: judged as before, and the report says why.
  CompareReport e = compare_results(a, result_set({0, 4.8}, 4), CompareOptions{});
  CHECK(e.points.at(0).verdict == Verdict::Faster);
  CHECK(compare_to_text(e).find("calibration only in A") != std::string::npos);
}

TEST_CASE("noise facts: shares from synthetic /proc/stat text", "[drift][noise]") {
  NoiseSnapshot a, b;
  a.t_s = 100;
  b.t_s = 102;
  // user nice system idle iowait irq softirq steal: 2 CPUs, 2 s = 400 ticks in all.
  a.proc_stat = "cpu  1000 0 500 8000 0 0 0 100 0 0\ncpu0 500 0 250 4000 0 0 0 50 0 0\ncpu1 500 0 250 4000 0 0 0 50\n";
  b.proc_stat = "cpu  1150 0 550 8180 0 0 0 120 0 0\ncpu0 x\ncpu1 x\n";
  // Our process: utime + stime (fields 14, 15) grew by 100 ticks; its comm has a ") (".
  a.self_stat = "42 (bpf bench) (x) R 1 42 42 0 -1 4194560 0 0 0 0 300 200 0 0 20 0 3 0\n";
  b.self_stat = "42 (bpf bench) (x) R 1 42 42 0 -1 4194560 0 0 0 0 370 230 0 0 20 0 3 0\n";
  b.loadavg = "1.25 0.80 0.50 2/300 4242\n";
  a.cur_freq_khz = {2000000, 3000000};
  b.cur_freq_khz = {2500000, 2500000};
  NoiseFacts n = noise_between(a, b);
  CHECK(n.wall_s == Approx(2));
  CHECK(n.load1 == Approx(1.25));
  // total 400 ticks: busy = 400 - idle 180 - steal 20 = 200; ours 100: others 100 = 25%.
  CHECK(n.other_cpu_pct == Approx(25));
  CHECK(n.steal_pct == Approx(5));
  CHECK(n.cpufreq_mhz == Approx(2500));

  auto cpu = parse_proc_stat_cpu(a.proc_stat);
  REQUIRE(cpu);
  CHECK(cpu->ncpus == 2);
  CHECK_FALSE(parse_stat_ticks("42 (x) R 1 2"));  // too short
  CHECK_FALSE(parse_load1("nope"));

  // Unreadable files leave the facts unknown, never 0.
  NoiseFacts none = noise_between(NoiseSnapshot{}, NoiseSnapshot{});
  CHECK(std::isnan(none.other_cpu_pct));
  CHECK(std::isnan(none.steal_pct));
  CHECK(std::isnan(none.cpufreq_mhz));
  CHECK(noise_to_json(none)["other_cpu_pct"].is_null());
}

TEST_CASE("drift: the reader checks calibration and noise fields", "[drift][results]") {
  ResultsDoc doc;
  Calibration c;
  c.duration_s = 1;
  c.points.push_back({"start", "hits", "M/s", 10, 0.1, 10, NoiseFacts{}});
  doc.calibration = c;
  nlohmann::json good = doc.to_json();
  struct Case {
    std::string pointer;
    nlohmann::json value;
    std::string message;
  };
  std::vector<Case> cases{
      {"/calibration/points/0/mean", -1, "calibration.points[0].mean: expected a number > 0"},
      {"/calibration/points/0/when", "middle", "calibration.points[0].when: expected \"start\" or \"end\""},
      {"/calibration/points/0/noise/other_cpu_pct", 150, "noise.other_cpu_pct: expected a number from 0 to 100"},
      {"/calibration/points/0/noise/load1", "high", "noise.load1: expected a number, got a string"},
      {"/calibration/points", nlohmann::json::object(), "calibration.points: expected an array"},
  };
  for (const auto &k : cases) {
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(k.pointer)] = k.value;
    INFO(k.pointer);
    std::string err = test::expect_error(results_from_text(j.dump(), "x.json"));
    CHECK(err.find(k.message) != std::string::npos);
  }
  auto rs = results_from_text(good.dump(), "x.json");
  INFO(test::error_text(rs));
  REQUIRE(rs);
  REQUIRE(rs->calibration);
  CHECK(rs->calibration->points.at(0).mean == 10);
  CHECK(std::isnan(rs->calibration->points.at(0).noise.steal_pct));  // null: not readable
}

// A real pair of runs here (2026-12-04, docs/ab.md): the machine was slow for part of run A,
// which ran its point at 1.02 M/s, then fast again (its calibration: +24.48 % from start to
// end); B ran fast throughout at 1.59. The calibrations' means differed by only 12 %, which
// the point's wide CI covered, so compare called B 54.7 % faster, where B does 2.7 % more
// work. A run whose own calibration moved like that is not judged at all.
TEST_CASE("drift: a run whose calibration moved from its start to its end judges no point", "[drift][compare]") {
  ResultSet a = result_set({0.7055, 1.024, 1, 0.8782, 0.25}, 1), b = result_set({0.9124, 1.585}, 2);
  CompareReport c = compare_results(a, b, CompareOptions{});
  REQUIRE(c.drift.known);
  REQUIRE(c.points.size() == 1);
  // The point's CI is wider than the calibrations' move: the between-runs rule alone judges it.
  CHECK((c.points[0].change_ci_high - c.points[0].change_ci_low) / 2 > c.drift.move_pct);
  CHECK(c.drift.unstable == "A's calibration moved +24.48% from the start of its run to the end: the machine changed "
                            "during that run");
  CHECK(c.points[0].verdict == Verdict::Drift);
  const std::string text = compare_to_text(c);
  INFO(text);
  CHECK(text.find("faster") == std::string::npos);
  CHECK(text.find("drift: A's calibration moved +24.48%") != std::string::npos);
  CHECK(compare_to_json(c)["calibration"]["unstable"].get<std::string>().rfind("A's calibration", 0) == 0);
  CompareOptions o;
  o.normalize = true;  // no factor can fix a run that changed speed inside itself
  CompareReport n = compare_results(a, b, o);
  CHECK_FALSE(n.normalized);
  CHECK(n.points.at(0).verdict == Verdict::Drift);
  // A 3 % move inside a run is under the 5 % threshold: judged as before.
  ResultSet steady = result_set({0.9, 1.024, 1, 0.927}, 3);
  CHECK(compare_results(steady, b, CompareOptions{}).drift.unstable.empty());
}
