// Result files: JSON round trip, CSV/Markdown, atomic writes under SIGKILL, compare
// verdicts on synthetic before/after data, plot scripts.
#include <catch2/catch.hpp>

#include <algorithm>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "util/atomic_file.hpp"
#include "results/compare.hpp"
#include "results/plot.hpp"
#include "results/report_tables.hpp"
#include "results/results.hpp"
#include "runtime/environment.hpp"
#include "run_process.hpp"
#include "metric_support.hpp"
#include "temp_dir.hpp"
#include "result_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

using bpfbench::test::TempDir;

PlanPoint plan_point(size_t index, const std::string &label, int64_t rate) {
  PlanPoint p;
  p.index = index;
  p.suite = "sweep";
  p.family = "ringbuf";
  p.program = "reserve_commit";
  p.label = label;
  ParamValue v;
  v.is_int = true;
  v.i = rate;
  p.params.emplace_back("sample_rate", v);
  p.report = {"hits"};
  return p;
}

// `n` one-second samples of hits around `mean` M/s with relative noise `rel_sd`.
PointResult synthetic(double mean, double rel_sd, size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(mean, mean * rel_sd);
  PointResult r;
  r.report = {"hits"};
  for (size_t i = 0; i < n; ++i) {
    Sample s;
    s.duration_s = 1.0 + 1e-5 * double(i);
    s.deltas["hits"] = static_cast<uint64_t>(d(rng) * 1e6 * s.duration_s);
    r.samples.push_back(s);
  }
  r.warmup.push_back(r.samples.front());
  r.summary = summarize(r.samples, {test::counter_metric("hits", "hits", "events")}, 1, r.report);
  return r;
}

