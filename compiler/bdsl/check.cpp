#include "compiler/bdsl/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compiler/family/builtins.hpp"
#include "compiler/bdsl/code_blocks.hpp"
#include "compiler/bdsl/expect_check.hpp"
#include "compiler/bdsl/resolve_value.hpp"
#include "compiler/bdsl/where_check.hpp"

namespace bpfbench {

namespace {

struct Scope {
  LetScope lets;
  std::vector<const ast::Setting *> defaults;
  std::string suite;
};

// Names inside "{...}" of a label template; reports unclosed braces.
std::vector<std::pair<std::string, size_t>> label_refs(const std::string &tpl, bool &ok) {
  std::vector<std::pair<std::string, size_t>> out;
  ok = true;
  for (size_t i = 0; i < tpl.size(); ++i) {
    if (tpl[i] != '{') continue;
    size_t end = tpl.find('}', i);
    if (end == std::string::npos) {
      ok = false;
      return out;
    }
    out.emplace_back(tpl.substr(i + 1, end - i - 1), i);
    i = end;
  }
  return out;
}

class Checker {
 public:
  Checker(const FamilyRegistry &families, int64_t nproc, Diagnostics &diags) : families_(families), diags_(diags) {
    nproc_.kind = ast::Value::Kind::Int;
    nproc_.number = nproc;
  }

  std::optional<CheckedProgram> run(const ast::File &file) {
    Scope top;
    top.lets["nproc"] = &nproc_;
    items(file.items, top, false);
    if (diags_.has_errors()) return std::nullopt;
    return std::move(out_);
  }

 private:
  void items(const std::vector<ast::Item> &list, Scope &scope, bool in_suite) {
    for (const auto &item : list) {
      if (diags_.full()) return;
      if (const auto *let = std::get_if<ast::Let>(&item.node)) {
        declare(*let, scope);
      } else if (const auto *d = std::get_if<ast::Defaults>(&item.node)) {
        defaults(*d, scope);
      } else if (const auto *b = std::get_if<ast::Bench>(&item.node)) {
        bench(*b, scope);
      } else if (const auto *s = std::get_if<ast::Suite>(&item.node)) {
        if (in_suite) {
          diags_.error(s->title.range, "suites cannot be nested");
          continue;
        }
        Scope inner = scope;
        inner.suite = s->title.text;
        if (s->title.text.empty()) diags_.error(s->title.range, "empty suite title");
        items(s->items, inner, true);
      }
    }
  }

  void declare(const ast::Let &let, Scope &scope) {
    if (let.name.text == "nproc") {
      diags_.error(let.name.range, "'nproc' is predefined (the number of online CPUs)");
      return;
    }
    auto it = scope.lets.find(let.name.text);
    if (it != scope.lets.end() && declared_.count(let.name.text) && !redeclare_ok(let, scope)) {
      diags_.error(let.name.range, fmt::format("'{}' is already defined", let.name.text));
      return;
    }
    declared_.insert(let.name.text);
    scope.lets[let.name.text] = &let.value;
    let_scope_[let.name.text] = scope.suite;
  }

  // A suite may shadow a file-level let; the same scope may not define a name twice.
  bool redeclare_ok(const ast::Let &let, const Scope &scope) const {
    auto it = let_scope_.find(let.name.text);
    return it != let_scope_.end() && it->second != scope.suite;
  }

  void defaults(const ast::Defaults &d, Scope &scope) {
    std::set<std::string> known(builtin_names().begin(), builtin_names().end());
    for (const auto &f : families_.all())
      for (const auto &p : f.params) known.insert(p.name);
    for (const auto &s : d.settings) {
      if (s.kind == ast::Setting::Kind::Report) {
        scope.defaults.push_back(&s);
        continue;
      }
      if (s.kind == ast::Setting::Kind::Baseline) {
        diags_.error(s.range, "'baseline' belongs in a bench, not in defaults");
        continue;
      }
      if (s.kind == ast::Setting::Kind::Until || s.kind == ast::Setting::Kind::Expect) {  // per bench, like report
        scope.defaults.push_back(&s);
        continue;
      }
      bool ok = true;
      for (const auto &n : s.names) {
        if (known.count(n.text)) continue;
        ok = false;
        std::vector<std::string> hints;
        std::string close = did_you_mean(n.text, {known.begin(), known.end()});
        if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
        diags_.error(n.range, fmt::format("unknown setting '{}' in defaults", n.text), hints);
      }
      if (ok) scope.defaults.push_back(&s);
    }
  }

