// Points measured in rounds (`run --rounds`): combining runs, when to stop, JSON, compare.
#include <catch2/catch.hpp>

#include <cmath>

#include "results/compare.hpp"
#include "results/results.hpp"
#include "results/rounds.hpp"
#include "results/stat_math.hpp"
#include "metric_support.hpp"
#include "result_support.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

const std::vector<MetricSpec> kHits = {test::counter_metric("hits", "hits", "events")};

// A run of one-second samples of hits at the given rates (M/s).
PointResult run_of(const std::vector<double> &rates) {
  PointResult r;
  r.report = {"hits"};
  for (double x : rates) {
    Sample s;
    s.duration_s = 1.0;
    s.deltas["hits"] = static_cast<uint64_t>(std::llround(x * 1e6));
    r.samples.push_back(s);
  }
  r.warmup.push_back(r.samples.front());
  r.summary = summarize(r.samples, kHits, 1, r.report);
  return r;
}

PlanPoint rounds_point() {
  PlanPoint p;
  p.index = 2;
  p.label = "rb-1";
  p.suite = "s";
  p.family = "ringbuf";
  return p;
}

PointResult with_status(PointResult r, PointResult::Status st, const std::string &why = "") {
  r.status = st;
  r.reason = why;
  return r;
}

}  // namespace

TEST_CASE("rounds combine: mean and CI over round means, spread over intervals", "[rounds]") {
  // Each run is steady on its own (CI ~0), but the runs sit at 10, 11 and 12 M/s.
  std::vector<PointResult> runs = {run_of({10, 10, 10, 10}), run_of({11, 11, 11, 11}), run_of({12, 12, 12, 12})};
  runs[0].per_cpu = {PerCpuRate{0, 100, 1000, 0, {1e6, 2e6}, 900}, PerCpuRate{1, 50, 1000, 0}};
  runs[1].per_cpu = {PerCpuRate{0, 300, 1000, 0, {3e6}, 700}};
  PointResult c = combine_rounds(runs, kHits);
  CHECK(c.status == PointResult::Status::Ok);
  CHECK(c.round_sizes == std::vector<size_t>{4, 4, 4});
  CHECK(c.samples.size() == 12);
  CHECK(c.warmup.size() == 3);
  const MetricSummary *h = c.summary.find("hits");
  REQUIRE(h);
  CHECK(h->round_means == std::vector<double>{10, 11, 12});
  CHECK(h->mean == Approx(11));
  CHECK(h->per_prod == Approx(11));
  // The CI holds the run-to-run spread: t(0.975, 2) * sd(10, 11, 12) / sqrt(3).
  CHECK(h->ci95 == Approx(4.302653 * 1.0 / std::sqrt(3.0)).epsilon(1e-4));
  CHECK(runs[0].summary.find("hits")->ci95 == Approx(0).margin(1e-9));
  // Per interval: 12 values, their own standard deviation.
  CHECK(h->n == 12);
  CHECK(h->stddev == Approx(stddev_of(h->values)));
  REQUIRE(c.per_cpu.size() == 2);
  CHECK(c.per_cpu[0].ops == 400);
  CHECK(c.per_cpu[0].rate == Approx(400 * 1e9 / 2000));
  CHECK(c.per_cpu[1].ops == 50);
  // Each round's interval samples are samples of the whole.
  CHECK(c.per_cpu[0].sample_rates == std::vector<double>{1e6, 2e6, 3e6});
  CHECK(c.per_cpu[0].sample_ns == 1600);
}

