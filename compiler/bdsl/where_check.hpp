// `where lhs op rhs;` in a bench or defaults: checks it and turns it into a Comparison that
// lower() uses to drop the plan points for which it is false.
#pragma once

#include <optional>
#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/family/constraints.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/resolve_value.hpp"

namespace bpfbench {

// `specs`: the bench family's params and builtins. The right side is another setting's
// name (compared per point), a `let` (nproc included) or a literal of lhs's type; it is
// not range-checked (`where producers <= 100000` is a fine filter).
std::optional<Comparison> check_where(const ast::Setting &s, const std::vector<ParamSpec> &specs, const LetScope &lets,
                                      Diagnostics &diags);

}  // namespace bpfbench