  void bench(const ast::Bench &b, const Scope &scope) {
    const FamilyManifest *family = families_.find(b.family.text);
    size_t index = bench_index_++;
    if (!family) {
      std::vector<std::string> hints;
      std::string close = did_you_mean(b.family.text, families_.names());
      if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
      hints.push_back(families_.names().empty()
                          ? std::string("no family was found at all (is the shipped template folder missing?)")
                          : fmt::format("known families: {}", fmt::join(families_.names(), ", ")));
      // A family of one's own is found only where bpfbench looks (compiler/family/template_path.hpp).
      hints.push_back("families of your own are found in a directory given with --templates DIR, in the "
                      "directories of $BPFBENCH_TEMPLATE_PATH (colon-separated) and in bpf_templates/ next to "
                      "the .bdsl file (a family is a folder <name>/ holding family.json)");
      diags_.error(b.family.range, fmt::format("unknown benchmark family '{}'", b.family.text), hints);
      return;
    }
    CheckedBench cb;
    cb.family = family;
    cb.index = index;
    cb.suite = scope.suite;
    cb.range = b.range;
    cb.family_range = b.family.range;
    if (b.label) {
      cb.label = b.label->text;
      cb.label_range = b.label->range;
    }
    std::vector<ParamSpec> specs = family->params;
    for (auto &s : builtin_settings(*family)) specs.push_back(std::move(s));

    State st{cb, specs, scope.lets, {}, {}, {}};
    for (const auto *s : scope.defaults) setting(*s, st, true);
    for (const auto &s : b.settings) setting(s, st, false);

    for (const auto &spec : specs) {
      auto it = st.fixed.find(spec.name);
      if (it != st.fixed.end()) cb.fixed.push_back(it->second);
      else cb.fixed.push_back(FixedSetting{spec.name, spec.default_value, {}});
    }
    for (auto &[name, axis] : st.axis_order) cb.axes.push_back(std::move(axis));
    if (cb.report.empty()) cb.report = family->default_report;
    if (cb.label) check_label(cb, specs);
    cb.code = check_code_blocks(b.code, *family, diags_);
    cb.expectations = check_expectations(scope.defaults, b.settings, cb, scope.lets, diags_);
    count_points(cb, b);
    out_.benches.push_back(std::move(cb));
  }

  struct State {
    CheckedBench &cb;
    const std::vector<ParamSpec> &specs;
    const LetScope &lets;
    std::map<std::string, FixedSetting> fixed;
    std::vector<std::pair<std::string, SweepAxis>> axis_order;
    std::map<std::string, SourceRange> set_in_bench;  // for duplicate detection
  };

  const ParamSpec *find_spec(const State &st, const std::string &name) const {
    for (const auto &s : st.specs)
      if (s.name == name) return &s;
    return nullptr;
  }

  void unknown_param(const State &st, const ast::Name &n) {
    std::vector<std::string> names;
    for (const auto &s : st.specs) names.push_back(s.name);
    std::vector<std::string> hints;
    std::string close = did_you_mean(n.text, names);
    if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
    diags_.error(n.range, fmt::format("unknown parameter '{}' for family '{}'", n.text, st.cb.family->name), hints);
  }

  // Removes an earlier value of `name` (from defaults), or reports a duplicate in the bench.
  bool claim(State &st, const ast::Name &n, bool from_defaults) {
    if (!from_defaults) {
      auto it = st.set_in_bench.find(n.text);
      if (it != st.set_in_bench.end()) {
        Diagnostic &d = diags_.error(n.range, fmt::format("'{}' is set twice in this bench", n.text));
        d.notes.push_back(Diagnostic{Severity::Note, it->second, "first set here", {}, {}, {}});
        return false;
      }
      st.set_in_bench[n.text] = n.range;
    }
    st.fixed.erase(n.text);
    auto &ax = st.axis_order;
    ax.erase(std::remove_if(ax.begin(), ax.end(),
                            [&](const auto &a) {
                              const auto &ps = a.second.params;
                              return std::find(ps.begin(), ps.end(), n.text) != ps.end();
                            }),
             ax.end());
    return true;
  }

