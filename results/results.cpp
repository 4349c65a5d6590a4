#include "results/results.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>

#include "compiler/bdsl/plan_dump.hpp"
#include "results/expectations.hpp"

namespace bpfbench {

namespace {

nlohmann::json sample_to_json(const Sample &s) { return {{"duration_s", s.duration_s}, {"deltas", s.deltas}}; }

nlohmann::json metric_to_json(const MetricSummary &m) {
  nlohmann::json j = {{"unit", m.unit},         {"n", m.n},
                      {"mean", m.mean},         {"stddev", m.stddev},
                      {"median", m.median},     {"min", m.min},
                      {"max", m.max},           {"cv", m.cv},
                      {"ci95", m.ci95},         {"ci95_rel", m.rel_ci()},
                      {"per_prod", m.per_prod}, {"outliers", m.outliers},
                      {"values", m.values}};
  if (!m.round_means.empty()) j["round_means"] = m.round_means;
  // Written only when the family overrides the default rule, which readers apply.
  if (m.higher_is_better != default_higher_is_better(m.name, m.unit))
    j["better"] = m.higher_is_better ? "higher" : "lower";
  if (!m.has_value()) j["no_value"] = m.no_value;  // the numbers above are null
  return j;
}

nlohmann::json self_checks_to_json(const std::vector<SelfCheck> &checks) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto &c : checks)
    a.push_back(
        {{"name", c.name}, {"expected", c.expected}, {"observed", c.observed}, {"ok", c.ok}, {"detail", c.detail}});
  return a;
}

}  // namespace

nlohmann::json point_result_to_json(const PlanPoint &p, const PointResult &r, const std::string &program_sha256,
                                    double elapsed_s, int64_t interval_ns) {
  nlohmann::json warm = nlohmann::json::array(), samples = nlohmann::json::array();
  for (const auto &s : r.warmup) warm.push_back(sample_to_json(s));
  if (r.round_sizes.empty()) {
    for (const auto &s : r.samples) samples.push_back(sample_to_json(s));
  } else {  // rounds: the samples are the rounds one after another; each says which it is in
    size_t k = 0;
    for (size_t round = 0; round < r.round_sizes.size(); ++round)
      for (size_t j = 0; j < r.round_sizes[round] && k < r.samples.size(); ++j, ++k) {
        nlohmann::json sj = sample_to_json(r.samples[k]);
        sj["round"] = round;
        samples.push_back(std::move(sj));
      }
  }
  nlohmann::json stats = nlohmann::json::object();
  for (const auto &m : r.summary.metrics) stats[m.name] = metric_to_json(m);
  nlohmann::json j = point_identity_json(p);
  j.update({
      {"report", r.report},
      {"producers", r.producers},
      {"status", to_string(r.status)},
      {"reason", r.reason},
      {"program_sha256", program_sha256},
      {"interval_ns", interval_ns},
      {"elapsed_s", elapsed_s},
      {"warmup", warm},
      {"samples", samples},
      {"primary", r.summary.primary},
      {"stats", stats},
      {"warnings", r.summary.warnings},
  });
  j["rounds"] = std::max<size_t>(1, r.round_sizes.size());
  j["adaptive"] = r.precision_pct > 0 ? nlohmann::json{{"ci_target_pct", r.precision_pct},
                                                       {"reached", r.precision_reached},
                                                       {"samples", r.samples.size()}}
                                      : nlohmann::json(nullptr);
  if (r.precision_pct > 0 && !r.precision_note.empty()) j["adaptive"]["note"] = r.precision_note;
  // `expect` results (results/expectations.hpp): a failed one marks the point FAILED.
  j["expectations"] = expectations_to_json(r.expectations);
  j["expectations_failed"] = !all_passed(r.expectations);
  // Two counts of the same events that must agree (a failed one fails the point).
  j["self_checks"] = self_checks_to_json(r.self_checks);
  // What the programs cost in the kernel, and the verifier's and JIT's facts of each.
  j["prog_stats"] = prog_stats_to_json(r.prog_stats);
  j["prog_facts"] = prog_facts_to_json(r.prog_facts);
  // Written only when there is one: a template's latency histogram, --profile, --hw-counters.
  if (r.latency_hist) j["latency_hist"] = histogram_to_json(*r.latency_hist);
  if (r.profile) j["profile"] = profile_to_json(*r.profile);
  if (r.hw_counters) j["hw_counters"] = hw_to_json(*r.hw_counters);
  if (r.batch_timing) j["batch_timing"] = batch_timing_to_json(*r.batch_timing);
  // What ran beside it (other bpfbench processes, busy CPUs, foreign programs on its hooks).
  if (r.interference) j["interference"] = interference_to_json(*r.interference);
  if (r.error)
    j["error"] = {{"phase", to_string(r.error->phase)},
                  {"errno", r.error->err},
                  {"message", r.error->message},
                  {"log_tail", r.error->log_tail}};
  return j;
}

nlohmann::json ResultsDoc::to_json() const {
  nlohmann::json progs = nlohmann::json::array();
  for (const auto &p : programs)
    progs.push_back({{"name", p.name},
                     {"family", p.family},
                     {"sha256", p.sha256},
                     {"cache_key", p.cache_key},
                     {"points", p.points}});
  nlohmann::json j = {{"schema", kResultsSchema},
                      {"file", file},
                      {"file_sha256", file_sha256},
                      {"started", started},
                      {"complete", complete},
                      {"interrupted", interrupted},
                      {"environment", environment_to_json(env)},
                      {"plan", plan},
                      {"programs", progs},
                      {"points", points}};
  if (!doctor.is_null()) j["doctor"] = doctor;
  if (calibration) j["calibration"] = calibration_to_json(*calibration);
  return j;
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace bpfbench