// A results document of points (label, rate, mean, noise, seed) run through JSON text.
ResultSet result_set(const std::vector<std::tuple<std::string, int64_t, double, double, unsigned>> &pts,
                     const std::string &kernel = "6.18.0", size_t samples = 10) {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  doc.file_sha256 = "abc";
  doc.env.kernel_release = kernel;
  doc.env.nr_cpus = 2;
  size_t i = 0;
  for (const auto &[label, rate, mean, sd, seed] : pts) {
    PlanPoint p = plan_point(i++, label, rate);
    doc.points.push_back(point_result_to_json(p, synthetic(mean, sd, samples, seed), "sha-" + label, 11.0, 1'000'000'000));
  }
  doc.complete = true;
  auto rs = results_from_json(nlohmann::json::parse(doc.to_json().dump()));
  REQUIRE(rs);
  return *rs;
}

}  // namespace

TEST_CASE("results JSON round trip keeps samples, stats, environment", "[results]") {
  PlanPoint p = plan_point(3, "rb-25", 25);
  PointResult r = synthetic(12.0, 0.02, 8, 7);
  r.precision_pct = 1;
  r.precision_reached = true;
  ResultsDoc doc;
  doc.file = "ringbuf.bdsl";
  doc.file_sha256 = "f00d";
  doc.env = collect_environment();
  doc.programs.push_back(ProgramHash{"ringbuf-0.bpf.c", "ringbuf", "beef", "key", {3}});
  doc.points.push_back(point_result_to_json(p, r, "beef", 9.5, 1'000'000'000));
  nlohmann::json j = nlohmann::json::parse(doc.to_json().dump(1));
  CHECK(j["schema"] == "bpfbench-results/2");
  CHECK(j["points"][0]["samples"].size() == 8);
  CHECK(j["points"][0]["samples"][1]["duration_s"].get<double>() == Approx(1.00001));
  CHECK(j["programs"][0]["sha256"] == "beef");

  auto rs = results_from_json(j);
  REQUIRE(rs);
  CHECK(rs->file_sha256 == "f00d");
  CHECK(environment_differences(rs->env, doc.env).empty());
  REQUIRE(rs->points.size() == 1);
  const ResultPoint &rp = rs->points[0];
  CHECK(rp.label == "rb-25");
  CHECK(rp.params["sample_rate"] == 25);
  CHECK(rp.status == "ok");
  CHECK(rp.program_sha256 == "beef");
  CHECK(rp.precision_pct == 1);
  CHECK(rp.precision_reached);
  CHECK(rp.nsamples == 8);
  const MetricSummary *m = rp.metric("hits");
  const MetricSummary *orig = r.summary.find("hits");
  REQUIRE(m);
  CHECK(m->mean == Approx(orig->mean));
  CHECK(m->stddev == Approx(orig->stddev));
  CHECK(m->ci95 == Approx(orig->ci95));
  CHECK(m->values == orig->values);

  std::string err = test::expect_error(results_from_json(nlohmann::json{{"schema", "other/1"}}));
  CHECK(err.find("bpfbench-results/1") != std::string::npos);
}

TEST_CASE("CSV and Markdown tables", "[results]") {
  ResultSet rs = result_set({{"rb-1", 1, 10.0, 0.01, 1}, {"rb,2", 2, 20.0, 0.01, 2}});
  std::string csv = results_to_csv(rs);
  CHECK(csv.rfind("suite,label,family,program,params,status,metric,", 0) == 0);
  CHECK(csv.find("sweep,rb-1,ringbuf,reserve_commit,sample_rate=1,ok,hits,M/s,10,") != std::string::npos);
  CHECK(csv.find("\"rb,2\"") != std::string::npos);  // quoted
  std::string md = results_to_markdown(rs);
  CHECK(md.find("## sweep") != std::string::npos);
  CHECK(md.find("| rb-1 | hits (M/s) |") != std::string::npos);
}

TEST_CASE("atomic write: a SIGKILL mid-write never leaves a torn file", "[results][atomic]") {
  TempDir dir;
  std::string path = (dir.path / "out.json").string();
  const std::string a(4 << 20, 'a'), b(4 << 20, 'b');
  for (int round = 0; round < 8; ++round) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      for (int i = 0;; ++i) (void)write_file_atomic(path, i % 2 ? a : b);  // killed mid-write: never checked
    }
    usleep(static_cast<useconds_t>(3000 + round * 7000));
    kill(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    if (!fs::exists(path)) continue;
    std::ifstream in(path, std::ios::binary);
    std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK((got == a || got == b));
  }
  std::string missing = (dir.path / "no/such/dir/x").string();
  CHECK(test::expect_error(write_file_atomic(missing, "x")).find("cannot write " + missing + ": cannot create") == 0);
}

TEST_CASE("compare: a 20% regression is found, 0.5% jitter is no change", "[compare]") {
  ResultSet before =
      result_set({{"rb-1", 1, 10.0, 0.005, 1}, {"rb-2", 2, 20.0, 0.005, 2}, {"rb-3", 3, 30.0, 0.005, 3}});
  ResultSet after =
      result_set({{"rb-1", 1, 8.0, 0.005, 4}, {"rb-2", 2, 20.0, 0.005, 5}, {"rb-4", 4, 1.0, 0.005, 6}}, "6.19.0");
  CompareReport c = compare_results(before, after, CompareOptions{});
  REQUIRE(c.points.size() == 2);
  CHECK(c.points[0].label == "rb-1");
  CHECK(c.points[0].verdict == Verdict::Slower);
  CHECK(c.points[0].change_pct == Approx(-20).margin(1));
  CHECK(c.points[0].change_ci_low < c.points[0].change_pct);
  CHECK(c.points[0].change_ci_high > c.points[0].change_pct);
  CHECK(c.points[0].p_value < 1e-6);
  CHECK(c.points[1].verdict == Verdict::NoChange);
  CHECK(c.points[0].notes.empty());  // same program hash
  CHECK(c.worst_regression_pct() == Approx(20).margin(1));
  CHECK(c.only_a == std::vector<std::string>{"rb-3"});
  CHECK(c.only_b == std::vector<std::string>{"rb-4"});
  REQUIRE(c.geomeans.size() == 1);
  CHECK(c.geomeans[0].speed_change_pct == Approx((std::sqrt(0.8) - 1) * 100).margin(1));
  REQUIRE_FALSE(c.env_diffs.empty());
  CHECK(c.env_diffs[0] == "kernel_release: 6.18.0 -> 6.19.0");
  std::string text = compare_to_text(c);
  CHECK(text.find("slower") != std::string::npos);
  CHECK(text.find("no change") != std::string::npos);
  CHECK(compare_to_json(c)["points"][0]["verdict"] == "slower");
  CHECK(compare_to_markdown(c).find("| **geomean** (2 points)") != std::string::npos);

  // Latency: lower is better, so a 20% drop is "faster".
  CHECK_FALSE(default_higher_is_better("latency", "ns/op"));
  CHECK(default_higher_is_better("hits", "M/s"));
}

TEST_CASE("compare: one sample a side is no test and no verdict, not 'no change'", "[compare]") {
  ResultSet before = result_set({{"rb-1", 1, 10.0, 0.005, 1}, {"rb-2", 2, 20.0, 0.005, 2}}, "6.18.0", 1);
  ResultSet after = result_set({{"rb-1", 1, 8.0, 0.005, 4}, {"rb-2", 2, 20.0, 0.005, 5}}, "6.18.0", 1);
  CompareReport c = compare_results(before, after, CompareOptions{});
  REQUIRE(c.points.size() == 2);
  for (const auto &p : c.points) {
    INFO(p.label);
    CHECK(p.verdict == Verdict::NotComparable);
    CHECK(std::find(p.notes.begin(), p.notes.end(), "fewer than 2 samples: no test, no verdict") != p.notes.end());
  }
  CHECK(c.points[0].change_pct == Approx(-20).margin(1));  // the change is kept, only not judged
  CHECK(c.worst_regression_pct() == 0);
  CHECK(compare_to_text(c).find("no change") == std::string::npos);
}

TEST_CASE("plot: one chart per suite, log x for a geometric sweep", "[plot]") {
  ResultSet rs = result_set({{"rb-1", 1, 10.0, 0.01, 1}, {"rb-10", 10, 9.0, 0.01, 2}, {"rb-1000", 1000, 5.0, 0.01, 3}});
  auto charts = plot_charts({&rs}, {""});
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].xlabel == "sample_rate");
  CHECK(charts[0].logx);
  REQUIRE(charts[0].series.size() == 1);
  CHECK(charts[0].series[0].x == std::vector<double>{1, 10, 1000});
  auto overlay = plot_charts({&rs, &rs}, {"A", "B"});
  REQUIRE(overlay[0].series.size() == 2);
  CHECK(overlay[0].series[1].title == "hits (B)");
  std::string script = gnuplot_script(charts, "/tmp/x.svg");
  CHECK(script.find("set terminal svg dynamic noenhanced") != std::string::npos);
  CHECK(script.find("set logscale x") != std::string::npos);
  CHECK(script.find("with yerrorlines") != std::string::npos);
}

