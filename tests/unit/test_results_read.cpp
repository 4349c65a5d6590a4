// Results files come from other people: the reader refuses every bad value with its JSON
// path (runtime/results_read.cpp); compare and plot then exit 2 instead of printing 0s.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "util/escape.hpp"
#include "metric_support.hpp"
#include "results/compare.hpp"
#include "results/plot.hpp"
#include "results/report_tables.hpp"
#include "results/results.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "result_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;

namespace {

// A valid document of `n` points with hits and latency, through JSON text.
nlohmann::json valid_doc(size_t n = 2, uint64_t hits_per_s = 5'000'000) {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  for (size_t i = 0; i < n; ++i) {
    PlanPoint p;
    p.index = i;
    p.suite = "s";
    p.family = "trigger";
    p.label = "p" + std::to_string(i);
    ParamValue v;
    v.is_int = true;
    v.i = int64_t(i + 1);
    p.params.emplace_back("batch", v);
    PointResult r;
    r.report = {"hits", "latency"};
    for (int k = 0; k < 4; ++k) {
      Sample s;
      s.duration_s = 1;
      s.deltas["hits"] = hits_per_s ? hits_per_s + uint64_t(k) * 1000 : 0;
      r.samples.push_back(s);
    }
    r.summary = summarize(r.samples, {test::counter_metric("hits", "hits", "events")}, 1, r.report);
    doc.points.push_back(point_result_to_json(p, r, "", 4, 1'000'000'000));
  }
  return nlohmann::json::parse(json_text(doc.to_json()));
}

std::string read_error(const nlohmann::json &j) {
  return test::expect_error(results_from_text(json_text(j), "b.json"));
}

using bpfbench::test::TempDir;

}  // namespace

TEST_CASE("results reader: a valid file reads back", "[results][read]") {
  auto rs = results_from_text(json_text(valid_doc()), "a.json");
  INFO(test::error_text(rs));
  REQUIRE(rs);
  REQUIRE(rs->points.size() == 2);
  CHECK(rs->points[1].metric("hits")->mean > 4.9);
  CHECK(rs->points[1].metric("latency")->has_value());
}

TEST_CASE("results reader: every bad value is named by its JSON path", "[results][read]") {
  nlohmann::json j = valid_doc();
  auto with = [&](auto edit) {
    nlohmann::json k = j;
    edit(k);
    return read_error(k);
  };
  CHECK(with([](auto &k) { k["points"][1]["stats"]["hits"]["mean"] = "fast"; }) ==
        "b.json: points[1].stats.hits.mean: expected a number, got a string");
  CHECK(with([](auto &k) { k["points"][0]["stats"]["hits"]["mean"] = nullptr; }) ==
        "b.json: points[0].stats.hits.mean: expected a number, got null");
  CHECK(with([](auto &k) { k["points"][0]["stats"]["hits"].erase("mean"); }) ==
        "b.json: points[0].stats.hits.mean: missing");
  CHECK(with([](auto &k) { k["points"][0].erase("label"); }) == "b.json: points[0].label: missing");
  CHECK(with([](auto &k) { k["points"][0]["label"] = 7; }) ==
        "b.json: points[0].label: expected a string, got a number");
  CHECK(with([](auto &k) { k["points"][0]["stats"]["hits"]["n"] = 1e300; }) ==
        "b.json: points[0].stats.hits.n: expected a count (a whole number), got a number");
  CHECK(with([](auto &k) { k["points"][0]["stats"]["hits"]["n"] = -3; }) ==
        "b.json: points[0].stats.hits.n: expected a count, got a negative number");
  CHECK(with([](auto &k) { k["points"][0]["stats"]["hits"]["values"][2] = "x"; }) ==
        "b.json: points[0].stats.hits.values[2]: expected a number, got a string");
  CHECK(with([](auto &k) { k["points"][0]["stats"]["hits"]["stddev"] = -1; }) ==
        "b.json: points[0].stats.hits.stddev: expected a number >= 0");
  CHECK(with([](auto &k) { k["points"][0]["params"]["batch"] = nlohmann::json::array({1}); }) ==
        "b.json: points[0].params.batch: expected a number or a string, got an array");
  CHECK(with([](auto &k) { k["points"][0]["status"] = "great"; }).find("points[0].status: unknown status 'great'") !=
        std::string::npos);
  CHECK(with([](auto &k) { k["points"] = nlohmann::json::object(); }) ==
        "b.json: points: expected an array, got an object");
  CHECK(with([](auto &k) { k["points"][0] = 1; }) == "b.json: points[0]: expected an object, got a number");
  CHECK(with([](auto &k) { k["points"][0]["stats"] = "x"; }) ==
        "b.json: points[0].stats: expected an object, got a string");
  CHECK(with([](auto &k) { k["environment"]["nr_cpus"] = "two"; }) ==
        "b.json: environment.nr_cpus: expected a count (a whole number), got a string");
  CHECK(with([](auto &k) { k["environment"]["vm"]["kernel"] = nlohmann::json::array(); }) ==
        "b.json: environment.vm.kernel: expected a string, got an array");
  CHECK(with([](auto &k) { k["environment"]["cpu_model"] = nlohmann::json::object(); }) ==
        "b.json: environment.cpu_model: expected a string, got an object");
  // A guest run's file (run --kernel) has the vm block in its environment: it reads.
  nlohmann::json guest = j;
  guest["environment"]["vm"] = {{"kernel", "6.1.0-57-amd64"}, {"accel", "tcg"}, {"emulated", true}};
  CHECK(test::error_text(results_from_text(json_text(guest), "g.json")) == "");
  CHECK(with([](auto &k) { k["complete"] = 1; }) == "b.json: complete: expected true or false, got a number");
  CHECK(read_error(nlohmann::json::array()) == "b.json: (top level): expected an object, got an array");
  CHECK(with([](auto &k) { k["schema"] = "x/1"; }).find("not a bpfbench results file") != std::string::npos);
}

TEST_CASE("results reader: text that is not JSON, numbers JSON cannot hold", "[results][read]") {
  std::string err;
  for (std::string text : {std::string("{\"schema\": \n  nope}"), std::string("{\"a\": \"\xff\"}"), std::string(""),
                           std::string(100000, '['), std::string("{\"schema\":\"bpfbench-results/1\",\"n\":1e999}")}) {
    CAPTURE(text.substr(0, 40));
    err = test::expect_error(results_from_text(text, "b.json"));
    CHECK(err.rfind("b.json", 0) == 0);
    CHECK(err.find("json.exception") == std::string::npos);
    CHECK(printable_text(err) == err);  // the bad bytes are not echoed raw
  }
  err = test::expect_error(results_from_text("{\"schema\": \n  nope}", "b.json"));
  CHECK(err == "b.json:2:4: not valid JSON: syntax error while parsing value - invalid literal");
  // The file's own bytes are not echoed (found by fuzz_results: a file holding the text
  // "json.exception" made the message look like an internal error).
  err = test::expect_error(results_from_text("{\"a\": [json.exception.type_error.316]}", "b.json"));
  CHECK(err.find("json.exception") == std::string::npos);
  err = test::expect_error(results_from_text("{\"schema\":\"bpfbench-results/1\",\"n\":1e999}", "b.json"));
  CHECK(err == "b.json: not valid JSON: number overflow parsing '1e999'");
  // A document built in memory can hold what text cannot: refused where it sits.
  nlohmann::json j = valid_doc();
  j["points"][0]["stats"]["hits"]["ci95"] = std::numeric_limits<double>::infinity();
  err = test::expect_error(results_from_json(j));
  CHECK(err == "points[0].stats.hits.ci95: expected a finite number");
  j["points"][0]["stats"]["hits"]["ci95"] = std::numeric_limits<double>::quiet_NaN();
  err = test::expect_error(results_from_json(j));
  CHECK(err == "points[0].stats.hits.ci95: expected a finite number");
}

TEST_CASE("results reader: a metric with no value is null with a reason", "[results][read][novalue]") {
  nlohmann::json j = valid_doc(1, 0);  // nothing counted: latency has no value
  const nlohmann::json &lat = j["points"][0]["stats"]["latency"];
  CHECK(lat["mean"].is_null());
  CHECK(lat["no_value"].get<std::string>().find("no hits counted") != std::string::npos);
  auto rs = results_from_text(json_text(j), "a.json");
  REQUIRE(rs);
  const MetricSummary *m = rs->points[0].metric("latency");
  REQUIRE(m);
  CHECK_FALSE(m->has_value());
  CHECK(results_to_markdown(*rs).find("| p0 | hits (M/s) | 0.000 |") != std::string::npos);
  std::string csv = results_to_csv(*rs);
  INFO(csv);
  CHECK(csv.find("latency,ns/op,4,,,,,,,,,,no value: no hits counted (latency") != std::string::npos);
  // compare: a note, not a verdict on 0.
  CompareOptions o;
  o.metric = "latency";
  CompareReport c = compare_results(*rs, *rs, o);
  REQUIRE(c.points.size() == 1);
  CHECK(c.points[0].verdict == Verdict::NotComparable);
  CHECK(compare_to_text(c).find("no latency in A: no hits counted") != std::string::npos);
}

TEST_CASE("bpfbench compare/plot: bad files, unknown metric, NaN thresholds exit 2", "[cli][compare][read]") {
  TempDir dir;
  nlohmann::json j = valid_doc();
  std::string a = dir.write("a.json", json_text(j));
  j["points"][1]["stats"]["hits"]["mean"] = "fast";
  std::string b = dir.write("b.json", json_text(j));
  auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), BPFBENCH_BINARY);
    return bpfbench::test::run_process(args);
  };
  auto r = run({"compare", a, b});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: " + b + ": points[1].stats.hits.mean: expected a number, got a string\n");
  r = run({"plot", b, "-o", (dir.path / "p.svg").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("points[1].stats.hits.mean: expected a number, got a string") != std::string::npos);
  r = run({"compare", a, a, "--metric", "hitz"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown metric 'hitz' for --metric (" + a + " has: hits, latency, total_ops)") !=
        std::string::npos);
  for (const char *bad : {"nan", "-1", "inf"}) {
    CAPTURE(bad);
    CHECK(run({"compare", a, a, "--threshold", bad}).exit_code == 2);
    CHECK(run({"compare", a, a, "--alpha", bad}).exit_code == 2);
    CHECK(run({"compare", a, a, "--fail-on-regression", bad}).exit_code == 2);
  }
  CHECK(run({"compare", a, a, "--threshold", "2", "--alpha", "0.01"}).exit_code == 0);
}
