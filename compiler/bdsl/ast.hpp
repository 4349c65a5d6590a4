// The .bdsl abstract syntax tree: what the parser produces, checked and lowered later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compiler/bdsl/source.hpp"

namespace bpfbench::ast {

struct Name {
  std::string text;
  SourceRange range;
};

// `[a..b]`, `[a..b step s]`, `[a..b *k]`, `[a..b log n]`; bounds are Int values.
enum class RangeKind { Step, Geometric, Log };

// Expr: integer arithmetic, evaluated by the checker (compiler/bdsl/int_expr.hpp).
//   `a - b` → text "-", items {a, b}; operators + - * / (binary, left to right).
//   `max(a, b, ...)` → text "max", items = the arguments (the checker knows min, max).
//   op_range is the operator or the function name. Parentheses only group: `(5)` is Int.
struct Value {
  enum class Kind { Int, Ident, String, List, Range, Expr };
  Kind kind = Kind::Int;
  SourceRange range;

  // Int: the number as written (before the unit is applied) and its unit suffix
  // ("" when none; one of s ms us ns K M G). Checked and scaled by check().
  int64_t number = 0;
  std::string unit;
  // Digits after the decimal point: only a condition's percentage has them (`until ci <
  // 0.5%` is number 5, decimals 1, unit "%"); 0 everywhere else.
  int decimals = 0;
  // Ident: the identifier; String: the unescaped contents; Expr: the operator or function.
  std::string text;
  // List: the elements. Range: exactly [from, to] (+ `by` when present).
  std::vector<Value> items;
  RangeKind range_kind = RangeKind::Step;
  std::optional<int64_t> by;  // step, factor, or point count; absent = step 1
  std::string by_unit;        // unit suffix of a `step` (e.g. "ms" in [1ms..9ms step 2ms])
  SourceRange by_range;
  // Expr: where the operator or function name is; how deep Exprs nest below (and at) this
  // value, which the parser bounds so evaluation never recurses without limit.
  SourceRange op_range;
  uint32_t expr_depth = 0;
};

// One statement inside `bench < ... >` or `defaults < ... >`.
//   Assign: `name;` or `name value;`          names = {name}
//   Sweep:  `sweep name value;`                names = {name}
//           `sweep (n1, n2) over value;`       names = {n1, n2}, zipped = true
//   Report: `report m1, m2;`                   names = metrics, no value
//   Where/Until/Expect: `where producers <= nproc;`, `until ci < 1%;`, `expect drops == 0;`
//                      names = {left-hand name}, op = < <= > >= == !=, value = right side
//   Baseline: `baseline < settings >` — nested settings in `body` (no names, no value)
struct Setting {
  enum class Kind { Assign, Sweep, Report, Where, Until, Expect, Baseline };
  Kind kind = Kind::Assign;
  std::vector<Name> names;
  std::optional<Value> value;
  bool zipped = false;
  std::string op;
  SourceRange op_range;
  std::vector<Setting> body;
  SourceRange range;  // the whole statement
};

// `let name = value;`
struct Let {
  Name name;
  Value value;
  SourceRange range;
};

// `defaults < settings >`: applies to the benches after it in the same scope.
struct Defaults {
  std::vector<Setting> settings;
  SourceRange range;
};

// `code HOOK { C text }` inside a bench: raw BPF C the emitter inserts at the family
// template's hook HOOK (compiler/bpf/code_hooks.hpp).
struct CodeBlock {
  Name hook;
  std::string text;        // between the braces, byte for byte
  SourceRange text_range;  // starts at the byte after '{' (an empty text: the '}')
  SourceRange range;       // the whole block
};

// `bench FAMILY [as "label {param}"] < settings >`
struct Bench {
  Name family;
  std::optional<Name> label;  // text is the label template, unescaped
  std::vector<Setting> settings;
  SourceRange range;
  std::vector<CodeBlock> code;  // its `code` blocks, in file order
};

struct Item;

// `suite "title" < (let | defaults | bench)* >`
struct Suite {
  Name title;
  std::vector<Item> items;
  SourceRange range;
};

struct Item {
  std::variant<Let, Defaults, Bench, Suite> node;
};

// A whole file with includes already spliced in (their items carry their own file ids).
struct File {
  std::vector<Item> items;
};

}  // namespace bpfbench::ast
