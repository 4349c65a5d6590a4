#include "compiler/bdsl/int_expr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "compiler/bdsl/names.hpp"
#include "compiler/family/units.hpp"

namespace bpfbench {

namespace {

using ast::Value;

constexpr size_t kMaxLetDepth = 64;

bool is_function(const Value &v) { return v.kind == Value::Kind::Expr && !v.text.empty() && is_ident_start(v.text[0]); }

int precedence(const Value &v) {
  if (v.kind != Value::Kind::Expr || is_function(v)) return 3;
  return (v.text == "*" || v.text == "/") ? 2 : 1;
}

class Evaluator {
 public:
  Evaluator(ParamType type, const std::string &param, const LetScope &lets, Diagnostics &diags)
      : type_(type),
        param_(param),
        lets_(lets),
        diags_(diags) {}

  std::optional<int64_t> eval(const Value &v) {
    switch (v.kind) {
    case Value::Kind::Int: return literal(v);
    case Value::Kind::Ident: return name(v);
    case Value::Kind::Expr: return is_function(v) ? call(v) : binary(v);
    case Value::Kind::String:
    case Value::Kind::List:
    case Value::Kind::Range: break;
    }
    // The grammar puts only numbers, names and expressions in an expression; a let may
    // hold anything, and name() reports that itself.
    diags_.error(v.range, "expected a number in the expression");
    return std::nullopt;
  }

  std::vector<std::pair<std::string, int64_t>> names() { return std::move(names_); }

 private:
  std::optional<int64_t> literal(const Value &v) {
    if (v.unit.empty()) return v.number;
    if (v.unit != "K" && v.unit != "M" && v.unit != "G") {
      diags_.error(v.range, fmt::format("unit '{}' is not allowed in an expression", v.unit),
                   {"expressions count things: K, M and G scale a number, units of time and % do not "
                    "combine (write one value, e.g. 1500ms)"});
      return std::nullopt;
    }
    ParamType t = type_ == ParamType::Size ? ParamType::Size : ParamType::Int;
    if (type_ == ParamType::Duration) {
      diags_.error(v.range, fmt::format("unit '{}' does not apply to a duration", v.unit));
      return std::nullopt;
    }
    auto x = apply_unit(v.number, v.unit, t);
    if (x) return *x;
    diags_.error(v.range, fmt::format("bad value in expression for '{}': {}", param_, x.error().message));
    return std::nullopt;
  }

  std::optional<int64_t> name(const Value &v) {
    auto it = lets_.find(v.text);
    if (it == lets_.end()) {
      std::vector<std::string> known;
      for (const auto &[k, _] : lets_) known.push_back(k);
      std::vector<std::string> hints;
      if (std::string h = dash_name_hint(v.text, lets_); !h.empty()) hints.push_back(h);
      else if (std::string close = did_you_mean(v.text, known); !close.empty())
        hints.push_back(fmt::format("did you mean '{}'?", close));
      hints.push_back("names in an expression are lets (nproc included); settings are not visible there");
      diags_.error(v.range, fmt::format("unknown name '{}' in expression", v.text), hints);
      return std::nullopt;
    }
    const Value *target = it->second;
    if (auto m = memo_.find(target); m != memo_.end()) return note(v.text, m->second);
    // Each let named inside a let is one more level of recursion: bound it like nesting.
    if (active_.size() >= kMaxLetDepth) {
      diags_.error(v.range, fmt::format("lets refer to lets more than {} levels deep", kMaxLetDepth));
      return std::nullopt;
    }
    if (!active_.insert(target).second) {
      diags_.error(v.range, fmt::format("'{}' refers to itself", v.text),
                   {"a let in a suite shadows a file-level let of the same name for every use inside it"});
      return std::nullopt;
    }
    std::optional<int64_t> x;
    switch (target->kind) {
    case Value::Kind::Int:
    case Value::Kind::Expr:
    case Value::Kind::Ident: x = eval(*target); break;
    case Value::Kind::String:
    case Value::Kind::List:
    case Value::Kind::Range:
      diags_.error(v.range, fmt::format("'{}' is a {}, not a number: it cannot be used in an expression", v.text,
                                        target->kind == Value::Kind::String ? "string"
                                        : target->kind == Value::Kind::List ? "list"
                                                                            : "range"));
      break;
    }
    active_.erase(target);
    if (!x) return std::nullopt;
    memo_[target] = *x;
    return note(v.text, *x);
  }

  int64_t note(const std::string &n, int64_t x) {
    if (std::none_of(names_.begin(), names_.end(), [&](const auto &p) { return p.first == n; }))
      names_.emplace_back(n, x);
    return x;
  }

