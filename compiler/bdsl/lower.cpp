#include "compiler/bdsl/lower.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "compiler/family/builtins.hpp"
#include "compiler/family/constraints.hpp"
#include "compiler/family/enum_choices.hpp"

namespace bpfbench {

namespace {

struct Assignment {
  ParamValue value;
  SourceRange range;
};

// Builtins live in PlanPoint fields; family params in PlanPoint::params.
void apply_builtin(PlanPoint &p, const std::string &name, const ParamValue &v) {
  if (name == "warmup") p.warmup_ns = v.i;
  else if (name == "duration") p.duration_ns = v.i;
  else if (name == "producers") p.producers = static_cast<int>(v.i);
  else if (name == "consumers") p.consumers = static_cast<int>(v.i);
  else if (name == "affinity") p.affinity = v.i != 0;
  else if (name == "prod_affinity") p.prod_cpus = v.s;
  else if (name == "cons_affinity") p.cons_cpus = v.s;
  else if (name == "rounds") p.rounds = static_cast<int>(v.i);
  else if (name == "prog") p.program = v.s;
}

void apply_overrides(PlanPoint &p, const PlanOverrides &o) {
  if (o.warmup_ns) p.warmup_ns = *o.warmup_ns;
  if (o.duration_ns) p.duration_ns = *o.duration_ns;
  if (o.producers) p.producers = *o.producers;
  if (o.consumers) p.consumers = *o.consumers;
  if (o.affinity) p.affinity = *o.affinity;
  if (o.prod_cpus) p.prod_cpus = *o.prod_cpus;
  if (o.cons_cpus) p.cons_cpus = *o.cons_cpus;
  if (o.precision_pct) p.precision_pct = *o.precision_pct;
  if (o.min_duration_ns) p.min_duration_ns = *o.min_duration_ns;
  if (o.max_duration_ns) p.max_duration_ns = *o.max_duration_ns;
  if (o.rounds) p.rounds = *o.rounds;
  if (o.interval_ns) p.interval_ns = *o.interval_ns;
  else if (p.precision_pct > 0) p.interval_ns = kAdaptiveIntervalNs;
}

std::string value_of(const PlanPoint &p, const std::string &name) {
  if (const ParamValue *v = p.param(name)) return v->to_string();
  if (name == "prog") return p.program;
  if (name == "warmup") return fmt::format("{}", p.warmup_ns);
  if (name == "duration") return fmt::format("{}", p.duration_ns);
  if (name == "producers") return fmt::format("{}", p.producers);
  if (name == "consumers") return fmt::format("{}", p.consumers);
  if (name == "affinity") return p.affinity ? "true" : "false";
  if (name == "prod_affinity") return p.prod_cpus;
  if (name == "cons_affinity") return p.cons_cpus;
  if (name == "rounds") return fmt::format("{}", p.rounds);
  return "{" + name + "}";
}

// Without `as "..."`: the family name followed by each swept value ("trigger-tp").
// `baseline < drop_code HOOK; >`: the checker keeps each dropped hook in the baseline's
// list under the name drop_code (compiler/bdsl/check.cpp).
bool drops_code(const CheckedBench &b, const std::string &hook) {
  if (!b.baseline) return false;
  for (const auto &f : *b.baseline)
    if (f.name == "drop_code" && f.value.s == hook) return true;
  return false;
}

std::string default_label(const CheckedBench &b) {
  std::string tpl = b.family->name;
  for (const auto &a : b.axes)
    for (const auto &n : a.params) tpl += "-{" + n + "}";
  return tpl;
}

// `presets` (compiler/family/enum_choices.hpp): the values an enum param's choice sets, wherever
// the file sets none (a default's range is invalid). They are located at the choice, so a
// constraint they break points at the scenario that brought them.
void apply_presets(const FamilyManifest &f, std::map<std::string, Assignment> &values) {
  for (const auto &spec : f.params) {
    if (spec.presets.empty()) continue;
    const Assignment chosen = values.at(spec.name);
    const auto *preset = preset_of(spec, chosen.value.s);
    if (!preset) continue;
    for (const auto &[name, v] : *preset)
      if (Assignment &a = values.at(name); !a.range.valid()) a = Assignment{v, chosen.range};
  }
}

class Lowerer {
 public:
  Lowerer(const PlanOverrides &o, Diagnostics &diags) : overrides_(o), diags_(diags) {}