TEST_CASE("bpfbench compare and plot on result files", "[cli][compare][plot]") {
  TempDir dir;
  auto write = [&](const std::string &name, double mean, unsigned seed) {
    ResultsDoc doc;
    doc.file = "x.bdsl";
    for (int i = 0; i < 3; ++i) {
      int64_t rate = i == 0 ? 1 : i == 1 ? 10 : 100;
      doc.points.push_back(point_result_to_json(plan_point(size_t(i), "rb-" + std::to_string(rate), rate),
                                                synthetic(mean / (i + 1), 0.005, 10, seed + unsigned(i)), "", 1,
                                                1'000'000'000));
    }
    std::string path = (dir.path / name).string();
    REQUIRE(write_file_atomic(path, doc.to_json().dump()));
    return path;
  };
  std::string a = write("a.json", 10, 1), b = write("b.json", 8, 11);
  auto same = bpfbench::test::run_process({BPFBENCH_BINARY, "compare", a, a, "--fail-on-regression", "5%"});
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("no change") != std::string::npos);
  auto reg = bpfbench::test::run_process({BPFBENCH_BINARY, "compare", a, b, "--fail-on-regression", "5%"});
  CHECK(reg.exit_code == 1);
  CHECK(reg.out.find("slower") != std::string::npos);
  CHECK(reg.err.find("regression") != std::string::npos);
  auto md = bpfbench::test::run_process({BPFBENCH_BINARY, "compare", a, b, "--format", "json"});
  CHECK(md.exit_code == 0);
  CHECK(nlohmann::json::parse(md.out)["schema"] == "bpfbench-compare/1");
  auto bad = bpfbench::test::run_process({BPFBENCH_BINARY, "compare", a, "/nonexistent.json"});
  CHECK(bad.exit_code == 2);
  // --normalize needs both calibrations: a file without one is bad input, not a ratio of 1.
  auto norm = bpfbench::test::run_process({BPFBENCH_BINARY, "compare", a, b, "--normalize"});
  CHECK(norm.exit_code == 2);
  CHECK(norm.err.find("--normalize: " + a + " has no calibration") != std::string::npos);

  std::string svg = (dir.path / "p.svg").string();
  auto plot = bpfbench::test::run_process({BPFBENCH_BINARY, "plot", a, b, "-o", svg});
  if (plot.err.find("gnuplot, which is not installed") != std::string::npos) {
    CHECK(plot.exit_code == 2);  // the documented behaviour without gnuplot
  } else {
    CHECK(plot.exit_code == 0);
    std::ifstream in(svg);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("<svg") != std::string::npos);
  }
}

