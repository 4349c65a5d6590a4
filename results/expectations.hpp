// `expect` judged after a point ran: each PlanExpectation against the summary mean.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compiler/bdsl/plan.hpp"
#include "results/stats.hpp"

namespace bpfbench {

struct ExpectationResult {
  PlanExpectation expect;
  bool measured = false;  // the summary holds the metric
  std::string no_value;   // it has no value (MetricSummary::no_value): the expectation fails
  double actual = 0;      // its mean, in expect.unit
  bool passed = false;
};

// Every expectation of the point against `summary` (a missing metric fails).
std::vector<ExpectationResult> evaluate_expectations(const std::vector<PlanExpectation> &expect,
                                                     const Summary &summary);

bool all_passed(const std::vector<ExpectationResult> &results);

// One line per failed expectation: "<label>: FAILED: expect hits > 0 (hits = 0.000 M/s)
// at <where(range)>".
std::string format_failed_expectations(const std::string &label, const std::vector<ExpectationResult> &results,
                                       const std::function<std::string(const SourceRange &)> &where);

// For JSON exports: [{"expect": "hits > 0", "metric", "op", "value", "unit", "actual",
// "measured", "passed"}].
nlohmann::json expectations_to_json(const std::vector<ExpectationResult> &results);

}  // namespace bpfbench
