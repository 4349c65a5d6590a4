// Reading a results file back (compare, plot): other people's files, so every value the
// tools use is checked once here, against the JSON path it sits at, into typed structs.
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "util/escape.hpp"
#include "compiler/family/kinds.hpp"
#include "results/results.hpp"
#include "results/results_read.hpp"

namespace bpfbench {

namespace {

// The first bad value: where it is ("points[3].stats.hits.mean") and what is wrong.
struct BadValue {
  std::string path, message;
};

std::string type_name(const nlohmann::json &v) {
  switch (v.type()) {
  case nlohmann::json::value_t::null: return "null";
  case nlohmann::json::value_t::boolean: return "a boolean";
  case nlohmann::json::value_t::string: return "a string";
  case nlohmann::json::value_t::array: return "an array";
  case nlohmann::json::value_t::object: return "an object";
  case nlohmann::json::value_t::binary: return "binary data";
  case nlohmann::json::value_t::discarded: return "nothing";
  default: return "a number";
  }
}

[[noreturn]] void bad(const std::string &path, const std::string &message) { throw BadValue{path, message}; }

[[noreturn]] void wrong_type(const std::string &path, const char *expected, const nlohmann::json &v) {
  bad(path, fmt::format("expected {}, got {}", expected, type_name(v)));
}

// A view of one JSON object at a path: typed getters that name the path when they refuse.
class Obj {
 public:
  Obj(const nlohmann::json &j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) wrong_type(path_.empty() ? "(top level)" : path_, "an object", j_);
  }
  std::string at(const std::string &key) const { return path_.empty() ? key : path_ + "." + key; }

  // nullptr when absent; `required` makes absence an error.
  const nlohmann::json *find(const std::string &key, bool required) const {
    auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) bad(at(key), "missing");
      return nullptr;
    }
    return &*it;
  }
  std::string str(const std::string &key, bool required = false) const {
    const nlohmann::json *v = find(key, required);
    if (!v) return "";
    if (!v->is_string()) wrong_type(at(key), "a string", *v);
    return v->get<std::string>();
  }
  bool boolean(const std::string &key) const {
    const nlohmann::json *v = find(key, false);
    if (!v) return false;
    if (!v->is_boolean()) wrong_type(at(key), "true or false", *v);
    return v->get<bool>();
  }
  // `nullable`: null reads as NaN (a metric with no value).
  double number(const std::string &key, bool required, bool nullable = false) const {
    const nlohmann::json *v = find(key, required);
    if (!v) return 0;
    return number_at(*v, at(key), nullable);
  }
  size_t count(const std::string &key, size_t fallback, size_t max = kMaxCount) const {
    const nlohmann::json *v = find(key, false);
    return v ? count_at(*v, at(key), max) : fallback;
  }
  static double number_at(const nlohmann::json &v, const std::string &path, bool nullable) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    if (nullable && v.is_null()) return kNaN;
    if (!v.is_number()) wrong_type(path, "a number", v);
    double d = v.get<double>();
    if (nullable && std::isnan(d)) return kNaN;  // a run's own document, before it is text
    if (!std::isfinite(d)) bad(path, "expected a finite number");
    return d;
  }
  // Counts are JSON integers, never floats: 1e300 would not fit a size_t.
  static size_t count_at(const nlohmann::json &v, const std::string &path, size_t max) {
    // Parsed text holds unsigned integers; a run's own document may hold signed ones.
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0)
      bad(path, "expected a count, got a negative number");
    if (v.is_number_integer() && v.get<uint64_t>() <= max) return v.get<size_t>();
    if (v.is_number_integer()) bad(path, fmt::format("expected a count up to {}", max));
    wrong_type(path, "a count (a whole number)", v);
  }
  const nlohmann::json &json() const { return j_; }

  // 2^53: every count fits a double exactly, and none is near a size_t overflow.
  static constexpr size_t kMaxCount = size_t(1) << 53;

 private:
  const nlohmann::json &j_;
  std::string path_;
};

std::string index_path(const std::string &path, size_t i) { return fmt::format("{}[{}]", path, i); }

const nlohmann::json *array_of(const Obj &o, const std::string &key, bool required) {
  const nlohmann::json *v = o.find(key, required);
  if (v && !v->is_array()) wrong_type(o.at(key), "an array", *v);
  return v;
}

std::vector<std::string> strings(const Obj &o, const std::string &key) {
  std::vector<std::string> out;
  if (const nlohmann::json *a = array_of(o, key, false))
    for (size_t i = 0; i < a->size(); ++i) {
      if (!(*a)[i].is_string()) wrong_type(index_path(o.at(key), i), "a string", (*a)[i]);
      out.push_back((*a)[i].get<std::string>());
    }
  return out;
}

