// Turns an AST value (number with unit, identifier, string, list, range, let reference,
// integer expression)
// into typed ParamValues for one parameter, with range and type checks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/int_expr.hpp"
#include "compiler/family/manifest.hpp"

#include "util/error.hpp"

namespace bpfbench {

struct ResolvedValues {
  std::vector<ParamValue> values;
  std::vector<SourceRange> ranges;  // where each value was written
  bool is_list = false;             // a list or range (a sweep), not a scalar
};

// Ranges never expand past this many points: a typo like [1..1G] must not eat memory.
constexpr size_t kMaxRangePoints = 100000;

// Reports problems as diagnostics and returns nullopt when the value does not fit.
std::optional<ResolvedValues> resolve_values(const ast::Value &v, const ParamSpec &spec, const LetScope &lets,
                                             Diagnostics &diags);

// The value a setting without a value (`name;`) means: true for bools, an error otherwise.
std::optional<ResolvedValues> resolve_flag(const ast::Name &name, const ParamSpec &spec, Diagnostics &diags);

// Checks a cpuset string like "0-3,8" (CPUs 0-4095): nothing, or what is wrong with it.
Result<> check_cpuset(const std::string &text);

const char *type_noun(ParamType t);  // "an integer", "a size", ...

}  // namespace bpfbench