  void bench(const CheckedBench &b, RunPlan &plan) {
    std::map<std::string, Assignment> current;
    for (const auto &f : b.fixed) current[f.name] = Assignment{f.value, f.range};
    if (!overrides_swept(b)) return;
    std::string tpl = b.label ? *b.label : default_label(b);
    size_t before = plan.points.size();
    expand(b, 0, current, tpl, plan);
    if (plan.points.size() == before && !b.where.empty())
      diags_.warning(b.where.front().range, "'where' leaves this bench no point to run");
  }

 private:
  void expand(const CheckedBench &b, size_t axis, std::map<std::string, Assignment> &cur, const std::string &tpl,
              RunPlan &plan) {
    if (axis == b.axes.size()) {
      emit_point(b, cur, tpl, plan);
      return;
    }
    const SweepAxis &a = b.axes[axis];
    size_t k = a.params.size();
    for (size_t i = 0; i + k <= a.values.size(); i += k) {
      for (size_t j = 0; j < k; ++j) cur[a.params[j]] = Assignment{a.values[i + j], a.ranges[i + j]};
      expand(b, axis + 1, cur, tpl, plan);
    }
  }

  void emit_point(const CheckedBench &b, const std::map<std::string, Assignment> &cur, const std::string &tpl,
                  RunPlan &plan) {
    // `where` filters on the values the file gives (before command-line overrides).
    ValueLookup lookup = [&](const std::string &n) -> std::optional<ParamValue> {
      auto it = cur.find(n);
      if (it == cur.end()) return std::nullopt;
      return it->second.value;
    };
    if (!holds_all(b.where, lookup)) return;
    std::map<std::string, Assignment> values = cur;
    apply_presets(*b.family, values);
    apply_param_overrides(b, values);
    if (!b.baseline) {
      push_point(b, values, tpl, plan);
      return;
    }
    // The baseline runs first: the same values with the baseline's overrides (and the
    // presets of a choice the baseline changes).
    std::map<std::string, Assignment> base = cur;
    auto baseline_values = [&] {
      for (const auto &f : *b.baseline)
        if (f.name != "drop_code") base[f.name] = Assignment{f.value, f.range};
    };
    baseline_values();
    apply_presets(*b.family, base);
    apply_param_overrides(b, base);
    baseline_values();
    size_t bi = push_point(b, base, tpl, plan, &values);
    size_t mi = push_point(b, values, tpl, plan);
    plan.points[bi].is_baseline = true;
    plan.points[mi].baseline = bi;
  }

  // `label_from`: values that name the point (a baseline is named after its main point).
  size_t push_point(const CheckedBench &b, const std::map<std::string, Assignment> &cur, const std::string &tpl,
                    RunPlan &plan, const std::map<std::string, Assignment> *label_from = nullptr) {
    PlanPoint p;
    p.index = plan.points.size();
    p.file_index = p.index;
    p.bench_index = b.index;
    p.suite = b.suite;
    p.family = b.family->name;
    p.bench_range = b.range;
    p.report = b.report;
    for (const auto &spec : b.family->params) {
      const Assignment &a = cur.at(spec.name);
      p.params.emplace_back(spec.name, a.value);
      p.param_ranges.push_back(a.range);
    }
    for (const auto &name : builtin_names()) {
      apply_builtin(p, name, cur.at(name).value);
      p.builtin_ranges.push_back(cur.at(name).range);
    }
    p.precision_pct = b.precision_pct;
    for (const auto &c : b.code)  // a baseline may run without some hooks' code
      if (!label_from || !drops_code(b, c.hook)) p.code.push_back(c);
    if (!label_from) p.expectations = b.expectations;  // a baseline measures something else
    apply_overrides(p, overrides_);
    p.label = interpolate_label(tpl, p);
    if (label_from) {
      PlanPoint named = p;
      for (auto &[name, v] : named.params) v = label_from->at(name).value;
      for (const auto &name : builtin_names()) apply_builtin(named, name, label_from->at(name).value);
      apply_overrides(named, overrides_);
      p.label = interpolate_label(tpl, named) + "-baseline";
    }
    constraints_.check(p, *b.family);  // family.json `constraints`, per point
    auto [it, fresh] = labels_.emplace(p.label, b.index);
    if (!fresh && collisions_++ < 3) {
      SourceRange r = b.label ? b.label_range : b.family_range;
      diags_.error(r, fmt::format("two points are labelled '{}'", p.label),
                   {"put every swept parameter in the label, e.g. as \"name-{param}\""});
    }
    plan.points.push_back(std::move(p));
    return plan.points.size() - 1;
  }