std::vector<double> numbers(const Obj &o, const std::string &key) {
  std::vector<double> out;
  if (const nlohmann::json *a = array_of(o, key, false))
    for (size_t i = 0; i < a->size(); ++i) out.push_back(Obj::number_at((*a)[i], index_path(o.at(key), i), false));
  return out;
}

MetricSummary read_metric(const std::string &name, const Obj &o) {
  MetricSummary m;
  m.name = name;
  m.unit = o.str("unit", true);
  m.n = o.count("n", 0, Obj::kMaxCount);
  // A metric with no value (a zero denominator) says why and holds null numbers.
  m.no_value = o.str("no_value");
  bool none = !m.no_value.empty();
  m.mean = o.number("mean", true, none);
  m.stddev = o.number("stddev", true, none);
  m.ci95 = o.number("ci95", true, none);
  m.median = o.number("median", false, none);
  m.min = o.number("min", false, none);
  m.max = o.number("max", false, none);
  m.cv = o.number("cv", false, none);
  m.per_prod = o.number("per_prod", false, none);
  if (!(m.stddev >= 0) && !none) bad(o.at("stddev"), "expected a number >= 0");
  if (!(m.ci95 >= 0) && !none) bad(o.at("ci95"), "expected a number >= 0");
  if (const nlohmann::json *a = array_of(o, "outliers", false))
    for (size_t i = 0; i < a->size(); ++i)
      m.outliers.push_back(Obj::count_at((*a)[i], index_path(o.at("outliers"), i), Obj::kMaxCount));
  m.values = numbers(o, "values");
  m.round_means = numbers(o, "round_means");
  // Written only when the family overrode the default rule (results/results.cpp).
  const std::string better = o.str("better");
  if (!better.empty() && better != "higher" && better != "lower")
    bad(o.at("better"), "expected \"higher\" or \"lower\"");
  m.higher_is_better = better.empty() ? default_higher_is_better(m.name, m.unit) : better == "higher";
  return m;
}

// params: names to a number, string or boolean (what a sweep point holds); nothing nested,
// so matching and printing never recurse into a hostile document.
nlohmann::json read_params(const Obj &o) {
  const nlohmann::json *v = o.find("params", true);
  Obj p(*v, o.at("params"));
  for (const auto &[k, x] : v->items()) {
    if (x.is_number_float() && !std::isfinite(x.get<double>())) bad(p.at(k), "expected a finite number");
    if (!x.is_string() && !x.is_number() && !x.is_boolean()) wrong_type(p.at(k), "a number or a string", x);
  }
  return *v;
}

// self_checks[i]: every field is required (a check without its numbers says nothing).
std::vector<SelfCheck> read_self_checks(const Obj &o) {
  std::vector<SelfCheck> out;
  const nlohmann::json *a = array_of(o, "self_checks", false);
  for (size_t i = 0; a && i < a->size(); ++i) {
    Obj c((*a)[i], index_path(o.at("self_checks"), i));
    const nlohmann::json *ok = c.find("ok", true);
    if (!ok->is_boolean()) wrong_type(c.at("ok"), "true or false", *ok);
    out.push_back(SelfCheck{c.str("name", true), c.number("expected", true), c.number("observed", true),
                            ok->get<bool>(), c.str("detail", true)});
  }
  return out;
}

// prog_facts[i]: name and the facts compare looks at; the rest is not read back.
std::vector<ProgFacts> read_prog_facts(const Obj &o) {
  std::vector<ProgFacts> out;
  const nlohmann::json *a = array_of(o, "prog_facts", false);
  for (size_t i = 0; a && i < a->size(); ++i) {
    Obj f((*a)[i], index_path(o.at("prog_facts"), i));
    ProgFacts x;
    x.name = f.str("name", true);
    x.verified_insns = static_cast<uint32_t>(f.count("verified_insns", 0, UINT32_MAX));
    x.jited_len = static_cast<uint32_t>(f.count("jited_len", 0, UINT32_MAX));
    x.xlated_len = static_cast<uint32_t>(f.count("xlated_len", 0, UINT32_MAX));
    if (const nlohmann::json *off = f.find("jit_offset64", false); off && !off->is_null())
      x.jit_offset64 = static_cast<uint32_t>(Obj::count_at(*off, f.at("jit_offset64"), 63));
    out.push_back(std::move(x));
  }
  return out;
}

// noise (results/noise_facts.hpp): every field present, a number or null (not readable);
// shares are percentages, so a value outside 0..100 is a bad file, not a noisy machine.
NoiseFacts read_noise(const Obj &o) {
  NoiseFacts n;
  auto field = [&](const char *key, double lo, double hi) {
    double v = o.number(key, true, true);
    if (!std::isnan(v) && !(v >= lo && v <= hi)) bad(o.at(key), fmt::format("expected a number from {} to {}", lo, hi));
    return v;
  };
  n.wall_s = field("wall_s", 0, 1e9);
  n.load1 = field("load1", 0, 1e9);
  n.other_cpu_pct = field("other_cpu_pct", 0, 100);
  n.steal_pct = field("steal_pct", 0, 100);
  n.cpufreq_mhz = field("cpufreq_mhz", 0, 1e7);
  return n;
}

