#include "compiler/family/self_checks.hpp"

#include "compiler/family/constraints.hpp"
#include "compiler/bdsl/names.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace bpfbench {
namespace {

using json = nlohmann::json;

// What a self-check adds up: events counted one by one. A ratio or CPU ticks is no count.
bool is_count(const MetricSource &s) {
  return s.kind == MetricSourceKind::Counter || s.kind == MetricSourceKind::Producer ||
         s.kind == MetricSourceKind::Consumer;
}

std::vector<std::string> metric_names(const FamilyManifest &f) {
  std::vector<std::string> out;
  for (const auto &m : f.metrics) out.push_back(m.name);
  return out;
}

// One side: a non-empty array of metric names or count sources.
bool read_terms(ManifestFields &mf, const json &j, const std::string &key, const std::string &where,
                const FamilyManifest &f, std::vector<SelfCheckTerm> &out) {
  std::vector<std::string> texts;
  if (!mf.get_string_list(j, key, where, texts)) return false;
  if (texts.empty()) {
    mf.error(mf.at(j[key]), where, "'" + key + "' must list at least one metric or source");
    return false;
  }
  bool good = true;
  for (size_t i = 0; i < texts.size(); ++i) {
    const json &node = j[key][i];
    SelfCheckTerm t;
    if (f.metric(texts[i])) {
      t.metric = texts[i];
    } else if (auto src = parse_metric_source(texts[i]); src && is_count(*src)) {
      t.source = *src;
    } else {
      mf.error(mf.at(node), where,
               "'" + texts[i] + "' is neither a metric of the family (" + join_names(metric_names(f), ", ") +
                   ") nor a count source (producer, consumer or counter:<var>)");
      good = false;
      continue;
    }
    out.push_back(std::move(t));
  }
  return good;
}

// Every name `key` lists is one of `known` (programs, hooks).
bool check_names(ManifestFields &mf, const json &j, const std::string &key, const std::string &where,
                 const std::vector<std::string> &names, const std::vector<std::string> &known, const char *noun) {
  bool good = true;
  for (size_t i = 0; i < names.size(); ++i)
    if (std::find(known.begin(), known.end(), names[i]) == known.end()) {
      mf.error(mf.at(j[key][i]), where,
               std::string("unknown ") + noun + " '" + names[i] + "' (expected " + join_names(known) + ")");
      good = false;
    }
  return good;
}

// A metric term must count events in every program the check applies to (a program may
// override the metric's source).
bool check_term_sources(ManifestFields &mf, const json &j, const std::string &where, const FamilyManifest &f,
                        const SelfCheckSpec &c) {
  bool good = true;
  for (const auto &prog : f.programs) {
    if (!c.programs.empty() && std::find(c.programs.begin(), c.programs.end(), prog.name) == c.programs.end()) continue;
    for (const auto &[key, side] : {std::pair{"expected", &c.expected}, std::pair{"observed", &c.observed}})
      for (size_t i = 0; i < side->size(); ++i)
        if (MetricSource s = term_source((*side)[i], f, prog); !is_count(s)) {
          mf.error(mf.at(j[key][i]), where,
                   "metric '" + (*side)[i].metric + "' of program '" + prog.name + "' comes from '" + s.text() +
                       "', not a count of events (producer, consumer or counter:<var>)");
          good = false;
        }
  }
  return good;
}

bool read_self_check(ManifestFields &mf, const json &j, const std::string &where, const FamilyManifest &f,
                     SelfCheckSpec &c) {
  if (!mf.keys(j, where, {"name", "expected", "observed", "programs", "unless_code", "when", "doc"},
               {"name", "expected", "observed"}))
    return false;
  if (!mf.get_string(j, "name", where, c.name) || !mf.get_string(j, "doc", where, c.doc) ||
      !mf.get_string_list(j, "programs", where, c.programs) ||
      !mf.get_string_list(j, "unless_code", where, c.unless_code) || !mf.get_string(j, "when", where, c.when))
    return false;
  if (auto when = parse_condition(c.when, f); !when) {
    mf.error(mf.at(j["when"]), where, when.error().message);
    return false;
  }
  if (!is_name(c.name)) {
    mf.error(mf.at(j["name"]), where, "bad self-check name '" + c.name + "' (letters, digits, '_', '-')");
    return false;
  }
  std::vector<std::string> programs, hooks;
  for (const auto &p : f.programs) programs.push_back(p.name);
  for (const auto &h : f.hooks) hooks.push_back(h.name);
  bool good = read_terms(mf, j, "expected", where, f, c.expected);
  good = read_terms(mf, j, "observed", where, f, c.observed) && good;
  good = check_names(mf, j, "programs", where, c.programs, programs, "program") && good;
  good = check_names(mf, j, "unless_code", where, c.unless_code, hooks, "hook") && good;
  return good && check_term_sources(mf, j, where, f, c);
}

bool same_sources(std::vector<MetricSource> a, std::vector<MetricSource> b) {
  auto by_text = [](const MetricSource &x, const MetricSource &y) { return x.text() < y.text(); };
  std::sort(a.begin(), a.end(), by_text);
  std::sort(b.begin(), b.end(), by_text);
  return a == b;
}

}  // namespace

void read_self_checks(ManifestFields &mf, const json &root, FamilyManifest &f) {
  mf.read_array(root, "self_checks", "", [&](const json &j, const std::string &where) {
    SelfCheckSpec c;
    if (!read_self_check(mf, j, where, f, c)) return;
    for (const auto &other : f.self_checks)
      if (other.name == c.name) {
        mf.error(mf.at_key(j, "name"), "", "duplicate self-check '" + c.name + "'");
        return;
      }
    f.self_checks.push_back(std::move(c));
  });
}

MetricSource term_source(const SelfCheckTerm &t, const FamilyManifest &f, const ProgramSpec &prog) {
  if (t.metric.empty()) return t.source;
  if (auto it = prog.metric_sources.find(t.metric); it != prog.metric_sources.end()) return it->second;
  const MetricSpec *m = f.metric(t.metric);
  return m ? m->source : MetricSource{};
}

std::vector<ResolvedSelfCheck> self_checks_for(const FamilyManifest &f, const ProgramSpec &prog, const PlanPoint &p) {
  std::vector<ResolvedSelfCheck> out;
  for (const auto &c : f.self_checks) {
    if (!c.programs.empty() && std::find(c.programs.begin(), c.programs.end(), prog.name) == c.programs.end()) continue;
    bool own_code = std::any_of(p.code.begin(), p.code.end(), [&](const PlanCode &pc) {
      return std::find(c.unless_code.begin(), c.unless_code.end(), pc.hook) != c.unless_code.end();
    });
    if (own_code) continue;
    auto when = parse_condition(c.when, f);  // checked when the manifest was read
    auto value = [&](const std::string &n) -> std::optional<ParamValue> {
      if (auto v = point_value(p, n)) return v;
      const ParamSpec *spec = f.param(n);  // a point without it: the family's default
      return spec ? std::optional<ParamValue>(spec->default_value) : std::nullopt;
    };
    if (!when || !holds_all(*when, value)) continue;
    ResolvedSelfCheck r{&c, {}, {}};
    for (const auto &t : c.expected) r.expected.push_back(term_source(t, f, prog));
    for (const auto &t : c.observed) r.observed.push_back(term_source(t, f, prog));
    if (!same_sources(r.expected, r.observed)) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace bpfbench