TEST_CASE("per-CPU lines: the kernel bench's lookup line from interval samples", "[rounds][per_cpu]") {
  PerCpuSpec lookup{"ops", "ns",
                    "cpu{cpu02}: lookup {mean_m}M ± {spread_m}M events/sec (approximated from {samples} samples of "
                    "~{sample_ms}ms)",
                    false};
  // Rates 1, 3 and 5 M/s in three intervals of 1.5 s of BPF time together: mean 3, sd 2.
  std::vector<PerCpuRate> rates = {PerCpuRate{1, 9'000'000, 3'000'000'000, 3e6, {1e6, 3e6, 5e6}, 1'500'000'000}};
  CHECK(format_per_cpu(lookup, rates) ==
        "cpu01: lookup 3.000M ± 4.000M events/sec (approximated from 3 samples of ~500ms)\n");
  // One sample: no spread. No samples (a run without measured intervals): the overall rate.
  rates[0].sample_rates = {2e6};
  rates[0].sample_ns = 800'000'000;
  CHECK(format_per_cpu(lookup, rates) ==
        "cpu01: lookup 2.000M ± 0.000M events/sec (approximated from 1 samples of ~800ms)\n");
  rates[0].sample_rates.clear();
  rates[0].sample_ns = 0;
  CHECK(format_per_cpu(lookup, rates) ==
        "cpu01: lookup 3.000M ± 0.000M events/sec (approximated from 0 samples of ~0ms)\n");
  // The full-update line keeps its integer rate and total line.
  PerCpuSpec full{"ops", "ns", "{cpu}:hash_map_full_perf {rate} events per sec"};
  std::vector<PerCpuRate> two = {PerCpuRate{0, 10, 10, 1e9}, PerCpuRate{1, 5, 10, 5e8}};
  CHECK(format_per_cpu(full, two) ==
        "0:hash_map_full_perf 1000000000 events per sec\n1:hash_map_full_perf 500000000 events per sec\n"
        "total:hash_map_full_perf 1500000000 events per sec\n");
}

TEST_CASE("rounds combine: a failed or skipped round decides, an interrupted one is left out", "[rounds]") {
  using S = PointResult::Status;
  PointResult ok1 = run_of({5, 5}), ok2 = run_of({6, 6});
  PointResult failed = with_status(PointResult{}, S::Failed, "attach failed");
  PointResult skipped = with_status(PointResult{}, S::Skipped, "fentry not supported");
  PointResult cut = with_status(run_of({1}), S::Interrupted);

  PointResult f = combine_rounds({ok1, failed}, kHits);
  CHECK(f.status == S::Failed);
  CHECK(f.reason == "attach failed");
  CHECK(combine_rounds({skipped}, kHits).status == S::Skipped);

  PointResult i = combine_rounds({ok1, ok2, cut}, kHits);
  CHECK(i.status == S::Interrupted);
  CHECK(i.round_sizes == std::vector<size_t>{2, 2});
  CHECK(i.summary.find("hits")->mean == Approx(5.5));
  PointResult only_cut = combine_rounds({cut}, kHits);
  CHECK(only_cut.status == S::Interrupted);
  CHECK(only_cut.round_sizes.empty());
}

TEST_CASE("rounds: fixed count, or more until the CI over rounds meets the target", "[rounds]") {
  PointResult r = combine_rounds({run_of({10}), run_of({10.5})}, kHits);
  CHECK(needs_another_round(r, 2, RoundsRule{0, 3, 3}));
  r = combine_rounds({run_of({10}), run_of({10.5}), run_of({10.2})}, kHits);
  CHECK_FALSE(needs_another_round(r, 3, RoundsRule{0, 3, 3}));

  // Adaptive: 3 rounds at 10, 10.5, 10.2 give a CI of ~6%: not 1%, so on, up to the max.
  CHECK(needs_another_round(r, 3, RoundsRule{1, 3, 20}));
  CHECK_FALSE(r.precision_reached);
  CHECK(r.precision_pct == 1);
  CHECK_FALSE(needs_another_round(r, 20, RoundsRule{1, 3, 20}));
  // Tight rounds stop at the minimum and say so.
  PointResult tight = combine_rounds({run_of({10}), run_of({10.01}), run_of({10.02})}, kHits);
  CHECK_FALSE(needs_another_round(tight, 3, RoundsRule{1, 3, 20}));
  CHECK(tight.precision_reached);
  // Not before the minimum, however tight.
  CHECK(needs_another_round(tight, 2, RoundsRule{1, 3, 20}));
  // Rounds whose mean is 0 stop at the minimum: no relative CI to reach.
  PointResult zero = combine_rounds({run_of({0}), run_of({0}), run_of({0})}, kHits);
  CHECK_FALSE(needs_another_round(zero, 3, RoundsRule{1, 3, 20}));
  CHECK_FALSE(zero.precision_reached);
  CHECK(zero.precision_note.find("mean of 0") != std::string::npos);
  CHECK(needs_another_round(zero, 2, RoundsRule{1, 3, 20}));
  // A failed point never runs again.
  PointResult failed;
  failed.status = PointResult::Status::Failed;
  CHECK_FALSE(needs_another_round(failed, 1, RoundsRule{0, 3, 3}));
}

