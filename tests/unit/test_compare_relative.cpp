// compare on metrics whose A side spans 0 (baseline `_adj` differences): an absolute change
// with its CI instead of a relative one, left out of the geomean.
#include <catch2/catch.hpp>

#include <cmath>

#include "results/compare.hpp"
#include "results/results.hpp"
#include "results/stat_math.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

MetricSummary summary_of(const std::string &name, const std::string &unit, double mean, double sd, size_t n) {
  MetricSummary m;
  m.name = name;
  m.unit = unit;
  m.higher_is_better = default_higher_is_better(name, unit);
  m.mean = m.median = m.min = m.max = m.per_prod = mean;
  m.stddev = sd;
  m.n = n;
  m.ci95 = ci_half_width(sd, n);
  return m;
}

ResultPoint point_of(const std::string &label, const MetricSummary &m) {
  ResultPoint p;
  p.label = label;
  p.suite = "s";
  p.family = "local_storage";
  p.status = "ok";
  p.primary = m.name;
  p.report = {m.name};
  p.params = {{"nr_maps", 1}};
  p.metrics = {m};
  return p;
}

ResultSet set_of(std::vector<ResultPoint> pts) {
  ResultSet rs;
  rs.path = "x.json";
  rs.points = std::move(pts);
  return rs;
}

}  // namespace

TEST_CASE("compare: A's CI spans 0 gives an absolute change, no geomean", "[compare]") {
  // latency_adj 0.5 ± 2.146 (sd 3, n 10) -> 3.0: relative to 0.5 that was "+500% [-64%, +1064%]".
  ResultSet a = set_of({point_of("adj", summary_of("latency_adj", "ns/op", 0.5, 3, 10)),
                        point_of("hits", summary_of("hits", "M/s", 10, 0.05, 10))});
  ResultSet b = set_of({point_of("adj", summary_of("latency_adj", "ns/op", 3.0, 3, 10)),
                        point_of("hits", summary_of("hits", "M/s", 11, 0.05, 10))});
  CompareReport c = compare_results(a, b, CompareOptions{});
  REQUIRE(c.points.size() == 2);
  const PointComparison &adj = c.points[0];
  CHECK(adj.absolute);
  CHECK(std::isnan(adj.change_pct));
  CHECK(std::isnan(adj.speed_change_pct));
  CHECK(adj.diff == Approx(2.5));
  // Welch: se = sqrt(0.9 + 0.9), df = 18, t = 2.100922 (by hand).
  CHECK(adj.diff_ci_low == Approx(2.5 - 2.818683).epsilon(1e-5));
  CHECK(adj.diff_ci_high == Approx(2.5 + 2.818683).epsilon(1e-5));
  CHECK(adj.verdict == Verdict::NoChange);
  CHECK_FALSE(c.points[1].absolute);
  CHECK(c.points[1].change_pct == Approx(10));
  REQUIRE(c.geomeans.size() == 1);
  CHECK(c.geomeans[0].n == 1);
  CHECK(c.geomeans[0].left_out == 1);
  CHECK(c.geomeans[0].speed_change_pct == Approx(10));

  std::string text = compare_to_text(c);
  INFO(text);
  CHECK(text.find("+2.500") != std::string::npos);
  CHECK(text.find("[-0.319, +5.319] ns/op") != std::string::npos);
  CHECK(text.find("A's 95% CI spans 0") != std::string::npos);
  CHECK(text.find("geometric mean over 1 point: +10.00% speed (1 point left out: A's CI spans 0)") !=
        std::string::npos);
  CHECK(text.find("+500.00%") == std::string::npos);
  std::string md = compare_to_markdown(c);
  CHECK(md.find("| **geomean** (1 points)") != std::string::npos);
  CHECK(md.find("1 point left out") != std::string::npos);
  nlohmann::json j = compare_to_json(c);
  CHECK(j["points"][0]["relative"] == false);
  CHECK(j["points"][0]["change_pct"].is_null());
  CHECK(j["points"][0]["diff"].get<double>() == Approx(2.5));
  CHECK(j["points"][1]["relative"] == true);
  CHECK(j["geomeans"][0]["left_out"] == 1);
}

TEST_CASE("compare: absolute changes still get a verdict, never a regression %", "[compare]") {
  ResultSet a = set_of({point_of("adj", summary_of("latency_adj", "ns/op", 0.5, 1, 10)),
                        point_of("zero", summary_of("latency_adj", "ns/op", 0, 0, 10))});
  ResultSet slower = set_of({point_of("adj", summary_of("latency_adj", "ns/op", 12, 1, 10)),
                             point_of("zero", summary_of("latency_adj", "ns/op", -5, 1, 10))});
  CompareReport c = compare_results(a, slower, CompareOptions{});
  REQUIRE(c.points.size() == 2);
  CHECK(c.points[0].absolute);
  CHECK(c.points[0].verdict == Verdict::Slower);  // ns/op: up is slower
  // A mean of exactly 0 (once "not comparable") is the same case: 0 - 5 ns/op is faster.
  CHECK(c.points[1].absolute);
  CHECK(c.points[1].verdict == Verdict::Faster);
  CHECK(c.worst_regression_pct() == 0);  // no relative slowdown to hold --fail-on-regression to
  REQUIRE(c.geomeans.size() == 1);
  CHECK(c.geomeans[0].n == 0);
  CHECK(c.geomeans[0].left_out == 2);
  CHECK(compare_to_text(c).find("no geometric mean (2 points left out: A's CI spans 0)") != std::string::npos);
  CHECK(compare_to_json(c)["geomeans"][0]["speed_change_pct"].is_null());
}
