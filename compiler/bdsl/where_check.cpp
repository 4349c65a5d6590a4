#include "compiler/bdsl/where_check.hpp"

#include <fmt/format.h>

namespace bpfbench {

std::optional<Comparison> check_where(const ast::Setting &s, const std::vector<ParamSpec> &specs, const LetScope &lets,
                                      Diagnostics &diags) {
  auto find = [&](const std::string &n) -> const ParamSpec * {
    for (const auto &p : specs)
      if (p.name == n) return &p;
    return nullptr;
  };
  const ast::Name &n = s.names.at(0);
  const ParamSpec *lhs = find(n.text);
  if (!lhs) {
    std::vector<std::string> names;
    for (const auto &p : specs) names.push_back(p.name);
    std::vector<std::string> hints;
    if (std::string close = did_you_mean(n.text, names); !close.empty())
      hints.push_back(fmt::format("did you mean '{}'?", close));
    diags.error(n.range, fmt::format("'where' names unknown setting '{}'", n.text), hints);
    return std::nullopt;
  }
  if (!s.value) {
    diags.error(s.range, "'where' needs a value to compare with");
    return std::nullopt;
  }
  Comparison c;
  c.lhs = n.text;
  c.op = s.op;
  c.range = s.range;
  const ast::Value &v = *s.value;
  // Another setting, unless a let of that name shadows it.
  if (v.kind == ast::Value::Kind::Ident && !lets.count(v.text) && find(v.text)) {
    c.rhs_name = v.text;
    return c;
  }
  // A literal of lhs's type, without lhs's min/max: a filter bound need not be a value.
  ParamSpec loose = *lhs;
  loose.min = INT64_MIN;
  loose.max = INT64_MAX;
  loose.power_of_two = false;
  size_t before = diags.error_count();
  auto vals = resolve_values(v, loose, lets, diags);
  if (!vals) return std::nullopt;
  if (vals->is_list || vals->values.size() != 1) {
    diags.error(v.range, "'where' compares with one value, not a list");
    return std::nullopt;
  }
  if (diags.error_count() != before) return std::nullopt;
  c.rhs_value = vals->values.front();
  return c;
}

}  // namespace bpfbench
