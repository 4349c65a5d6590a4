// The adaptive rule's note on a zero mean (a relative precision is undefined) in the
// summary line, the results JSON and the Markdown table.
#include <catch2/catch.hpp>

#include "metric_support.hpp"
#include "results/report_tables.hpp"
#include "results/report_text.hpp"
#include "results/results.hpp"
#include "result_support.hpp"

using namespace bpfbench;

TEST_CASE("adaptive: a zero-mean note reaches JSON, tables and the summary", "[results][adaptive]") {
  PlanPoint p;
  p.index = 0;
  p.suite = "s";
  p.family = "trigger";
  p.label = "never";
  PointResult r;
  r.report = {"hits"};
  for (int i = 0; i < 6; ++i) {
    Sample s;
    s.duration_s = 0.25;
    s.deltas["hits"] = 0;
    r.samples.push_back(s);
  }
  r.summary = summarize(r.samples, {test::counter_metric("hits", "hits", "events")}, 1, r.report);
  r.precision_pct = 2;
  const MetricSummary *hits = r.summary.find("hits");
  REQUIRE(hits);
  r.precision_note = precision_undefined(*hits);
  CHECK(format_summary(r).find("did not reach 2% (hits has a mean of 0: a relative precision is undefined for a "
                               "zero mean, stopped at the minimum)") != std::string::npos);
  ResultsDoc doc;
  doc.points.push_back(point_result_to_json(p, r, "", 1.5, 250'000'000));
  nlohmann::json j = nlohmann::json::parse(doc.to_json().dump());
  CHECK(j["points"][0]["adaptive"]["note"] == r.precision_note);
  CHECK(j["points"][0]["adaptive"]["reached"] == false);
  auto rs = results_from_json(j);
  REQUIRE(rs);
  CHECK(rs->points[0].precision_note == r.precision_note);
  CHECK(results_to_markdown(*rs).find("until ci &lt; 2%: not reached (hits has a mean of 0") != std::string::npos);
}
