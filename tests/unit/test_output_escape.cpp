// Hostile labels and titles through every writer: a results file cannot run a command
// when plotted, break a table, or stop JSON from being written; a derived metric over
// nothing is n/a, never a 0 that passes an expectation.
#include <catch2/catch.hpp>

#include "gnuplot_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "util/escape.hpp"
#include "metric_support.hpp"
#include "results/expectations.hpp"
#include "results/plot.hpp"
#include "results/report_tables.hpp"
#include "results/report_text.hpp"
#include "results/results.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "result_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;

namespace {

using bpfbench::test::TempDir;

// A results document with a suite title and point labels chosen by the caller.
nlohmann::json doc_with(const std::string &suite, const std::vector<std::string> &labels) {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  for (size_t i = 0; i < labels.size(); ++i) {
    PlanPoint p;
    p.index = i;
    p.suite = suite;
    p.family = "trigger";
    p.label = labels[i];
    ParamValue v;
    v.is_int = true;
    v.i = int64_t(1) << (3 * i);
    p.params.emplace_back("batch", v);
    PointResult r;
    r.report = {"hits"};
    for (int k = 0; k < 3; ++k) {
      Sample s;
      s.duration_s = 1;
      s.deltas["hits"] = 1'000'000 * (i + 1) + uint64_t(k);
      r.samples.push_back(s);
    }
    r.summary = summarize(r.samples, {test::counter_metric("hits", "hits", "events")}, 1, r.report);
    doc.points.push_back(point_result_to_json(p, r, "", 3, 1'000'000'000));
  }
  return doc.to_json();
}

size_t unescaped_pipes(const std::string &line) {
  size_t n = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') ++i;
    else if (line[i] == '|') ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("plot: a title or label cannot run a command in gnuplot", "[plot][escape]") {
  TempDir dir;
  std::string mark = (dir.path / "ran").string();
  std::string title = "t`touch " + mark + "1`\nsystem \"touch " + mark + "2\"\nset output '" + mark + "3'";
  std::vector<std::string> labels = {"a\"`touch " + mark + "4`", "b\ne\nsystem \"touch " + mark + "5\"",
                                     "c\\\" @x '\xff"};
  std::string path = (dir.path / "hostile.json").string();
  std::ofstream(path) << json_text(doc_with(title, labels));
  std::string svg = (dir.path / "p.svg").string();
  auto r = bpfbench::test::run_process({BPFBENCH_BINARY, "plot", path, "-o", svg});
  INFO(r.out << r.err);
  if (r.err.find("gnuplot, which is not installed") != std::string::npos) {
    WARN("gnuplot not installed: only the script is checked");
  } else {
    CHECK(r.exit_code == 0);
    CHECK(fs::exists(svg));
  }
  for (int i = 1; i <= 5; ++i) CHECK_FALSE(fs::exists(mark + std::to_string(i)));
  auto bad = bpfbench::test::run_process({BPFBENCH_BINARY, "plot", path, "-o", (dir.path / "a\nb.svg").string()});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("plot output name has control characters") != std::string::npos);

  // The script itself: every line is a command bpfbench meant, or data.
  auto rs = results_from_json(doc_with(title, labels));
  REQUIRE(rs);
  std::string script = gnuplot_script(plot_charts({&*rs}, {""}), "/tmp/o'`id`.svg");
  test::check_gnuplot_lines(script);
  CHECK(script.find("set output '/tmp/o''`id`.svg'") != std::string::npos);
  CHECK(script.find("\"b e system 'touch ") != std::string::npos);
}

TEST_CASE("CSV and Markdown: hostile labels stay one field, one cell", "[results][escape]") {
  auto rs = results_from_json(doc_with("s|t\n## x", {"a|b\nc", "=cmd|' /C calc'!A0", "<img src=x>"}));
  REQUIRE(rs);
  std::string md = results_to_markdown(*rs);
  std::istringstream in(md);
  std::string line;
  size_t rows = 0;
  while (std::getline(in, line))
    if (line.rfind("| ", 0) == 0) {
      CAPTURE(line);
      CHECK(unescaped_pipes(line) == 8);  // 7 cells
      ++rows;
    }
  CHECK(rows == 4);  // header + 3 points
  CHECK(md.find("## s\\|t ## x\n") != std::string::npos);
  CHECK(md.find("<img") == std::string::npos);
  std::string csv = results_to_csv(*rs);
  CHECK(csv.find("\"s|t\n## x\",\"a|b\nc\",") != std::string::npos);
  CHECK(csv.find(",\"'=cmd|' /C calc'!A0\",") != std::string::npos);
}

TEST_CASE("latency of a program that never counted is n/a and fails its expectation", "[stats][expect][novalue]") {
  std::vector<Sample> samples(3);
  for (auto &s : samples) {
    s.duration_s = 1;
    s.deltas["hits"] = 0;
  }
  Summary sum = summarize(samples, {test::counter_metric("hits", "hits", "events")}, 1, {"hits", "latency"});
  const MetricSummary *lat = sum.find("latency");
  REQUIRE(lat);
  CHECK_FALSE(lat->has_value());
  CHECK(std::isnan(lat->mean));
  PlanExpectation e;
  e.text = "latency < 1us";
  e.metric = "latency";
  e.op = "<";
  e.value = 1000;
  e.unit = "ns/op";
  auto results = evaluate_expectations({e}, sum);
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].passed);
  CHECK(format_failed_expectations("p", results, nullptr) ==
        "p: FAILED: expect latency < 1us (latency = n/a: no hits counted (latency = 1000 / hits per producer))\n");
  nlohmann::json j = expectations_to_json(results);
  CHECK(j[0]["actual"].is_null());
  PointResult r;
  r.report = {"hits", "latency"};
  r.samples = samples;
  r.summary = sum;
  CHECK(format_summary(r).find(", latency n/a (no hits counted") != std::string::npos);
  // A ratio whose denominator never counted has no value either.
  Summary ratio = summarize(samples,
                            {test::counter_metric("hits", "hits", "events"),
                             test::metric("miss_rate", test::source(MetricSourceKind::Ratio, "hits", "drops"), "")},
                            1, {"hits"});
  REQUIRE(ratio.find("miss_rate"));
  CHECK(ratio.find("miss_rate")->no_value == "no drops counted (miss_rate = hits/drops)");
}
