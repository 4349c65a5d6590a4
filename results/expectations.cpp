// Expectations compare the summary mean (the number the Summary line prints), so what
// the user reads and what is judged are the same value.
#include "results/expectations.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace bpfbench {

namespace {

bool compare(double a, const std::string &op, double b) {
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  if (op == "==") return a == b;
  if (op == "!=") return a != b;
  return false;
}

std::string with_unit(double v, const std::string &unit) {
  return unit == "M/s" ? fmt::format("{:.3f}M/s", v) : fmt::format("{:.3f}{}{}", v, unit.empty() ? "" : " ", unit);
}

}  // namespace

std::vector<ExpectationResult> evaluate_expectations(const std::vector<PlanExpectation> &expect,
                                                     const Summary &summary) {
  std::vector<ExpectationResult> out;
  for (const auto &e : expect) {
    ExpectationResult r;
    r.expect = e;
    if (const MetricSummary *m = summary.find(e.metric)) {
      r.measured = true;
      r.no_value = m->no_value;
      r.actual = m->mean;
      // No value is no evidence: it fails every comparison, `!=` included.
      r.passed = m->has_value() && compare(m->mean, e.op, e.value);
    }
    out.push_back(std::move(r));
  }
  return out;
}

bool all_passed(const std::vector<ExpectationResult> &results) {
  for (const auto &r : results)
    if (!r.passed) return false;
  return true;
}

std::string format_failed_expectations(const std::string &label, const std::vector<ExpectationResult> &results,
                                       const std::function<std::string(const SourceRange &)> &where) {
  std::string out;
  for (const auto &r : results) {
    if (r.passed) continue;
    std::string got = !r.measured ? fmt::format("{} was not measured", r.expect.metric)
                      : !r.no_value.empty()
                          ? fmt::format("{} = n/a: {}", r.expect.metric, r.no_value)
                          : fmt::format("{} = {}", r.expect.metric, with_unit(r.actual, r.expect.unit));
    out += fmt::format("{}: FAILED: expect {} ({})", label, r.expect.text, got);
    if (where) out += " at " + where(r.expect.range);
    out += '\n';
  }
  return out;
}

nlohmann::json expectations_to_json(const std::vector<ExpectationResult> &results) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto &r : results) {
    out.push_back({{"expect", r.expect.text},
                   {"metric", r.expect.metric},
                   {"op", r.expect.op},
                   {"value", r.expect.value},
                   {"unit", r.expect.unit},
                   {"measured", r.measured},
                   {"actual", r.no_value.empty() ? nlohmann::json(r.actual) : nlohmann::json(nullptr)},
                   {"passed", r.passed}});
    if (!r.no_value.empty()) out.back()["no_value"] = r.no_value;
  }
  return out;
}

}  // namespace bpfbench
