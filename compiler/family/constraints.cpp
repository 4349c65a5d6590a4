#include "compiler/family/constraints.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "compiler/family/builtins.hpp"
#include "util/strings.hpp"
#include "compiler/family/units.hpp"

namespace bpfbench {
namespace {

const std::vector<std::string> kOps = {"<=", ">=", "==", "!=", "<", ">"};

std::vector<std::string> split_and(const std::string &text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t pos; (pos = text.find("&&", start)) != std::string::npos; start = pos + 2)
    out.push_back(trim_blanks(text.substr(start, pos - start)));
  out.push_back(trim_blanks(text.substr(start)));
  return out;
}

const ParamSpec *find(const std::vector<ParamSpec> &specs, const std::string &name) {
  for (const auto &s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

// A literal right-hand side typed like the left-hand setting.
Result<ParamValue> literal(const std::string &text, const ParamSpec &lhs) {
  switch (lhs.type) {
  case ParamType::Bool:
    if (text == "true" || text == "1") return ParamValue{true, 1, {}};
    if (text == "false" || text == "0") return ParamValue{true, 0, {}};
    return Error("'" + lhs.name + "' is a bool: compare it with true or false");
  case ParamType::Enum:
    if (std::find(lhs.choices.begin(), lhs.choices.end(), text) != lhs.choices.end()) return ParamValue{false, 0, text};
    return Error("'" + text + "' is not one of " + lhs.name + "'s choices");
  case ParamType::Cpuset:
  case ParamType::Address: return ParamValue{false, 0, text};
  default: {
    auto v = parse_quantity(text, lhs.type);
    if (!v) return v.error();
    return ParamValue{true, *v, {}};
  }
  }
}

// `name % N` on the left: N a positive integer (producers % 2 == 0: an even count).
Result<> split_modulo(Comparison &c) {
  size_t pct = c.lhs.find('%');
  if (pct == std::string::npos) return {};
  std::string n = trim_blanks(c.lhs.substr(pct + 1));
  c.lhs = trim_blanks(c.lhs.substr(0, pct));
  if (n.empty() || n.size() > 9 || !std::all_of(n.begin(), n.end(), [](unsigned char ch) { return std::isdigit(ch); }) ||
      std::stoll(n) == 0) {
    return Error("the divisor after '%' is a positive integer");
  }
  c.modulo = std::stoll(n);
  return {};
}

}  // namespace

bool compare_values(const ParamValue &a, const std::string &op, const ParamValue &b) {
  int c;
  if (a.is_int && b.is_int) c = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  else c = a.to_string().compare(b.to_string());
  if (op == "<") return c < 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  if (op == ">=") return c >= 0;
  if (op == "==") return c == 0;
  if (op == "!=") return c != 0;
  return false;
}

bool holds(const Comparison &c, const ValueLookup &lookup) {
  auto a = lookup(c.lhs);
  if (!a) return false;
  if (c.modulo > 0 && a->is_int) a->i %= c.modulo;
  if (c.rhs_name.empty()) return compare_values(*a, c.op, c.rhs_value);
  auto b = lookup(c.rhs_name);
  return b && compare_values(*a, c.op, *b);
}

bool holds_all(const std::vector<Comparison> &cs, const ValueLookup &lookup) {
  return std::all_of(cs.begin(), cs.end(), [&](const Comparison &c) { return holds(c, lookup); });
}

std::vector<ParamSpec> setting_specs(const FamilyManifest &f) {
  std::vector<ParamSpec> specs = f.params;
  for (auto &b : builtin_settings(f)) specs.push_back(std::move(b));
  return specs;
}

Result<std::vector<Comparison>> parse_condition(const std::string &text, const FamilyManifest &f) {
  std::vector<Comparison> out;
  if (trim_blanks(text).empty()) return out;
  std::vector<ParamSpec> specs = setting_specs(f);
  for (const std::string &part : split_and(text)) {
    Comparison c;
    size_t at = std::string::npos;
    for (const auto &op : kOps)
      if ((at = part.find(op)) != std::string::npos) {
        c.op = op;
        break;
      }
    if (at == std::string::npos) {
      return Error("'" + part + "' in '" + text + "' is not 'name op value' (op: < <= > >= == !=)");
    }
    c.lhs = trim_blanks(part.substr(0, at));
    std::string rhs = trim_blanks(part.substr(at + c.op.size()));
    if (auto m = split_modulo(c); !m) return Error("'" + part + "' in '" + text + "': " + m.error().message);
    const ParamSpec *lhs = find(specs, c.lhs);
    if (!lhs) {
      return Error("'" + text + "' names unknown setting '" + c.lhs + "'");
    }
    if (c.modulo > 0 && lhs->type != ParamType::Int) {
      return Error("'" + text + "': '" + c.lhs + " % N' needs an int setting");
    }
    if (rhs.empty()) {
      return Error("'" + part + "' in '" + text + "' has no value");
    }
    if (find(specs, rhs)) {
      c.rhs_name = rhs;
    } else {
      auto v = literal(rhs, *lhs);
      if (!v) return Error("'" + text + "': " + v.error().message);
      c.rhs_value = *v;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<ParamValue> point_value(const PlanPoint &p, const std::string &name) {
  if (const ParamValue *v = p.param(name)) return *v;
  auto num = [](int64_t i) { return ParamValue{true, i, {}}; };
  auto str = [](std::string s) { return ParamValue{false, 0, std::move(s)}; };
  if (name == "warmup") return num(p.warmup_ns);
  if (name == "duration") return num(p.duration_ns);
  if (name == "producers") return num(p.producers);
  if (name == "consumers") return num(p.consumers);
  if (name == "affinity") return num(p.affinity ? 1 : 0);
  if (name == "prod_affinity") return str(p.prod_cpus);
  if (name == "cons_affinity") return str(p.cons_cpus);
  if (name == "prog") return str(p.program);
  if (name == "rounds") return num(p.rounds);
  return std::nullopt;
}

SourceRange point_value_range(const PlanPoint &p, const std::string &name) {
  for (size_t i = 0; i < p.params.size() && i < p.param_ranges.size(); ++i)
    if (p.params[i].first == name) return p.param_ranges[i];
  const auto &names = builtin_names();
  for (size_t i = 0; i < names.size() && i < p.builtin_ranges.size(); ++i)
    if (names[i] == name) return p.builtin_ranges[i];
  return {};
}

bool ConstraintChecker::check(const PlanPoint &p, const FamilyManifest &f) {
  ValueLookup lookup = [&](const std::string &n) { return point_value(p, n); };
  for (const auto &spec : f.constraints) {
    auto when = parse_condition(spec.when, f);
    auto req = parse_condition(spec.require, f);
    if (!when || !req) continue;  // the manifest loader rejected it already
    if (!holds_all(*when, lookup) || holds_all(*req, lookup)) continue;
    // Blame what the user wrote: the required settings first, then the condition's.
    SourceRange at;
    for (const auto *list : {&*req, &*when})
      for (const auto &c : *list)
        for (const std::string *n : {&c.lhs, &c.rhs_name})
          if (!at.valid() && !n->empty()) at = point_value_range(p, *n);
    if (!at.valid()) at = p.bench_range;
    if (reported_.emplace(at.line, at.col, at.file, spec.message).second) {
      std::vector<std::string> hints;
      std::string what = spec.when.empty() ? spec.require : spec.require + " when " + spec.when;
      hints.push_back(fmt::format("family '{}' requires {} (point '{}')", f.name, what, p.label));
      diags_.error(at, spec.message, hints);
    }
    return false;
  }
  return true;
}

}  // namespace bpfbench
