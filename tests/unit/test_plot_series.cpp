// plot on synthetic results files: a series per combination of the varying params (prog
// included), baseline points left out, --metric and one chart per metric.
#include <catch2/catch.hpp>

#include "gnuplot_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/atomic_file.hpp"
#include "metric_support.hpp"
#include "results/plot.hpp"
#include "results/results.hpp"
#include "session/plot_file.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "result_support.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

struct Pt {
  std::string prog;
  int64_t batch, size;
  double mhits;
  bool baseline = false;
};

PlanPoint plan_of(size_t index, const Pt &x) {
  PlanPoint p;
  p.index = index;
  p.suite = "trig";
  p.family = "trigger";
  p.program = x.prog;
  p.label = fmt::format("{}-{}-{}{}", x.prog, x.batch, x.size, x.baseline ? "-baseline" : "");
  p.is_baseline = x.baseline;
  for (auto [name, v] : {std::pair<const char *, int64_t>{"batch", x.batch}, {"size", x.size}}) {
    ParamValue pv;
    pv.is_int = true;
    pv.i = v;
    p.params.emplace_back(name, pv);
  }
  p.report = {"hits", "latency"};
  return p;
}

PointResult result_of(double mhits) {
  PointResult r;
  r.report = {"hits", "latency"};
  for (int k = 0; k < 4; ++k) {
    Sample s;
    s.duration_s = 1;
    s.deltas["hits"] = uint64_t(mhits * 1e6) + uint64_t(k) * 1000;
    r.samples.push_back(s);
  }
  r.summary = summarize(r.samples, {test::counter_metric("hits", "hits", "events")}, 1, r.report);
  return r;
}

nlohmann::json doc_of(const std::vector<Pt> &pts) {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  for (size_t i = 0; i < pts.size(); ++i)
    doc.points.push_back(point_result_to_json(plan_of(i, pts[i]), result_of(pts[i].mhits), "", 4, 1'000'000'000));
  return nlohmann::json::parse(doc.to_json().dump());
}

ResultSet set_of(const nlohmann::json &j) {
  auto rs = results_from_json(j);
  INFO(test::error_text(rs));
  REQUIRE(rs);
  return *rs;
}

// Two programs over batch 1/10/100 at two sizes, each point after a baseline whose
// numbers are far off (they would pull the lines to 90 if drawn).
std::vector<Pt> sweep() {
  std::vector<Pt> pts;
  for (const char *prog : {"tp", "raw_tp"})
    for (int64_t size : {8, 64})
      for (int64_t batch : {1, 10, 100}) {
        pts.push_back({prog, batch, size, 90, true});
        pts.push_back({prog, batch, size, double(batch) / double(size) + (prog[0] == 't' ? 1 : 2)});
      }
  return pts;
}

}  // namespace

TEST_CASE("plot: a series per prog and param combination, no baselines", "[plot]") {
  ResultSet rs = set_of(doc_of(sweep()));
  auto charts = plot_charts({&rs}, {""}, "hits");
  REQUIRE(charts.size() == 1);
  const PlotChart &c = charts[0];
  CHECK(c.title == "trig");
  CHECK(c.xlabel == "batch");
  CHECK(c.ylabel == "hits (M/s)");
  std::vector<std::string> titles;
  for (const auto &s : c.series) titles.push_back(s.title);
  CHECK(titles ==
        std::vector<std::string>{"prog=tp size=8", "prog=tp size=64", "prog=raw_tp size=8", "prog=raw_tp size=64"});
  for (const auto &s : c.series) {
    CHECK(s.x == std::vector<double>{1, 10, 100});
    for (double y : s.y) CHECK(y < 50);  // no baseline point in any line
  }
  CHECK(c.series[0].y[2] == Approx(100.0 / 8 + 1).epsilon(1e-3));

  // Files from before points carried is_baseline: the plan says which they are.
  nlohmann::json old = doc_of(sweep());
  old["plan"] = {{"points", nlohmann::json::array()}};
  for (auto &p : old["points"]) {
    if (p.contains("is_baseline")) old["plan"]["points"].push_back({{"index", p["index"]}, {"is_baseline", true}});
    p.erase("is_baseline");
  }
  ResultSet older = set_of(old);
  auto oc = plot_charts({&older}, {""}, "hits");
  REQUIRE(oc.size() == 1);
  CHECK(oc[0].series.size() == 4);
  for (const auto &s : oc[0].series) CHECK(s.x.size() == 3);
}

TEST_CASE("plot: one chart per reported metric unless --metric picks one", "[plot]") {
  ResultSet rs = set_of(doc_of(sweep()));
  auto charts = plot_charts({&rs}, {""});
  REQUIRE(charts.size() == 2);
  CHECK(charts[0].title == "trig: hits");
  CHECK(charts[1].title == "trig: latency");
  CHECK(charts[1].ylabel == "latency (ns/op)");
  CHECK(charts[1].series.size() == 4);
  auto lat = plot_charts({&rs}, {""}, "latency");
  REQUIRE(lat.size() == 1);
  CHECK(lat[0].ylabel == "latency (ns/op)");
  CHECK(plot_charts({&rs}, {""}, "nope").empty());
  auto names = plot_metric_names({&rs});
  CHECK(std::find(names.begin(), names.end(), "latency") != names.end());
  // Overlaid files: per file too.
  auto both = plot_charts({&rs, &rs}, {"A", "B"}, "hits");
  REQUIRE(both.size() == 1);
  CHECK(both[0].series.size() == 8);
  CHECK(both[0].series[0].title == "prog=tp size=8 (A)");
  CHECK(both[0].series[4].title == "prog=tp size=8 (B)");
}

TEST_CASE("plot: a param missing from some points is not the x axis", "[plot]") {
  // Found by fuzz_results: a points' param renamed by hand ("bat*ch") made x a param
  // that point lacks, and plot threw out of json::at.
  nlohmann::json j = doc_of(sweep());
  nlohmann::json &p1 = j["points"][1]["params"];
  p1["bat*ch"] = p1["batch"];
  p1.erase("batch");
  ResultSet rs = set_of(j);
  std::vector<PlotChart> charts;
  REQUIRE_NOTHROW(charts = plot_charts({&rs}, {""}, "hits"));
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].xlabel != "batch");
  size_t drawn = 0;
  for (const auto &s : charts[0].series) drawn += s.x.size();
  CHECK(drawn == 12);
}

