// Conditions over a point's settings: family.json `constraints` (checked per plan point,
// errors at the .bdsl setting that breaks them) and `where` filters (drop plan points).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"
#include "util/error.hpp"
#include "compiler/bdsl/plan.hpp"

namespace bpfbench {

// `lhs op rhs`: lhs names a family param or builtin setting; rhs is another such name
// (`rhs_name`) or a literal already typed like lhs (`rhs_value`).
struct Comparison {
  std::string lhs;
  int64_t modulo = 0;    // `lhs % N op value`: the left side's remainder by N (> 0)
  std::string op;        // < <= > >= == !=
  std::string rhs_name;  // "" when the right side is the literal
  ParamValue rhs_value;
  SourceRange range;  // `where` statements: the statement; manifests: invalid
};

// A point's value of a param or builtin by name; nullopt when unknown.
using ValueLookup = std::function<std::optional<ParamValue>(const std::string &)>;

// Numbers compare as numbers; anything else (enum choices, cpusets) as text.
bool compare_values(const ParamValue &a, const std::string &op, const ParamValue &b);
// False when a name is unknown to `lookup`.
bool holds(const Comparison &c, const ValueLookup &lookup);
bool holds_all(const std::vector<Comparison> &cs, const ValueLookup &lookup);

// Every param of `f` plus the builtin settings (warmup, producers, prog, ...).
std::vector<ParamSpec> setting_specs(const FamilyManifest &f);

// Parses the manifest form `name op value [&& name op value ...]` ("" = no condition).
// Values: another setting's name, true/false, a number with a unit for lhs's type, or an
// enum choice. An error (naming the text) on a bad condition.
Result<std::vector<Comparison>> parse_condition(const std::string &text, const FamilyManifest &f);

// The values of a plan point (params and builtins) and where each was written.
std::optional<ParamValue> point_value(const PlanPoint &p, const std::string &name);
SourceRange point_value_range(const PlanPoint &p, const std::string &name);

// Reports, per plan point, the first family constraint the point breaks, at the .bdsl
// range of the setting that breaks it (each message once per location).
class ConstraintChecker {
 public:
  explicit ConstraintChecker(Diagnostics &diags) : diags_(diags) {}
  // True when the point satisfies every constraint.
  bool check(const PlanPoint &p, const FamilyManifest &f);

 private:
  Diagnostics &diags_;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, std::string>> reported_;
};

}  // namespace bpfbench