  void setting(const ast::Setting &s, State &st, bool from_defaults) {
    using K = ast::Setting::Kind;
    if (s.kind == K::Report) {
      report(s, st, from_defaults);
      return;
    }
    if (s.kind == K::Baseline) {
      if (!from_defaults) baseline(s, st);  // defaults() reported it
      return;
    }
    if (s.kind == K::Until) {
      until(s, st, from_defaults);
      return;
    }
    if (s.kind == K::Expect) return;  // after all settings: check_expectations() in bench()
    // Defaults name settings of every family; the ones this family lacks don't apply.
    if (from_defaults)
      for (const auto &n : s.names)
        if (!find_spec(st, n.text)) return;
    if (s.kind == K::Where) {  // filters accumulate: defaults' and the bench's all apply
      if (auto c = check_where(s, st.specs, st.lets, diags_)) st.cb.where.push_back(std::move(*c));
      return;
    }
    if (s.kind == K::Assign) assign(s, st, from_defaults);
    else sweep(s, st, from_defaults);
  }

  void assign(const ast::Setting &s, State &st, bool from_defaults) {
    const ast::Name &n = s.names.at(0);
    const ParamSpec *spec = find_spec(st, n.text);
    if (!spec) return unknown_param(st, n);
    if (!claim(st, n, from_defaults)) return;
    auto vals = s.value ? resolve_values(*s.value, *spec, st.lets, diags_) : resolve_flag(n, *spec, diags_);
    if (!vals) return;
    if (!vals->is_list) {
      st.fixed[n.text] = FixedSetting{n.text, vals->values.at(0), vals->ranges.at(0)};
      return;
    }
    if (!spec->sweepable) {
      diags_.error(s.value->range, fmt::format("'{}' cannot be swept", n.text));
      return;
    }
    st.axis_order.emplace_back(n.text, SweepAxis{{n.text}, vals->values, vals->ranges, s.range});
  }

  void sweep(const ast::Setting &s, State &st, bool from_defaults) {
    SweepAxis axis;
    axis.range = s.range;
    std::set<std::string> seen;
    for (const auto &n : s.names) {
      const ParamSpec *spec = find_spec(st, n.text);
      if (!spec) return unknown_param(st, n);
      if (!seen.insert(n.text).second) {
        diags_.error(n.range, fmt::format("'{}' is named twice in this sweep", n.text));
        return;
      }
      if (!spec->sweepable) {
        diags_.error(n.range, fmt::format("'{}' cannot be swept", n.text));
        return;
      }
      if (!claim(st, n, from_defaults)) return;
      auto vals = resolve_values(*s.value, *spec, st.lets, diags_);
      if (!vals) return;
      if (!vals->is_list) {
        diags_.error(s.value->range, "sweep needs a list or a range",
                     {fmt::format("to set one value write '{} {};'", n.text, vals->values.at(0).to_string())});
        return;
      }
      if (axis.params.empty()) {
        axis.values = vals->values;
        axis.ranges = vals->ranges;
      } else if (vals->values.size() != axis.values.size()) {
        diags_.error(n.range, fmt::format("zipped sweep gives '{}' {} values but '{}' {}", n.text, vals->values.size(),
                                          axis.params[0], axis.values.size()));
        return;
      }
      axis.params.push_back(n.text);
      zipped_values_.push_back(vals->values);
    }
    // A zipped axis stores one value per param per point: interleave them.
    if (axis.params.size() > 1) {
      std::vector<ParamValue> inter;
      std::vector<SourceRange> ranges;
      size_t k = axis.params.size();
      auto first = zipped_values_.end() - static_cast<long>(k);
      for (size_t i = 0; i < axis.values.size(); ++i)
        for (size_t j = 0; j < k; ++j) {
          inter.push_back((first + static_cast<long>(j))->at(i));
          ranges.push_back(axis.ranges.at(i));
        }
      axis.values = std::move(inter);
      axis.ranges = std::move(ranges);
    }
    zipped_values_.clear();
    std::string key = axis.params.front();
    st.axis_order.emplace_back(key, std::move(axis));
  }