  // --a/--b NAME=VALUE where the bench's family or the builtins have NAME; each resolved
  // once per family (one message per bad value, not one per point).
  void apply_param_overrides(const CheckedBench &b, std::map<std::string, Assignment> &values) {
    for (size_t i = 0; i < overrides_.params.size(); ++i) {
      const ParamOverride &o = overrides_.params[i];
      auto key = std::pair(b.family->name, i);
      auto it = resolved_.find(key);
      if (it == resolved_.end()) it = resolved_.emplace(key, resolve_for(*b.family, i)).first;
      if (it->second) values[o.name] = Assignment{*it->second, SourceRange{}};
    }
  }

  // A --a/--b NAME the bench sweeps would give all its points one value: refused there.
  // The bench's points are not made then, so the names its family has are marked known
  // here: the refusal is the one message, not followed by "unknown parameter".
  bool overrides_swept(const CheckedBench &b) {
    for (const auto &o : overrides_.params)
      for (const auto &axis : b.axes)
        if (std::find(axis.params.begin(), axis.params.end(), o.name) != axis.params.end()) {
          diags_.error(b.range, fmt::format("{} sets '{}', which this bench sweeps", o.origin, o.name),
                       {"set a parameter the bench does not sweep, or compare two files"});
          mark_known(*b.family);
          return false;
        }
    return true;
  }

  void mark_known(const FamilyManifest &f) {
    const std::vector<ParamSpec> builtins = builtin_settings(f);
    for (size_t i = 0; i < overrides_.params.size(); ++i)
      for (const auto *specs : {&f.params, &builtins})
        for (const auto &s : *specs)
          if (s.name == overrides_.params[i].name) used_.insert(i);
  }

  std::optional<ParamValue> resolve_for(const FamilyManifest &f, size_t i) {
    const ParamOverride &o = overrides_.params[i];
    const std::vector<ParamSpec> builtins = builtin_settings(f);
    for (const auto *specs : {&f.params, &builtins})
      for (const auto &s : *specs)
        if (s.name == o.name) {
          used_.insert(i);
          return resolve_override(o, s, diags_);
        }
    return std::nullopt;
  }

 public:
  // The --a/--b names no bench of the file has: errors, with the names there are.
  void check_unused_overrides(const CheckedProgram &prog) {
    std::vector<std::string> names = builtin_names();
    for (const auto &b : prog.benches)
      for (const auto &s : b.family->params) names.push_back(s.name);
    for (size_t i = 0; i < overrides_.params.size(); ++i) {
      if (used_.count(i)) continue;
      const ParamOverride &o = overrides_.params[i];
      std::string close = did_you_mean(o.name, names);
      std::vector<std::string> hints;
      if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
      diags_.error(SourceRange{},
                   fmt::format("{}: unknown parameter '{}' (no bench of the file has it)", o.origin, o.name), hints);
    }
  }

 private:
  const PlanOverrides &overrides_;
  Diagnostics &diags_;
  std::map<std::pair<std::string, size_t>, std::optional<ParamValue>> resolved_;  // (family, override) -> value
  std::set<size_t> used_;                                                         // overrides some family has
  std::map<std::string, size_t> labels_;                                          // label -> bench index
  size_t collisions_ = 0;
  ConstraintChecker constraints_{diags_};
};

}  // namespace

std::string interpolate_label(const std::string &tpl, const PlanPoint &p) {
  std::string out;
  for (size_t i = 0; i < tpl.size(); ++i) {
    size_t end = tpl[i] == '{' ? tpl.find('}', i) : std::string::npos;
    if (end == std::string::npos) {
      out.push_back(tpl[i]);
      continue;
    }
    out += value_of(p, tpl.substr(i + 1, end - i - 1));
    i = end;
  }
  return out;
}

std::optional<RunPlan> lower(const CheckedProgram &prog, const std::string &file, const PlanOverrides &overrides,
                             Diagnostics &diags) {
  RunPlan plan;
  plan.file = file;
  Lowerer l(overrides, diags);
  for (const auto &b : prog.benches) {
    if (diags.full()) break;
    l.bench(b, plan);
  }
  l.check_unused_overrides(prog);
  if (diags.has_errors()) return std::nullopt;
  return plan;
}

const ParamValue *PlanPoint::param(const std::string &name) const {
  for (const auto &[n, v] : params)
    if (n == name) return &v;
  return nullptr;
}

int64_t PlanPoint::int_param(const std::string &name, int64_t fallback) const {
  const ParamValue *v = param(name);
  return v && v->is_int ? v->i : fallback;
}

}  // namespace bpfbench
