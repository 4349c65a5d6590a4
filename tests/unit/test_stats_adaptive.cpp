// Statistics on known inputs, the t distribution, outliers, warnings and the adaptive stop.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <thread>

#include "runtime/harness.hpp"
#include "results/stat_math.hpp"
#include "results/stats.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

TEST_CASE("Student t quantiles and CDF match the tables", "[stats]") {
  CHECK(student_t_quantile(0.975, 1) == Approx(12.706205).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 7) == Approx(2.364624).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 10) == Approx(2.228139).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 29) == Approx(2.045230).epsilon(1e-6));
  CHECK(student_t_quantile(0.025, 10) == Approx(-2.228139).epsilon(1e-6));
  CHECK(student_t_cdf(1, 1) == Approx(0.75));  // Cauchy
  CHECK(student_t_cdf(2, 2) == Approx(0.5 + 2 / (2 * std::sqrt(6.0))));
  CHECK(student_t_cdf(0, 5) == Approx(0.5));
  CHECK(incomplete_beta(2, 3, 0.4) == Approx(0.5248));  // 1 - (0.6^4 + 4*0.4*0.6^3)
}

TEST_CASE("summary of known values: mean, sd, median, CI, CV", "[stats]") {
  MetricSummary m = summarize_metric("hits", "M/s", {2, 4, 4, 4, 5, 5, 7, 9}, 2);
  CHECK(m.n == 8);
  CHECK(m.mean == Approx(5));
  CHECK(m.stddev == Approx(std::sqrt(32.0 / 7)));
  CHECK(m.median == Approx(4.5));
  CHECK(m.min == 2);
  CHECK(m.max == 9);
  CHECK(m.per_prod == Approx(2.5));
  CHECK(m.cv == Approx(std::sqrt(32.0 / 7) / 5));
  CHECK(m.ci95 == Approx(2.364624 * std::sqrt(32.0 / 7) / std::sqrt(8.0)).epsilon(1e-5));
  CHECK(m.rel_ci() == Approx(m.ci95 / 5));
  // MAD = 0.5 here (many ties): 9 is 6 scaled MADs from the median.
  CHECK(m.outliers == std::vector<size_t>{7});
  MetricSummary one = summarize_metric("hits", "M/s", {3}, 1);
  CHECK(one.stddev == 0);
  CHECK(one.ci95 == 0);
}

TEST_CASE("outliers by MAD, first interval off, noisy warning", "[stats]") {
  CHECK(mad_outliers({10, 10.1, 9.9, 10, 10.2, 9.8, 30}) == std::vector<size_t>{6});
  CHECK(mad_outliers({5, 5, 5, 5}).empty());  // MAD 0: no scale, no verdict
  CHECK(first_sample_off({15, 10, 10.1, 9.9, 10}));
  CHECK_FALSE(first_sample_off({10.2, 10, 10.1, 9.9, 10}));
  CHECK_FALSE(first_sample_off({15, 10, 10}));  // too few to judge

  auto w = summary_warnings(summarize_metric("hits", "M/s", {15, 10, 10.1, 9.9, 10}, 1));
  REQUIRE(w.size() == 2);
  CHECK(w[0].find("noisy: hits varies by") == 0);
  CHECK(w[1].find("first interval of hits is +50.0% off the rest") == 0);
  CHECK(summary_warnings(summarize_metric("hits", "M/s", {10, 10.1, 9.9, 10}, 1)).empty());
}

TEST_CASE("Welch t test on a known pair", "[stats]") {
  WelchResult w = welch_t_test(3, std::sqrt(2.5), 5, 5.5, std::sqrt(3.5), 6);
  CHECK(w.diff == Approx(2.5));
  CHECK(w.t == Approx(2.5 / std::sqrt(0.5 + 3.5 / 6)));
  CHECK(w.df == Approx(8.98936).epsilon(1e-4));
  CHECK(w.p_value > 0.03);
  CHECK(w.p_value < 0.05);
  CHECK(w.ci_low > 0);
  WelchResult same = welch_t_test(5, 0, 3, 5, 0, 3);
  CHECK(same.p_value == 1);
}

TEST_CASE("adaptive stop on a synthetic sample stream", "[stats][adaptive]") {
  std::mt19937 rng(42);
  std::normal_distribution<double> noise(100, 2);  // CV 2%: 1% CI needs ~17 samples
  PrecisionRule rule{1.0, 3, 40};
  std::vector<double> v;
  AdaptiveState st = AdaptiveState::Continue;
  while (st == AdaptiveState::Continue) {
    v.push_back(noise(rng));
    st = adaptive_state(summarize_metric("hits", "M/s", v, 1), rule);
  }
  REQUIRE(st == AdaptiveState::Reached);
  CHECK(v.size() > 8);
  CHECK(v.size() < 40);
  CHECK(stop_rel_ci(summarize_metric("hits", "M/s", v, 1)) <= 0.01);
  std::vector<double> before(v.begin(), v.end() - 1);
  CHECK(stop_rel_ci(summarize_metric("hits", "M/s", before, 1)) > 0.01);  // not a sample later

  // A steady stream stops at the minimum; a wild one at the limit.
  MetricSummary steady = summarize_metric("hits", "M/s", {5, 5, 5}, 1);
  CHECK(adaptive_state(steady, rule) == AdaptiveState::Reached);
  CHECK(adaptive_state(summarize_metric("hits", "M/s", {5, 5}, 1), rule) == AdaptiveState::Continue);
  std::vector<double> wild;
  for (int i = 0; i < 40; ++i) wild.push_back(i % 2 ? 1 : 100);
  CHECK(adaptive_state(summarize_metric("hits", "M/s", wild, 1), rule) == AdaptiveState::Limit);
}