TEST_CASE("plot: a hostile prog name stays a gnuplot string", "[plot][escape]") {
  std::vector<Pt> pts = {
      {"a'\nsystem \"id\"`id`", 1, 8, 1}, {"a'\nsystem \"id\"`id`", 10, 8, 2}, {"b", 1, 8, 3}, {"b", 10, 8, 4}};
  ResultSet rs = set_of(doc_of(pts));
  auto charts = plot_charts({&rs}, {""}, "hits");
  REQUIRE(charts.size() == 1);
  REQUIRE(charts[0].series.size() == 2);
  std::string script = gnuplot_script(charts, "/tmp/x.svg");
  test::check_gnuplot_lines(script);
  CHECK(script.find("title 'prog=a'' system \"id\"`id`'") != std::string::npos);
}

TEST_CASE("write_plot --metric: unknown names refused with the list, known ones drawn", "[plot]") {
  test::TempDir dir;
  std::string path = (dir.path / "r.json").string();
  REQUIRE(write_file_atomic(path, doc_of(sweep()).dump()));
  std::string svg = (dir.path / "p.svg").string();
  auto bad = write_plot({{path}, svg, "latncy"});
  REQUIRE(!bad);
  CHECK(bad.error().message.find("unknown metric 'latncy' for --metric (the results have: ") != std::string::npos);
  CHECK(bad.error().message.find("latency") != std::string::npos);
  CHECK(!std::filesystem::exists(svg));
  auto good = write_plot({{path}, svg, "latency"});
  if (!good && good.error().message.find("gnuplot, which is not installed") != std::string::npos) {
    SUCCEED("no gnuplot here: the error says so");
  } else {
    INFO((good ? std::string() : good.error().message));
    REQUIRE(good);
    CHECK(*good == 1);
    CHECK(std::filesystem::file_size(svg) > 0);
    auto all = write_plot({{path}, svg, ""});
    REQUIRE(all);
    CHECK(*all == 2);
  }
  auto wrong_name = write_plot({{path}, (dir.path / "p.pdf").string(), ""});
  REQUIRE(!wrong_name);
  CHECK(wrong_name.error().message.find("must end in .svg or .png") != std::string::npos);
}

TEST_CASE("bpfbench plot: a refused plot exits 2 with the reason, a drawn one names its charts", "[cli][plot]") {
  test::TempDir dir;
  std::string path = (dir.path / "r.json").string();
  REQUIRE(write_file_atomic(path, doc_of(sweep()).dump()));
  std::string svg = (dir.path / "p.svg").string();
  auto bad = test::run_process({BPFBENCH_BINARY, "plot", path, "--metric", "latncy", "-o", svg});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("bpfbench: error: unknown metric 'latncy'") != std::string::npos);
  auto good = test::run_process({BPFBENCH_BINARY, "plot", path, "--metric", "latency", "-o", svg});
  if (good.err.find("gnuplot, which is not installed") != std::string::npos) {
    CHECK(good.exit_code == 2);
  } else {
    INFO(good.err);
    CHECK(good.exit_code == 0);
    CHECK(good.out == "wrote " + svg + " (1 chart)\n");
  }
}