TEST_CASE("rounds in results JSON: each sample's round, round means, the count", "[rounds][results]") {
  PlanPoint p = rounds_point();
  PointResult c = combine_rounds({run_of({10, 10}), run_of({11, 11, 11}), run_of({12})}, kHits);
  ResultsDoc doc;
  doc.points.push_back(point_result_to_json(p, c, "sha", 9.0, 1'000'000'000));
  nlohmann::json j = nlohmann::json::parse(doc.to_json().dump());
  const auto &pj = j["points"][0];
  CHECK(pj["rounds"] == 3);
  std::vector<int> rounds;
  for (const auto &s : pj["samples"]) rounds.push_back(s["round"].get<int>());
  CHECK(rounds == std::vector<int>{0, 0, 1, 1, 1, 2});
  auto rs = results_from_json(j);
  REQUIRE(rs);
  CHECK(rs->points[0].rounds == 3);
  const MetricSummary *h = rs->points[0].metric("hits");
  REQUIRE(h);
  CHECK(h->round_means == std::vector<double>{10, 11, 12});
  CHECK(h->mean == Approx(11));
  // A single run has no "round" per sample and counts as one round.
  PointResult single = run_of({3, 3});
  nlohmann::json sj = point_result_to_json(p, single, "sha", 2.0, 1'000'000'000);
  CHECK(sj["rounds"] == 1);
  CHECK_FALSE(sj["samples"][0].contains("round"));
  CHECK_FALSE(sj["stats"]["hits"].contains("round_means"));
}

TEST_CASE("compare tests a rounds result on its round means", "[rounds][compare]") {
  PlanPoint p = rounds_point();
  auto set_of = [&](const PointResult &r) {
    ResultsDoc doc;
    doc.points.push_back(point_result_to_json(p, r, "sha", 1.0, 1'000'000'000));
    auto rs = results_from_json(nlohmann::json::parse(doc.to_json().dump()));
    REQUIRE(rs);
    return *rs;
  };
  // Within each run the intervals barely move, but the runs differ by ~2%: the same data
  // tested per interval would call a 1% shift real; per round it is no change.
  PointResult a = combine_rounds(
      {run_of({10.0, 10.001, 9.999}), run_of({10.2, 10.201, 10.199}), run_of({9.9, 9.901, 9.899})}, kHits);
  PointResult b = combine_rounds(
      {run_of({10.1, 10.101, 10.099}), run_of({9.95, 9.951, 9.949}), run_of({10.25, 10.251, 10.249})}, kHits);
  CompareOptions o;
  o.min_change_pct = 0;
  CompareReport jitter = compare_results(set_of(a), set_of(b), o);
  REQUIRE(jitter.points.size() == 1);
  CHECK(jitter.points[0].verdict == Verdict::NoChange);
  // A 20% regression measured the same way is found.
  PointResult worse =
      combine_rounds({run_of({8.0, 8.001, 7.999}), run_of({8.1, 8.1, 8.1}), run_of({7.95, 7.95, 7.95})}, kHits);
  CompareReport reg = compare_results(set_of(a), set_of(worse), o);
  REQUIRE(reg.points.size() == 1);
  CHECK(reg.points[0].verdict == Verdict::Slower);
  CHECK(reg.points[0].change_pct == Approx(-20).margin(1.5));
}
