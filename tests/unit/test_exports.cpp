// Every export (JSON, CSV, Markdown) carries every reported metric with its baseline
// adjustment, `_adj.values` adjusted, and outlier notes that say what they are; a file of
// the results schema before still reads (its `_adj.values` adjusted on the way in).
#include <catch2/catch.hpp>

#include <sstream>

#include <fmt/format.h>

#include "util/escape.hpp"
#include "metric_support.hpp"
#include "results/baseline.hpp"
#include "results/report_tables.hpp"
#include "results/results.hpp"
#include "result_support.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

// One-second samples: hits in M/s, prog_ns in ns per run (1000 runs of the program each).
PointResult measured(const std::vector<double> &hits_m, const std::vector<double> &prog_ns) {
  PointResult r;
  r.report = {"hits", "latency", "prog_ns"};  // what run_point reports with --prog-stats
  for (size_t i = 0; i < hits_m.size(); ++i) {
    Sample s;
    s.duration_s = 1.0;
    s.deltas["hits"] = static_cast<uint64_t>(hits_m[i] * 1e6);
    s.deltas[kProgRunsKey] = 1000;
    s.deltas[kProgRunNsKey] = static_cast<uint64_t>(prog_ns[i] * 1000);
    s.deltas[kProgWallNsKey] = 1'000'000'000;
    r.samples.push_back(s);
  }
  r.summary =
      summarize(r.samples, with_prog_stat_metrics({test::counter_metric("hits", "hits", "events")}, true), 1, r.report);
  return r;
}

PlanPoint plan_point(size_t index, const std::string &label) {
  PlanPoint p;
  p.index = index;
  p.suite = "ls";
  p.family = "local_storage";
  p.program = "seq_get";
  p.label = label;
  p.report = {"hits", "latency"};
  return p;
}

// The baseline point, then its main point, through the JSON text a run writes.
struct Exported {
  PointResult base, main;
  nlohmann::json json;
  ResultSet set;
};