  std::optional<int64_t> binary(const Value &v) {
    if (v.items.size() != 2) {
      diags_.error(v.range, "malformed expression");  // the parser builds only pairs
      return std::nullopt;
    }
    auto a = eval(v.items[0]);
    auto b = eval(v.items[1]);
    if (!a || !b) return std::nullopt;
    int64_t out = 0;
    bool overflow = false;
    if (v.text == "+") {
      overflow = __builtin_add_overflow(*a, *b, &out);
    } else if (v.text == "-") {
      overflow = __builtin_sub_overflow(*a, *b, &out);
    } else if (v.text == "*") {
      overflow = __builtin_mul_overflow(*a, *b, &out);
    } else if (v.text == "/") {
      if (*b == 0) {
        std::vector<std::string> hints;
        if (v.items[1].kind != Value::Kind::Int) hints.push_back(fmt::format("{} is 0 here", expr_text(v.items[1])));
        diags_.error(v.items[1].range, "division by zero", hints);
        return std::nullopt;
      }
      overflow = *a == INT64_MIN && *b == -1;
      if (!overflow) out = *a / *b;
    } else {
      diags_.error(v.op_range, fmt::format("unknown operator '{}'", v.text));
      return std::nullopt;
    }
    if (overflow) {
      diags_.error(v.op_range, fmt::format("integer overflow: {} {} {} does not fit in 64 bits", *a, v.text, *b));
      return std::nullopt;
    }
    return out;
  }

  std::optional<int64_t> call(const Value &v) {
    static const std::vector<std::string> kFunctions = {"min", "max"};
    if (std::find(kFunctions.begin(), kFunctions.end(), v.text) == kFunctions.end()) {
      std::vector<std::string> hints;
      if (std::string close = did_you_mean(v.text, kFunctions); !close.empty())
        hints.push_back(fmt::format("did you mean '{}'?", close));
      hints.push_back("the functions are min(a, b, ...) and max(a, b, ...)");
      diags_.error(v.op_range, fmt::format("unknown function '{}'", v.text), hints);
      return std::nullopt;
    }
    if (v.items.size() < 2) {
      diags_.error(v.range, fmt::format("{}() takes at least 2 arguments", v.text),
                   {fmt::format("e.g. {}(1, nproc - 1)", v.text)});
      return std::nullopt;
    }
    std::optional<int64_t> out;
    bool ok = true;
    for (const auto &arg : v.items) {
      auto x = eval(arg);
      if (!x) {
        ok = false;
        continue;
      }
      if (!out) out = x;
      else out = v.text == "min" ? std::min(*out, *x) : std::max(*out, *x);
    }
    return ok ? out : std::nullopt;
  }

  ParamType type_;
  const std::string &param_;
  const LetScope &lets_;
  Diagnostics &diags_;
  std::set<const Value *> active_;         // lets being evaluated: a cycle is an error
  std::map<const Value *, int64_t> memo_;  // each let once, however often it is named
  std::vector<std::pair<std::string, int64_t>> names_;
};

}  // namespace

std::optional<ExprValue> eval_int_expr(const ast::Value &expr, ParamType type, const std::string &param,
                                       const LetScope &lets, Diagnostics &diags) {
  Evaluator e(type, param, lets, diags);
  auto x = e.eval(expr);
  if (!x) return std::nullopt;
  return ExprValue{*x, e.names()};
}

std::string expr_text(const ast::Value &v) {
  switch (v.kind) {
  case Value::Kind::Int: return fmt::format("{}{}", v.number, v.unit);
  case Value::Kind::Ident: return v.text;
  case Value::Kind::Expr: break;
  default: return "...";
  }
  if (is_function(v)) {
    std::vector<std::string> args;
    for (const auto &a : v.items) args.push_back(expr_text(a));
    return fmt::format("{}({})", v.text, fmt::join(args, ", "));
  }
  if (v.items.size() != 2) return "...";
  int p = precedence(v);
  std::string l = expr_text(v.items[0]), r = expr_text(v.items[1]);
  if (precedence(v.items[0]) < p) l = "(" + l + ")";
  // Left to right: a - (b - c) and a / (b * c) need their parentheses.
  if (precedence(v.items[1]) < p || (precedence(v.items[1]) == p && (v.text == "-" || v.text == "/")))
    r = "(" + r + ")";
  return fmt::format("{} {} {}", l, v.text, r);
}

std::string dash_name_hint(const std::string &name, const LetScope &lets) {
  size_t dash = name.find('-');
  if (dash == std::string::npos || dash == 0) return "";
  std::string head = name.substr(0, dash);
  if (!lets.count(head)) return "";
  std::string spaced = head + " - " + name.substr(dash + 1);
  return fmt::format("'{}' is one name ('-' belongs to names); to subtract, write '{}'", name, spaced);
}

}  // namespace bpfbench