TEST_CASE("adaptive stop: a zero mean stops at the minimum, with a note", "[stats][adaptive]") {
  // A metric that never counts (mean 0): no relative CI exists, so more samples cannot
  // help; the rule stops at min_samples instead of running to max_samples.
  PrecisionRule rule{2.0, 6, 120};
  std::vector<double> zeros;
  AdaptiveState st = AdaptiveState::Continue;
  while (st == AdaptiveState::Continue) {
    zeros.push_back(0);
    st = adaptive_state(summarize_metric("hits", "M/s", zeros, 1), rule);
  }
  CHECK(st == AdaptiveState::Undefined);
  CHECK(zeros.size() == 6);
  CHECK(precision_undefined(summarize_metric("hits", "M/s", zeros, 1)) ==
        "hits has a mean of 0: a relative precision is undefined for a zero mean");
  // A mean of exactly 0 from values that are not all 0 (a signed difference) too.
  MetricSummary signed_zero = summarize_metric("d", "ns/op", {-1, 1, -1, 1, -1, 1}, 1);
  CHECK(adaptive_state(signed_zero, rule) == AdaptiveState::Undefined);
  // A metric with no value (a zero denominator) likewise.
  MetricSummary none = summarize_metric("latency", "ns/op", {1, 1, 1, 1, 1, 1}, 1);
  mark_no_value(none, "no hits counted");
  CHECK(adaptive_state(none, rule) == AdaptiveState::Undefined);
  CHECK(precision_undefined(none).find("no hits counted") != std::string::npos);
  // A non-zero mean is judged as before.
  CHECK(precision_undefined(summarize_metric("hits", "M/s", {5, 5, 5, 5, 5, 5}, 1)).empty());
  CHECK(adaptive_state(summarize_metric("hits", "M/s", {5, 5, 5, 5, 5, 5}, 1), rule) == AdaptiveState::Reached);
}

TEST_CASE("correlated intervals widen the CI the stop rule judges", "[stats][adaptive]") {
  CHECK(lag1_autocorrelation({1, 2}) == 0);
  CHECK(lag1_autocorrelation({5, 5, 5, 5}) == 0);
  CHECK(lag1_autocorrelation({1, 1, 1, 9, 9, 9}) > 0.4);   // a level shift: neighbours agree
  CHECK(lag1_autocorrelation({1, 9, 1, 9, 1, 9}) < -0.5);  // alternation
  // AR(1) with phi 0.8 around 100 (a slowly drifting machine): the plain CI would stop
  // early, the widened one waits; i.i.d. noise of the same spread is not widened much.
  std::mt19937 rng(7);
  std::normal_distribution<double> e(0, 1);
  std::vector<double> drift, iid;
  double x = 0;
  for (int i = 0; i < 400; ++i) {
    x = 0.8 * x + e(rng);
    drift.push_back(100 + x);
    iid.push_back(100 + e(rng) * (1 / std::sqrt(1 - 0.64)));
  }
  MetricSummary d = summarize_metric("hits", "M/s", drift, 1);
  MetricSummary n = summarize_metric("hits", "M/s", iid, 1);
  CHECK(lag1_autocorrelation(drift) == Approx(0.8).margin(0.1));
  CHECK(stop_rel_ci(d) / d.rel_ci() == Approx(3.0).margin(0.6));  // sqrt(1.8 / 0.2)
  CHECK(stop_rel_ci(n) / n.rel_ci() < 1.2);
  // Never narrower than the plain CI.
  CHECK(stop_rel_ci(summarize_metric("hits", "M/s", {1, 9, 1, 9, 1, 9}, 1)) ==
        Approx(summarize_metric("hits", "M/s", {1, 9, 1, 9, 1, 9}, 1).rel_ci()));
}

namespace {
class SleepyProducer final : public Producer {
 public:
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    while (!stop.load()) {
      slot.add(1);
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    return {};
  }
};
HarnessOptions adaptive_opts(std::function<bool(const std::vector<Sample> &)> enough) {
  HarnessOptions o;
  o.interval_ns = 50'000'000;
  o.warmup_ns = o.interval_ns;
  o.duration_ns = o.interval_ns;  // ignored when adaptive
  o.max_duration_ns = 6 * o.interval_ns;
  o.enough = std::move(enough);
  return o;
}
}  // namespace

TEST_CASE("harness stops sampling when `enough` says so, or at the max", "[harness][adaptive]") {
  SleepyProducer prod;
  StopSource stop;
  auto measure = [](uint64_t ops) { return std::map<std::string, uint64_t>{{"hits", ops}}; };
  HarnessResult r =
      run_harness(adaptive_opts([](const auto &s) { return s.size() >= 3; }), prod, nullptr, measure, stop);
  CHECK(r.enough);
  CHECK_FALSE(r.interrupted);
  CHECK(r.warmup.size() == 1);
  CHECK(r.samples.size() == 3);
  HarnessResult lim = run_harness(adaptive_opts([](const auto &) { return false; }), prod, nullptr, measure, stop);
  CHECK_FALSE(lim.enough);
  CHECK(lim.samples.size() == 6);
}