// calibration: its points' numbers are what `compare` divides by, so all are required.
Calibration read_calibration(const Obj &o) {
  Calibration c;
  c.duration_s = o.number("duration_s", true);
  const nlohmann::json *a = array_of(o, "points", true);
  for (size_t i = 0; i < a->size(); ++i) {
    Obj p((*a)[i], index_path(o.at("points"), i));
    CalibrationPoint cp;
    cp.when = p.str("when", true);
    if (cp.when != "start" && cp.when != "end") bad(p.at("when"), "expected \"start\" or \"end\"");
    cp.metric = p.str("metric", true);
    cp.unit = p.str("unit", true);
    cp.mean = p.number("mean", true);
    cp.ci95 = p.number("ci95", true);
    if (!(cp.mean > 0)) bad(p.at("mean"), "expected a number > 0");
    if (!(cp.ci95 >= 0)) bad(p.at("ci95"), "expected a number >= 0");
    cp.n = p.count("n", 0);
    cp.noise = read_noise(Obj(*p.find("noise", true), p.at("noise")));
    c.points.push_back(std::move(cp));
  }
  return c;
}

ResultPoint read_point(const Obj &o) {
  static const std::set<std::string> kStatuses = {"ok", "skipped", "failed", "interrupted"};
  ResultPoint p;
  p.index = o.count("index", 0);
  p.label = o.str("label", true);
  p.suite = o.str("suite");
  p.family = o.str("family");
  p.program = o.str("program");
  p.status = o.str("status", true);
  if (!kStatuses.count(p.status))
    bad(o.at("status"), fmt::format("unknown status '{}' (expected ok, skipped, failed or interrupted)", p.status));
  p.reason = o.str("reason");
  p.program_sha256 = o.str("program_sha256");
  p.params = read_params(o);
  p.report = strings(o, "report");
  p.primary = o.str("primary");
  p.warnings = strings(o, "warnings");
  p.self_checks = read_self_checks(o);
  p.prog_facts = read_prog_facts(o);
  if (const nlohmann::json *h = o.find("latency_hist", false); h && !h->is_null()) {
    p.latency_hist = histogram_from_json(*h);
    if (!p.latency_hist) bad(o.at("latency_hist"), "expected a latency histogram (buckets: at most 64 counts)");
  }
  if (const nlohmann::json *a = o.find("adaptive", false); a && !a->is_null()) {
    Obj ad(*a, o.at("adaptive"));
    p.precision_pct = ad.number("ci_target_pct", false);
    p.precision_reached = ad.boolean("reached");
    p.precision_note = ad.str("note");
  }
  if (const nlohmann::json *s = array_of(o, "samples", false)) p.nsamples = s->size();
  p.rounds = o.count("rounds", 1);
  p.is_baseline = o.boolean("is_baseline");
  if (const nlohmann::json *n = o.find("noise", false); n && !n->is_null())
    p.noise = read_noise(Obj(*n, o.at("noise")));
  if (const nlohmann::json *i = o.find("interference", false); i && !i->is_null()) {
    Obj in(*i, o.at("interference"));
    if (in.boolean("found")) p.interference = in.str("note", true);
    if (in.boolean("found") && p.interference.empty()) bad(in.at("note"), "expected what was found");
  }
  if (const nlohmann::json *st = o.find("stats", false)) {
    Obj stats(*st, o.at("stats"));
    for (const auto &[name, mj] : st->items()) p.metrics.push_back(read_metric(name, Obj(mj, stats.at(name))));
  }
  return p;
}

void check_environment(const Obj &top) {
  const nlohmann::json *e = top.find("environment", false);
  if (!e) return;
  Obj env(*e, "environment");
  auto scalar = [](const nlohmann::json &v) { return v.is_string() || v.is_number() || v.is_boolean() || v.is_null(); };
  for (const auto &[k, v] : e->items()) {
    if (k == "nr_cpus") {
      env.count(k, 0, 1 << 20);
    } else if (k == "vm" && v.is_object()) {
      // A guest run's file (`run --kernel`, vm/labels.hpp): kernel, accel, emulated, note.
      Obj vm(v, env.at(k));
      for (const auto &[vk, vv] : v.items())
        if (!scalar(vv)) wrong_type(vm.at(vk), "a string", vv);
    } else if (!scalar(v)) {
      wrong_type(env.at(k), "a string", v);
    }
  }
}