  // `baseline < settings >`: one value per setting, for params the bench knows.
  void baseline(const ast::Setting &s, State &st) {
    CheckedBench &cb = st.cb;
    if (cb.baseline) {
      Diagnostic &d = diags_.error(s.range, "a bench has at most one baseline");
      d.notes.push_back(Diagnostic{Severity::Note, cb.baseline_range, "first baseline here", {}, {}, {}});
      return;
    }
    std::vector<FixedSetting> out;
    std::set<std::string> seen;
    for (const auto &b : s.body) {
      if (b.kind != ast::Setting::Kind::Assign) {
        diags_.error(b.range, "a baseline holds only 'name value;' settings",
                     {"the baseline runs the bench's point with these values changed"});
        continue;
      }
      const ast::Name &n = b.names.at(0);
      if (!seen.insert(n.text).second) {
        diags_.error(n.range, fmt::format("'{}' is set twice in this baseline", n.text));
        continue;
      }
      if (n.text == "drop_code") {
        drop_code(b, cb, out);
        continue;
      }
      const ParamSpec *spec = find_spec(st, n.text);
      if (!spec) {
        unknown_param(st, n);
        continue;
      }
      auto vals = b.value ? resolve_values(*b.value, *spec, st.lets, diags_) : resolve_flag(n, *spec, diags_);
      if (!vals) continue;
      if (vals->is_list) {
        diags_.error(b.value->range, "a baseline setting takes one value, not a list");
        continue;
      }
      out.push_back(FixedSetting{n.text, vals->values.at(0), vals->ranges.at(0)});
    }
    if (s.body.empty()) diags_.error(s.range, "empty baseline", {"e.g. 'baseline < prog noop; >'"});
    cb.baseline = std::move(out);
    cb.baseline_range = s.range;
  }

  // `drop_code HOOK;` or `drop_code [HOOK, ...];` in a baseline: its point runs without
  // the bench's code at those hooks (the cost of the inline C is then what `_adj` shows).
  void drop_code(const ast::Setting &b, const CheckedBench &cb, std::vector<FixedSetting> &out) {
    std::vector<const ast::Value *> items;
    if (b.value && b.value->kind == ast::Value::Kind::List)
      for (const auto &v : b.value->items) items.push_back(&v);
    else if (b.value) items.push_back(&*b.value);
    std::vector<std::string> names;
    for (const auto &h : cb.family->hooks) names.push_back(h.name);
    if (items.empty()) diags_.error(b.range, "'drop_code' needs a hook name", {fmt::format("e.g. 'drop_code body;'")});
    for (const ast::Value *v : items) {
      bool known = v->kind == ast::Value::Kind::Ident && std::find(names.begin(), names.end(), v->text) != names.end();
      if (known) {
        // Not a param: the hook rides in the baseline's list under the name drop_code
        // (lower.cpp leaves its code out of the baseline point).
        out.push_back(FixedSetting{"drop_code", ParamValue{false, 0, v->text}, v->range});
        continue;
      }
      std::vector<std::string> hints;
      std::string close = v->kind == ast::Value::Kind::Ident ? did_you_mean(v->text, names) : "";
      if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
      hints.push_back(names.empty() ? fmt::format("family '{}' declares no hooks", cb.family->name)
                                    : fmt::format("'{}' has hooks: {}", cb.family->name, fmt::join(names, ", ")));
      diags_.error(v->range, fmt::format("'drop_code' takes a hook name of family '{}'", cb.family->name), hints);
    }
  }

  void report(const ast::Setting &s, State &st, bool from_defaults) {
    const FamilyManifest &f = *st.cb.family;
    std::vector<std::string> out;
    std::vector<std::string> names;
    for (const auto &m : f.metrics) names.push_back(m.name);
    for (const auto &n : s.names) {
      // latency is derived from the throughput metric (1000 / its rate per producer,
      // runtime/stats.cpp).
      bool derived = n.text == "latency" && f.derives_latency();
      if (!f.metric(n.text) && !derived) {
        if (from_defaults) continue;  // a defaults report lists metrics of several families
        std::vector<std::string> hints;
        std::string close = did_you_mean(n.text, names);
        if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
        hints.push_back(fmt::format("'{}' reports: {}", f.name, fmt::join(names, ", ")));
        diags_.error(n.range, fmt::format("unknown metric '{}' for family '{}'", n.text, f.name), hints);
        continue;
      }
      if (std::find(out.begin(), out.end(), n.text) != out.end()) {
        diags_.error(n.range, fmt::format("metric '{}' is reported twice", n.text));
        continue;
      }
      out.push_back(n.text);
    }
    if (!out.empty()) st.cb.report = std::move(out);
  }