Exported export_pair() {
  Exported x;
  // Main: sample #4 is far off (hits 5 M/s: latency 200 ns/op); baseline: 40 and 50 M/s.
  x.base = measured({40, 50}, {20, 20});
  x.main = measured({10, 10.1, 9.9, 10, 5}, {50, 51, 49, 50, 50});
  apply_baseline(x.main, x.base);
  PlanPoint bp = plan_point(0, "seq_get-16-baseline"), mp = plan_point(1, "seq_get-16");
  bp.is_baseline = true;
  mp.baseline = 0;
  ResultsDoc doc;
  doc.file = "ls.bdsl";
  doc.points.push_back(point_result_to_json(bp, x.base, "", 1, 1'000'000'000));
  doc.points.push_back(point_result_to_json(mp, x.main, "", 1, 1'000'000'000));
  doc.complete = true;
  x.json = nlohmann::json::parse(doc.to_json().dump());
  auto rs = results_from_json(x.json);
  INFO(test::error_text(rs));
  REQUIRE(rs);
  x.set = *rs;
  return x;
}

const std::vector<std::string> kReported = {"hits", "latency", "latency_adj", "prog_ns", "prog_ns_adj"};

// The CSV row of `label`'s `metric`, split at commas (no field here is quoted).
std::vector<std::string> csv_row(const std::string &csv, const std::string &label, const std::string &metric) {
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    if (f.size() > 6 && f[1] == label && f[6] == metric) return f;
  }
  return {};
}

}  // namespace

TEST_CASE("apply_baseline adjusts prog_ns like latency, values less the baseline's mean", "[results][baseline]") {
  Exported x = export_pair();
  CHECK(x.main.report == kReported);
  const MetricSummary *adj = x.main.summary.find("prog_ns_adj");
  REQUIRE(adj);
  CHECK(adj->unit == "ns/run");
  CHECK_FALSE(adj->higher_is_better);
  CHECK(adj->mean == Approx(30));  // 50 - 20
  REQUIRE(adj->values.size() == 5);
  CHECK(adj->values[0] == Approx(30));
  CHECK(adj->values[1] == Approx(31));
  CHECK(adj->values[2] == Approx(29));
  // latency: 1000 / hits per producer; the baseline's mean is 1000 / 45 M/s.
  const MetricSummary *ladj = x.main.summary.find("latency_adj");
  REQUIRE(ladj);
  REQUIRE(ladj->values.size() == 5);
  const double base_latency = 1000.0 / 45;
  CHECK(x.base.summary.find("latency")->mean == Approx(base_latency));
  CHECK(ladj->values[0] == Approx(100 - base_latency));
  CHECK(ladj->values[1] == Approx(1000 / 10.1 - base_latency));
  CHECK(ladj->values[4] == Approx(200 - base_latency));
  CHECK(ladj->outliers == x.main.summary.find("latency")->outliers);  // a shift moves no outlier
  // Rates are not adjusted; nor is a cost the baseline does not have.
  CHECK_FALSE(x.main.summary.find("hits_adj"));
  PointResult no_stats = measured({40}, {20});
  std::erase_if(no_stats.summary.metrics, [](const MetricSummary &m) { return m.name == "prog_ns"; });
  PointResult m2 = measured({10}, {50});
  apply_baseline(m2, no_stats);
  CHECK_FALSE(m2.summary.find("prog_ns_adj"));
}

TEST_CASE("JSON holds every reported metric and adjusted _adj values", "[results][exports]") {
  Exported x = export_pair();
  const nlohmann::json &main = x.json["points"][1];
  CHECK(x.json["schema"] == "bpfbench-results/2");
  CHECK(main["report"] == nlohmann::json(kReported));
  for (const auto &name : kReported) {
    CAPTURE(name);
    CHECK(main["stats"].contains(name));
  }
  const nlohmann::json &v = main["stats"]["prog_ns_adj"]["values"];
  REQUIRE(v.size() == 5);
  CHECK(v[0].get<double>() == Approx(30));
  CHECK(v[1].get<double>() == Approx(31));
  CHECK(v[2].get<double>() == Approx(29));
  CHECK(main["stats"]["prog_ns_adj"]["better"] == "lower");
  const nlohmann::json &lv = main["stats"]["latency_adj"]["values"];
  const nlohmann::json &raw = main["stats"]["latency"]["values"];
  const double base = x.json["points"][0]["stats"]["latency"]["mean"].get<double>();
  REQUIRE(lv.size() == raw.size());
  for (size_t i = 0; i < lv.size(); ++i) CHECK(lv[i].get<double>() == Approx(raw[i].get<double>() - base));
  // Read back, the values are what was written.
  const MetricSummary *back = x.set.points[1].metric("latency_adj");
  REQUIRE(back);
  CHECK(back->values[4] == Approx(200 - 1000.0 / 45));
}

TEST_CASE("CSV has a row per metric, reported ones first, with adjusted numbers", "[results][exports]") {
  Exported x = export_pair();
  std::string csv = results_to_csv(x.set);
  CHECK(csv.rfind("suite,label,family,program,params,status,metric,unit,n,mean,stddev,median,min,max,cv,ci95,"
                  "ci95_rel,outlier_samples,reason\n",
                  0) == 0);
  for (const auto &name : kReported) {
    CAPTURE(name);
    CHECK(csv_row(csv, "seq_get-16", name).size() >= 18);
  }
  std::vector<std::string> adj = csv_row(csv, "seq_get-16", "prog_ns_adj");
  REQUIRE(adj.size() >= 18);
  CHECK(adj[7] == "ns/run");
  CHECK(std::stod(adj[9]) == Approx(30));   // mean
  CHECK(std::stod(adj[11]) == Approx(30));  // median: 50 - 20
  std::vector<std::string> ladj = csv_row(csv, "seq_get-16", "latency_adj");
  REQUIRE(ladj.size() >= 18);
  CHECK(std::stod(ladj[9]) == Approx(x.main.summary.find("latency")->mean - 1000.0 / 45).epsilon(1e-5));
  CHECK(ladj[17] == "4");  // sample #4 is the outlier
  // Report order: hits, latency, latency_adj, prog_ns, prog_ns_adj, then the rest.
  size_t at = 0;
  for (const auto &name : kReported) {
    size_t next = csv.find(",seq_get-16,local_storage,seq_get,,ok," + name + ",");
    CAPTURE(name);
    CHECK(next > at);
    at = next;
  }
  CHECK(csv.find(",seq_get-16,local_storage,seq_get,,ok,prog_runs,") > at);
}

TEST_CASE("Markdown has a row per reported metric and says what outliers are", "[results][exports]") {
  Exported x = export_pair();
  std::string md = results_to_markdown(x.set);
  INFO(md);
  for (const auto &name : kReported) {
    CAPTURE(name);
    CHECK(md.find("| seq\\_get-16 | " + markdown_text(name) + " (") != std::string::npos);
  }
  CHECK(md.find("| seq\\_get-16 | prog\\_ns\\_adj (ns/run) | 30.000 |") != std::string::npos);
  const double ladj = x.main.summary.find("latency_adj")->mean;
  CHECK(md.find(fmt::format("| seq\\_get-16 | latency\\_adj (ns/op) | {:.3f} |", ladj)) != std::string::npos);
  // Sample #4 is an outlier of hits and latency; prog_ns has none.
  CHECK(md.find("| seq\\_get-16 | hits (M/s) |") != std::string::npos);
  CHECK(md.find("outlier sample: #4 (of #0–#4)") != std::string::npos);
  CHECK(md.find("outliers: none") != std::string::npos);
  CHECK(md.find("outliers: 4") == std::string::npos);
  CHECK(md.find("baseline point: subtracted in its main point's \\_adj rows") != std::string::npos);
  // Outlier indices, not counts: two of them.
  MetricSummary m;
  m.name = "hits";
  m.unit = "M/s";
  m.n = 10;
  m.outliers = {0, 7};
  ResultSet rs;
  ResultPoint p;
  p.label = "x";
  p.status = "ok";
  p.report = {"hits"};
  p.metrics = {m};
  rs.points = {p};
  CHECK(results_to_markdown(rs).find("| outlier samples: #0, #7 (of #0–#9) |") != std::string::npos);
}

TEST_CASE("a bpfbench-results/1 file reads with its _adj values adjusted", "[results][exports][read]") {
  Exported x = export_pair();
  nlohmann::json old = x.json;
  old["schema"] = "bpfbench-results/1";
  nlohmann::json &stats = old["points"][1]["stats"];
  // What version 1 wrote: main's raw values under the adjusted metric.
  stats["latency_adj"]["values"] = stats["latency"]["values"];
  stats["prog_ns_adj"]["values"] = stats["prog_ns"]["values"];
  auto rs = results_from_text(old.dump(), "old.json");
  INFO(test::error_text(rs));
  REQUIRE(rs);
  const MetricSummary *adj = rs->points[1].metric("prog_ns_adj");
  REQUIRE(adj);
  REQUIRE(adj->values.size() == 5);
  CHECK(adj->values[0] == Approx(30));
  CHECK(adj->values[1] == Approx(31));
  CHECK(rs->points[1].metric("latency_adj")->values[4] == Approx(200 - 1000.0 / 45));
  // A family metric that only ends in `_adj` (values of its own) is left as it is.
  nlohmann::json own = old;
  own["points"][1]["stats"]["prog_ns_adj"]["values"] = {1, 2, 3, 4, 5};
  rs = results_from_text(own.dump(), "own.json");
  REQUIRE(rs);
  CHECK(rs->points[1].metric("prog_ns_adj")->values == std::vector<double>{1, 2, 3, 4, 5});
  // A file of a newer version is refused, saying which it is.
  nlohmann::json newer = x.json;
  newer["schema"] = "bpfbench-results/3";
  std::string err = test::expect_error(results_from_text(newer.dump(), "new.json"));
  CHECK(err == "new.json: not a bpfbench results file (expected \"schema\": \"bpfbench-results/2\", or "
               "\"bpfbench-results/1\" of older versions; this file is \"bpfbench-results/3\", of a newer "
               "bpfbench?)");
}