// Files written before points said `is_baseline` have it in their plan only.
void note_baseline(const nlohmann::json &x, std::set<size_t> &baselines) {
  if (!x.is_object()) return;
  auto b = x.find("is_baseline"), i = x.find("index");
  if (b != x.end() && *b == true && i != x.end() && i->is_number_unsigned()) baselines.insert(i->get<size_t>());
}

// A `bpfbench-results/1` file wrote main's raw values as a baseline's `<m>_adj.values`
// (their mean and the other numbers were adjusted): each less the baseline's mean, which
// is m.mean - m_adj.mean, gives what a `/2` file holds. Only values that are exactly m's
// are moved (a family metric that merely ends in `_adj` keeps its own).
void adjust_v1_adj_values(ResultPoint &p) {
  const std::string suffix = "_adj";
  for (auto &adj : p.metrics) {
    if (adj.name.size() <= suffix.size() || !adj.name.ends_with(suffix) || !adj.has_value()) continue;
    const MetricSummary *raw = p.metric(adj.name.substr(0, adj.name.size() - suffix.size()));
    if (!raw || !raw->has_value() || raw->values != adj.values) continue;
    const double baseline_mean = raw->mean - adj.mean;
    for (double &v : adj.values) v -= baseline_mean;
  }
}

// `streamed`: the points and the plan's baselines were read already, one by one as the file
// was read (results/results_stream.cpp); `j` holds an empty "points" (and plan "points").
ResultSet read_set(const nlohmann::json &j, StreamedPoints *streamed) {
  Obj top(j, "");
  const nlohmann::json *schema = top.find("schema", false);
  const std::string version = schema && schema->is_string() ? schema->get<std::string>() : "";
  if (version != kResultsSchema && version != kResultsSchemaV1)
    bad("schema", fmt::format("not a bpfbench results file (expected \"schema\": \"{}\", or \"{}\" of older "
                              "versions{})",
                              kResultsSchema, kResultsSchemaV1,
                              version.rfind("bpfbench-results/", 0) == 0 && version.size() <= 40
                                  ? "; this file is " + json_text(version) + ", of a newer bpfbench?"
                                  : ""));
  ResultSet rs;
  rs.file = top.str("file");
  rs.file_sha256 = top.str("file_sha256");
  rs.complete = top.boolean("complete");
  check_environment(top);
  rs.env = environment_from_json(j.value("environment", nlohmann::json::object()));
  std::set<size_t> baselines;
  if (const nlohmann::json *plan = top.find("plan", false); plan && !plan->is_null()) {
    Obj(*plan, "plan");
    auto pp = plan->find("points");
    if (!streamed && pp != plan->end() && pp->is_array())
      for (const auto &x : *pp) note_baseline(x, baselines);
  }
  const nlohmann::json *pts = array_of(top, "points", true);
  if (streamed) {
    if (!streamed->error_path.empty()) bad(streamed->error_path, streamed->error_message);
    rs.points = std::move(streamed->points);
    baselines = std::move(streamed->baselines);
  } else {
    for (size_t i = 0; i < pts->size(); ++i) rs.points.push_back(read_point(Obj((*pts)[i], index_path("points", i))));
  }
  for (auto &p : rs.points) {
    p.is_baseline = p.is_baseline || baselines.count(p.index) > 0;
    if (version == kResultsSchemaV1) adjust_v1_adj_values(p);
  }
  if (const nlohmann::json *c = top.find("calibration", false); c && !c->is_null())
    rs.calibration = read_calibration(Obj(*c, "calibration"));
  return rs;
}

Result<ResultSet> checked_set(const nlohmann::json &j, StreamedPoints *streamed) {
  try {
    return read_set(j, streamed);
  } catch (const BadValue &b) {
    return Error(b.path == "schema" ? b.message : b.path + ": " + b.message);
  }
}

}  // namespace

const MetricSummary *ResultPoint::metric(const std::string &name) const {
  for (const auto &m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string ResultPoint::key() const { return suite + "\x1f" + label + "\x1f" + json_text(params); }

Result<ResultSet> results_from_json(const nlohmann::json &j) { return checked_set(j, nullptr); }

void StreamedPoints::add_point(const nlohmann::json &j, size_t i, std::optional<size_t> nsamples) {
  if (!error_path.empty()) return;  // the first bad point is the one named
  try {
    points.push_back(read_point(Obj(j, index_path("points", i))));
    if (nsamples) points.back().nsamples = *nsamples;
  } catch (const BadValue &b) {
    error_path = b.path;
    error_message = b.message;
  }
}

void StreamedPoints::add_plan_point(const nlohmann::json &j) { note_baseline(j, baselines); }

Result<ResultSet> results_from_parts(const nlohmann::json &top, StreamedPoints &&points) {
  return checked_set(top, &points);
}

}  // namespace bpfbench