namespace {

// A results file of `sweep` points ("rb-1", "rb-2") whose sample_rate is `rate_of(i)`.
std::string write_results(const fs::path &dir, const std::string &name, double mean, int64_t rate_offset) {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  for (int i = 0; i < 2; ++i) {
    PlanPoint p = plan_point(size_t(i), "rb-" + std::to_string(i + 1), i + 1 + rate_offset);
    doc.points.push_back(point_result_to_json(p, synthetic(mean, 0.005, 10, unsigned(i) + 3), "", 1, 1'000'000'000));
  }
  std::string path = (dir / name).string();
  REQUIRE(write_file_atomic(path, doc.to_json().dump()));
  return path;
}

}  // namespace

TEST_CASE("compare --match label pairs points whose params changed", "[compare]") {
  ResultSet before = result_set({{"rb-1", 1, 10.0, 0.005, 1}, {"rb-2", 2, 20.0, 0.005, 2}});
  ResultSet after = result_set({{"rb-1", 5, 8.0, 0.005, 4}, {"rb-2", 2, 20.0, 0.005, 5}});
  CompareReport by_params = compare_results(before, after, CompareOptions{});
  REQUIRE(by_params.points.size() == 1);  // rb-1's sample_rate changed: only rb-2 pairs
  CHECK(by_params.points[0].param_diffs.empty());
  CompareOptions o;
  o.match_by_label = true;
  CompareReport c = compare_results(before, after, o);
  REQUIRE(c.points.size() == 2);
  CHECK(c.only_a.empty());
  CHECK(c.only_b.empty());
  CHECK(c.points[0].param_diffs == std::vector<std::string>{"sample_rate: 1 -> 5"});
  CHECK(c.points[0].verdict == Verdict::Slower);
  CHECK(c.points[1].param_diffs.empty());
  CHECK(compare_to_text(c).find("params differ: sample_rate: 1 -> 5") != std::string::npos);
  CHECK(compare_to_json(c)["points"][0]["param_differences"][0] == "sample_rate: 1 -> 5");
  CHECK(param_differences({{"a", 1}}, {{"b", "x"}}) == std::vector<std::string>{"a: 1 -> (none)", "b: (none) -> x"});
  const PointComparison *w = c.worst_regression();
  REQUIRE(w);
  CHECK(w->label == "rb-1");
  CHECK(regression_message("sweep", "rb-1", 20, 5, 1) ==
        "regression: point 'rb-1' (suite 'sweep') is 20.00% slower (limit 5%); 1 other point is over the limit");
}

TEST_CASE("bpfbench compare --match label and the regression's point", "[cli][compare]") {
  TempDir dir;
  std::string a = write_results(dir.path, "a.json", 10, 0), b = write_results(dir.path, "b.json", 8, 100);
  auto none = bpfbench::test::run_process({BPFBENCH_BINARY, "compare", a, b});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("by suite, label and params") != std::string::npos);
  CHECK(none.err.find("hint: 2 points pair up by suite and label but not by params; --match label") !=
        std::string::npos);
  auto by_label =
      bpfbench::test::run_process({BPFBENCH_BINARY, "compare", a, b, "--match", "label", "--fail-on-regression", "5"});
  CHECK(by_label.exit_code == 1);
  CHECK(by_label.out.find("params differ: sample_rate: 1 -> 101") != std::string::npos);
  CHECK(by_label.out.find("params differ: sample_rate: 2 -> 102") != std::string::npos);
  // Both points are 20% slower: the message names one (label and suite) and counts the other.
  CHECK(by_label.err.find("bpfbench: regression: point 'rb-") != std::string::npos);
  CHECK(by_label.err.find("(suite 'sweep') is ") != std::string::npos);
  CHECK(by_label.err.find("slower (limit 5%); 1 other point is over the limit") != std::string::npos);
  auto bad = bpfbench::test::run_process({BPFBENCH_BINARY, "compare", a, b, "--match", "labels"});
  CHECK(bad.exit_code == 2);
}
