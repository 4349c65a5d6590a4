#include "results/results.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>

#include "compiler/input_file.hpp"
#include "results/expectations.hpp"

namespace bpfbench {

namespace {

nlohmann::json sample_to_json(const Sample &s) {
  return {{"duration_s", s.duration_s}, {"deltas", s.deltas}};
}

nlohmann::json metric_to_json(const MetricSummary &m) {
  nlohmann::json j = {{"unit", m.unit},       {"n", m.n},           {"mean", m.mean},
                      {"stddev", m.stddev},   {"median", m.median}, {"min", m.min},
                      {"max", m.max},         {"cv", m.cv},         {"ci95", m.ci95},
                      {"ci95_rel", m.rel_ci()}, {"per_prod", m.per_prod}, {"outliers", m.outliers},
                      {"values", m.values}};
  if (!m.round_means.empty()) j["round_means"] = m.round_means;
  // Written only when the family overrides the default rule, which readers apply.
  if (m.higher_is_better != default_higher_is_better(m.name, m.unit))
    j["better"] = m.higher_is_better ? "higher" : "lower";
  return j;
}

template <typename T>
T get_or(const nlohmann::json &j, const char *key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception &) {
    return fallback;
  }
}

MetricSummary metric_from_json(const std::string &name, const nlohmann::json &j) {
  MetricSummary m;
  m.name = name;
  m.unit = get_or<std::string>(j, "unit", "");
  m.n = get_or<size_t>(j, "n", 0);
  m.mean = get_or<double>(j, "mean", 0);
  m.stddev = get_or<double>(j, "stddev", 0);
  m.median = get_or<double>(j, "median", 0);
  m.min = get_or<double>(j, "min", 0);
  m.max = get_or<double>(j, "max", 0);
  m.cv = get_or<double>(j, "cv", 0);
  m.ci95 = get_or<double>(j, "ci95", 0);
  m.per_prod = get_or<double>(j, "per_prod", 0);
  m.outliers = get_or<std::vector<size_t>>(j, "outliers", {});
  m.values = get_or<std::vector<double>>(j, "values", {});
  m.round_means = get_or<std::vector<double>>(j, "round_means", {});
  const std::string better = get_or<std::string>(j, "better", "");
  m.higher_is_better = better.empty() ? default_higher_is_better(m.name, m.unit) : better == "higher";
  return m;
}

}  // namespace

nlohmann::json point_result_to_json(const PlanPoint &p, const PointResult &r,
                                    const std::string &program_sha256, double elapsed_s,
                                    int64_t interval_ns) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto &[name, v] : p.params) {
    if (v.is_int) params[name] = v.i;
    else params[name] = v.s;
  }
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
  nlohmann::json j = {
      {"index", p.index},         {"label", p.label},
      {"suite", p.suite},         {"family", p.family},
      {"program", p.program},     {"params", params},
      {"report", r.report},       {"producers", r.producers},
      {"status", to_string(r.status)}, {"reason", r.reason},
      {"program_sha256", program_sha256}, {"interval_ns", interval_ns},
      {"elapsed_s", elapsed_s},   {"warmup", warm},
      {"samples", samples},       {"primary", r.summary.primary},
      {"stats", stats},           {"warnings", r.summary.warnings},
  };
  j["rounds"] = std::max<size_t>(1, r.round_sizes.size());
  j["adaptive"] = r.precision_pct > 0
                      ? nlohmann::json{{"ci_target_pct", r.precision_pct},
                                       {"reached", r.precision_reached},
                                       {"samples", r.samples.size()}}
                      : nlohmann::json(nullptr);
  // `expect` results (results/expectations.hpp): a failed one marks the point FAILED.
  j["expectations"] = expectations_to_json(r.expectations);
  j["expectations_failed"] = !all_passed(r.expectations);
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
    progs.push_back({{"name", p.name}, {"family", p.family}, {"sha256", p.sha256},
                     {"cache_key", p.cache_key}, {"points", p.points}});
  return {{"schema", kResultsSchema},
          {"file", file},
          {"file_sha256", file_sha256},
          {"started", started},
          {"complete", complete},
          {"interrupted", interrupted},
          {"environment", environment_to_json(env)},
          {"plan", plan},
          {"programs", progs},
          {"points", points}};
}

const MetricSummary *ResultPoint::metric(const std::string &name) const {
  for (const auto &m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string ResultPoint::key() const { return suite + "\x1f" + label + "\x1f" + params.dump(); }

std::optional<ResultSet> results_from_json(const nlohmann::json &j, std::string &err) {
  if (!j.is_object() || get_or<std::string>(j, "schema", "") != kResultsSchema) {
    err = std::string("not a bpfbench results file (expected \"schema\": \"") + kResultsSchema + "\")";
    return std::nullopt;
  }
  ResultSet rs;
  rs.file = get_or<std::string>(j, "file", "");
  rs.file_sha256 = get_or<std::string>(j, "file_sha256", "");
  rs.complete = get_or<bool>(j, "complete", false);
  rs.env = environment_from_json(j.value("environment", nlohmann::json::object()));
  rs.plan = j.value("plan", nlohmann::json::object());
  auto pts = j.find("points");
  if (pts == j.end() || !pts->is_array()) {
    err = "results file has no \"points\" array";
    return std::nullopt;
  }
  for (const auto &pj : *pts) {
    if (!pj.is_object() || !pj.contains("label")) {
      err = "a point has no label";
      return std::nullopt;
    }
    ResultPoint p;
    p.index = get_or<size_t>(pj, "index", 0);
    p.label = get_or<std::string>(pj, "label", "");
    p.suite = get_or<std::string>(pj, "suite", "");
    p.family = get_or<std::string>(pj, "family", "");
    p.program = get_or<std::string>(pj, "program", "");
    p.status = get_or<std::string>(pj, "status", "");
    p.reason = get_or<std::string>(pj, "reason", "");
    p.program_sha256 = get_or<std::string>(pj, "program_sha256", "");
    p.params = pj.value("params", nlohmann::json::object());
    p.report = get_or<std::vector<std::string>>(pj, "report", {});
    p.primary = get_or<std::string>(pj, "primary", "");
    p.warnings = get_or<std::vector<std::string>>(pj, "warnings", {});
    if (auto a = pj.find("adaptive"); a != pj.end() && a->is_object()) {
      p.precision_pct = get_or<double>(*a, "ci_target_pct", 0);
      p.precision_reached = get_or<bool>(*a, "reached", false);
    }
    if (auto s = pj.find("samples"); s != pj.end() && s->is_array()) p.nsamples = s->size();
    p.rounds = get_or<size_t>(pj, "rounds", 1);
    if (auto st = pj.find("stats"); st != pj.end() && st->is_object())
      for (const auto &[name, mj] : st->items()) p.metrics.push_back(metric_from_json(name, mj));
    rs.points.push_back(std::move(p));
  }
  return rs;
}

std::optional<ResultSet> load_results(const std::string &path, std::string &err) {
  auto in = read_input_file(path, kMaxTextInputBytes, err);
  if (!in) {
    err = "cannot read " + path + ": " + err;
    return std::nullopt;
  }
  nlohmann::json j = nlohmann::json::parse(in->data, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    err = path + ": not valid JSON";
    return std::nullopt;
  }
  auto rs = results_from_json(j, err);
  if (!rs) err = path + ": " + err;
  else rs->path = path;
  return rs;
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
