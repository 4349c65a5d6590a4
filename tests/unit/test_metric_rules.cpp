// The metric rules of family.json (`reported`, `better`, `throughput`, `total_ops`): read
// at load, followed by the summary, kept in the results JSON, used by compare.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "compiler/family/manifest_json.hpp"
#include "results/compare.hpp"
#include "results/results.hpp"
#include "results/stats.hpp"
#include "result_support.hpp"

using namespace bpfbench;
namespace fs = std::filesystem;

namespace {

// Parses a family "fam" whose `metrics` array is `metrics`; `errors` gets the rendered text.
std::optional<FamilyManifest> load_metrics(const std::string &metrics, std::string &errors) {
  std::string tmpl = (fs::temp_directory_path() / "bb-metric-rules-XXXXXX").string();
  fs::path dir = fs::path(mkdtemp(tmpl.data())) / "fam";
  fs::create_directories(dir);
  std::ofstream(dir / "prog.bpf.c") << "int bench_x(void *ctx) { return 0; }\n";
  std::string json = R"({"family": "fam", "description": "d", "template": "prog.bpf.c",
    "programs": [{"name": "x", "function": "bench_x", "section": "?raw_tp"}],
    "metrics": )" + metrics +
                     "}";
  SourceManager sources;
  Diagnostics diags;
  auto f = parse_manifest((dir / "family.json").string(), json, sources, diags);
  errors = render_all(diags, sources);
  fs::remove_all(dir.parent_path());
  return f;
}

std::vector<Sample> samples(std::map<std::string, uint64_t> per_second, size_t n = 4) {
  std::vector<Sample> out;
  for (size_t i = 0; i < n; ++i) {
    Sample s;
    s.duration_s = 1.0;
    s.deltas = per_second;
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("the defaults reproduce hits/drops/latency as they always were", "[manifest][metrics]") {
  std::string errors;
  auto f = load_metrics(R"([{"name": "hits", "source": "counter:bb_hits"},
                            {"name": "drops", "source": "counter:bb_drops"},
                            {"name": "gp_latency", "source": "ratio:hits/drops", "unit": "us"}])",
                        errors);
  INFO(errors);
  REQUIRE(f);
  CHECK(f->throughput_metric() == f->metric("hits"));
  CHECK(f->derives_latency());
  CHECK(counts_in_total_ops(*f->metric("drops")));
  CHECK(report_of(*f->metric("gp_latency")) == MetricReport::AsIs);
  CHECK_FALSE(higher_is_better(*f->metric("gp_latency")));  // "latency" in the name
  Summary s = summarize(samples({{"hits", 2'000'000}, {"drops", 1'000'000}}), f->metrics, 2, {"gp_latency", "latency"});
  CHECK(s.find("total_ops")->mean == Approx(3.0));
  CHECK(s.find("latency")->mean == Approx(1000.0));  // 1000 / (2 M/s / 2 producers)
  CHECK(s.primary == "gp_latency");
}

TEST_CASE("throughput, total_ops, reported and better are manifest fields", "[manifest][metrics]") {
  std::string errors;
  auto f = load_metrics(R"([{"name": "hits", "source": "counter:bb_hits", "total_ops": false},
                            {"name": "ops", "source": "producer", "throughput": true, "total_ops": true},
                            {"name": "busy", "source": "counter:bb_busy", "better": "lower"},
                            {"name": "ticks", "source": "counter:bb_ticks", "reported": "as_is", "unit": "ticks/s"}])",
                        errors);
  INFO(errors);
  REQUIRE(f);
  CHECK(f->throughput_metric() == f->metric("ops"));
  CHECK_FALSE(is_throughput(*f->metric("hits")));  // one throughput metric: the declared one
  Summary s = summarize(samples({{"hits", 8'000'000}, {"ops", 4'000'000}, {"busy", 1'000'000}, {"ticks", 250}}),
                        f->metrics, 1, {"latency"});
  CHECK(s.find("total_ops")->mean == Approx(4.0));  // ops only
  CHECK(s.find("latency")->mean == Approx(250.0));  // 1000 / 4 M/s of ops
  CHECK(s.primary == "latency");
  CHECK(s.find("ticks")->mean == Approx(250.0));  // per second, as it is
  CHECK(s.find("ticks")->unit == "ticks/s");
  CHECK_FALSE(s.find("busy")->higher_is_better);
  CHECK(s.find("hits")->higher_is_better);

  // Kept in the results only where it differs from the default, and read back.
  PointResult r;
  r.report = {"busy"};
  r.samples = samples({{"busy", 1'000'000}});
  r.summary = s;
  PlanPoint p;
  p.label = "x";
  p.family = "fam";
  nlohmann::json j = point_result_to_json(p, r, "sha", 1.0, 1'000'000'000);
  CHECK(j["stats"]["busy"]["better"] == "lower");
  CHECK_FALSE(j["stats"]["hits"].contains("better"));
  ResultsDoc doc;
  doc.points.push_back(j);
  auto rs = results_from_json(nlohmann::json::parse(doc.to_json().dump()));
  INFO(test::error_text(rs));
  REQUIRE(rs);
  REQUIRE(rs->points.size() == 1);
  CHECK_FALSE(rs->points[0].metric("busy")->higher_is_better);
  CHECK(rs->points[0].metric("hits")->higher_is_better);
  CHECK_FALSE(rs->points[0].metric("latency")->higher_is_better);  // ns/op: the default rule
}

TEST_CASE("metric rule mistakes are located manifest errors", "[manifest][metrics]") {
  std::string errors;
  CHECK_FALSE(load_metrics(R"([{"name": "a", "source": "producer", "throughput": true},
                               {"name": "b", "source": "consumer", "throughput": true}])",
                           errors));
  CHECK(errors.find(":4:82-85: error: metric 'b': metric 'a' is the throughput metric already\n") != std::string::npos);
  CHECK_FALSE(load_metrics(R"([{"name": "a", "source": "producer"},
                               {"name": "r", "source": "ratio:a/a", "reported": "rate"}])",
                           errors));
  CHECK(errors.find("error: metric 'r': a ratio is reported as it is, not as a rate") != std::string::npos);
  CHECK_FALSE(load_metrics(R"([{"name": "a", "source": "producer", "better": "up"}])", errors));
  CHECK(errors.find("error: metric 'a': unknown direction 'up' (expected higher or lower)") != std::string::npos);
}