  // `until ci < 5%;` (or 0.5%) — adaptive run length: sample until the 95% CI of the mean of the
  // first reported metric is within 5% of it.
  void until(const ast::Setting &s, State &st, bool from_defaults) {
    const ast::Name &n = s.names.at(0);
    if (n.text != "ci") {
      diags_.error(n.range, fmt::format("unknown condition '{}' for 'until'", n.text),
                   {"write 'until ci < 1%;' (the 95% confidence interval relative to the mean)"});
      return;
    }
    if (!from_defaults && st.cb.until_range.valid()) {
      diags_.error(s.range, "'until' is set twice in this bench");
      return;
    }
    if (s.op != "<" && s.op != "<=") {
      diags_.error(s.op_range, fmt::format("'until ci' needs '<' or '<=', not '{}'", s.op));
      return;
    }
    const auto &v = s.value;
    double pct = v ? double(v->number) / std::pow(10.0, v->decimals) : 0;
    if (!v || v->kind != ast::Value::Kind::Int || v->unit != "%" || !(pct >= 0.01) || pct > 100) {
      diags_.error(v ? v->range : s.range, "'until ci' needs a percentage from 0.01% to 100%",
                   {"e.g. 'until ci < 1%;' or 'until ci < 0.5%;'"});
      return;
    }
    st.cb.precision_pct = pct;
    if (!from_defaults) st.cb.until_range = s.range;
  }

  void check_label(const CheckedBench &cb, const std::vector<ParamSpec> &specs) {
    bool ok = true;
    auto refs = label_refs(*cb.label, ok);
    if (!ok) {
      diags_.error(cb.label_range, "unclosed '{' in label");
      return;
    }
    std::vector<std::string> names;
    for (const auto &s : specs) names.push_back(s.name);
    for (const auto &[name, offset] : refs) {
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      SourceRange r = cb.label_range;
      // The range covers `{name}`: +1 skips the opening quote; labels are single-line strings.
      if (r.line == r.end_line) {
        r.col = cb.label_range.col + static_cast<uint32_t>(offset) + 1;
        r.end_col = r.col + static_cast<uint32_t>(name.size()) + 1;
      }
      std::vector<std::string> hints;
      std::string close = did_you_mean(name, names);
      if (!close.empty()) hints.push_back(fmt::format("did you mean '{{{}}}'?", close));
      diags_.error(r, fmt::format("label refers to unknown parameter '{}'", name), hints);
    }
  }

  void count_points(CheckedBench &cb, const ast::Bench &b) {
    size_t n = 1;
    for (const auto &a : cb.axes) {
      size_t k = a.values.size() / a.params.size();
      if (k != 0 && n > kMaxPlanPoints / k) {
        diags_.error(b.family.range,
                     fmt::format("bench '{}' expands to more than {} points", b.family.text, kMaxPlanPoints));
        return;
      }
      n *= k;
    }
    cb.point_count = n;
    total_points_ += n;
    if (total_points_ > kMaxPlanPoints) {
      diags_.error(b.family.range, fmt::format("the plan has more than {} points", kMaxPlanPoints));
      return;
    }
    if (!within_memory_budget(cb, b)) return;
    if (n > kManyPointsWarning)
      diags_.warning(b.family.range, fmt::format("bench '{}' expands to {} points", b.family.text, n),
                     {"that is a long run; narrow a sweep or use a step, '*k' or 'log n' range"});
  }

  // Every point carries its own copy of the bench's `code` text and label: refused when
  // the copies would pass kMaxPlanBytes (n <= kMaxPlanPoints here, so nothing overflows).
  bool within_memory_budget(const CheckedBench &cb, const ast::Bench &b) {
    size_t per_point = kPointBytes + (cb.label ? cb.label->size() : 0);
    for (const auto &c : cb.code) per_point += c.text.size();
    plan_bytes_ += cb.point_count * per_point;
    if (plan_bytes_ <= kMaxPlanBytes) return true;
    diags_.error(b.family.range,
                 fmt::format("bench '{}' makes the plan too large to hold: {} points of {} bytes each "
                             "(the limit is {} MB)",
                             b.family.text, cb.point_count, per_point, kMaxPlanBytes >> 20),
                 {"each point holds its own copy of the bench's `code` blocks; sweep fewer values"});
    return false;
  }

  const FamilyRegistry &families_;
  Diagnostics &diags_;
  ast::Value nproc_;
  CheckedProgram out_;
  size_t bench_index_ = 0;
  size_t total_points_ = 0;
  size_t plan_bytes_ = 0;  // estimated, see within_memory_budget
  std::set<std::string> declared_;
  std::map<std::string, std::string> let_scope_;
  std::vector<std::vector<ParamValue>> zipped_values_;
};

}  // namespace

std::optional<CheckedProgram> check(const ast::File &file, const FamilyRegistry &families, int64_t nproc,
                                    Diagnostics &diags) {
  return Checker(families, nproc, diags).run(file);
}

}  // namespace bpfbench
