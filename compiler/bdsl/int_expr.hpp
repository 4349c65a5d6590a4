// Integer expressions in .bdsl values (`nproc - 1`, `max(1, nproc / 2)`): evaluation with
// 64-bit overflow checks; every failure is a diagnostic at the operator or operand.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"

namespace bpfbench {

// Visible `let` bindings (name -> value). Values are owned by the AST.
using LetScope = std::map<std::string, const ast::Value *>;

struct ExprValue {
  int64_t value = 0;
  // The names the expression read and their values, in first-use order (for hints:
  // "nproc - 1 is 0 here (nproc = 1)").
  std::vector<std::pair<std::string, int64_t>> names;
};

// Evaluates an Expr value for parameter `param` of type `type`. Operands are integers,
// `let` names holding integers or expressions (`nproc` included) and nested expressions;
// K/M/G scale literals as the parameter's type does (size: 2^10..., int: 10^3...); units
// of time and '%' are refused (the result is used like a literal written without unit).
// Division truncates toward zero; division by zero and overflow are errors.
std::optional<ExprValue> eval_int_expr(const ast::Value &expr, ParamType type, const std::string &param,
                                       const LetScope &lets, Diagnostics &diags);

// The expression as .bdsl text, with only the parentheses precedence needs: "nproc - 1".
std::string expr_text(const ast::Value &v);

// "nproc-1" is one identifier ('-' belongs to names); when `name` looks like an
// expression of visible lets, the hint to write it with spaces ("" otherwise).
std::string dash_name_hint(const std::string &name, const LetScope &lets);

}  // namespace bpfbench
