// The parse stage's insides: the AST Builder and the PEGTL actions that fill it while the
// grammar (grammar/bdsl.hpp) matches. Included by compiler/parse.cpp only.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <tao/pegtl.hpp>

#include "compiler/ast.hpp"
#include "compiler/diagnostics.hpp"
#include "compiler/parse.hpp"
#include "compiler/source.hpp"
#include "grammar/bdsl.hpp"
#include "grammar/error_messages.hpp"

namespace bpfbench::parse_detail {

namespace g = grammar;
namespace pegtl = tao::pegtl;

template <typename Rule>
using Control = pegtl::must_if<g::Errors>::control<Rule>;

// An error the grammar cannot express (nesting too deep), thrown by an action:
// [begin, end) are byte offsets into the file.
struct SyntaxError {
  size_t begin, end;
  std::string message;
};

bool is_ident_first(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_other(char c) { return is_ident_first(c) || (c >= '0' && c <= '9') || c == '-'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
// Bytes that can never start a token: control characters and anything non-ASCII.
bool is_invalid(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && !is_space(c)) || u >= 0x7f;
}

// Maps byte offsets of one file to SourceRanges. Looks the file up on every call:
// SourceManager::add (for includes) may move the files.
struct Locator {
  const SourceManager &sm;
  uint32_t id;

  void position(size_t off, uint32_t &line, uint32_t &col) const {
    const auto &starts = sm.file(id).line_starts;
    auto it = std::upper_bound(starts.begin(), starts.end(), off);
    size_t idx = static_cast<size_t>(it - starts.begin());  // >= 1: starts[0] == 0
    line = static_cast<uint32_t>(idx);
    col = static_cast<uint32_t>(off - starts[idx - 1] + 1);
  }
  // [begin, end) -> inclusive range; an empty span marks the single column at begin.
  SourceRange range(size_t begin, size_t end) const {
    SourceRange r;
    r.file = id;
    position(begin, r.line, r.col);
    position(end > begin ? end - 1 : begin, r.end_line, r.end_col);
    return r;
  }
};

// "-1_000ms" -> -1000 and "ms"; false when the number does not fit in int64.
bool parse_int(std::string_view s, int64_t &number, std::string &unit) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  uint64_t base = 10;
  if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t mag = 0;
  bool overflow = false;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_') continue;
    uint64_t d;
    if (c >= '0' && c <= '9') d = uint64_t(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = uint64_t(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = uint64_t(c - 'A' + 10);
    else break;
    if (mag > (limit - d) / base) overflow = true;
    else mag = mag * base + d;
  }
  unit = std::string(s.substr(i));
  if (overflow) {
    number = 0;
    return false;
  }
  number = neg ? (mag == limit ? INT64_MIN : -static_cast<int64_t>(mag)) : static_cast<int64_t>(mag);
  return true;
}

// The contents of a matched string literal (quotes included) with escapes resolved.
std::string unescape(std::string_view lit) {
  std::string out;
  out.reserve(lit.size());
  for (size_t i = 1; i + 1 < lit.size(); ++i) {
    char c = lit[i];
    if (c == '\\' && i + 2 < lit.size()) {
      c = lit[++i];
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    out.push_back(c);
  }
  return out;
}

// Collects the AST of one top-level item while PEGTL matches it. The grammar decides
// between alternatives before any action runs, so nothing here is ever undone.
struct Builder {
  Builder(const char *base_, Locator loc_, Diagnostics &diags_) : base(base_), loc(loc_), diags(diags_) {}

  const char *base;
  Locator loc;
  Diagnostics &diags;

  std::vector<ast::Value> values;            // finished values not yet owned by a node
  std::vector<size_t> list_marks;            // values.size() at each open '['
  std::vector<size_t> opens;                 // offsets of unclosed '[' and '<' (for notes)
  std::optional<ast::RangeKind> range_kind;  // set by a range tail, taken by its bracket
  bool range_seen = false;
  std::optional<ast::Value> range_by;
  bool zipped = false;
  std::vector<ast::Name> names;              // names of the statement being parsed
  std::vector<ast::Setting> settings;        // settings of the bench/defaults being parsed
  std::vector<ast::Setting> outer_settings;  // the bench's settings while a baseline is open
  std::optional<ast::Setting::Kind> cond_kind;
  std::string cond_op;
  SourceRange cond_op_range;
  std::optional<ast::Name> family, label, let_name;
  std::vector<std::pair<ast::Name, size_t>> suites;  // open suites: title, items mark
  std::vector<ast::Item> items;
  std::optional<ast::Name> include;
  size_t string_start = 0;
  std::vector<ast::CodeBlock> code;  // `code` blocks of the bench/defaults being parsed
  std::optional<ast::Name> code_hook;
  std::string code_text;
  SourceRange code_text_range;
  size_t code_depth = 0;                                 // open '{' inside the code block being parsed
  std::vector<std::pair<std::string, size_t>> expr_ops;  // operators awaiting their right operand, offsets
  std::vector<std::pair<ast::Name, size_t>> calls;       // open calls: function, values mark
  size_t paren_depth = 0;                                // open '(' of expressions

  size_t offset(const char *p) const { return static_cast<size_t>(p - base); }
  template <typename In>
  SourceRange range(const In &in) const {
    return loc.range(offset(in.begin()), offset(in.end()));
  }
  template <typename In>
  ast::Name name(const In &in) const {
    return ast::Name{in.string(), range(in)};
  }
  template <typename In>
  ast::Value int_value(const In &in) {
    ast::Value v;
    v.kind = ast::Value::Kind::Int;
    v.range = range(in);
    if (!parse_int(in.string_view(), v.number, v.unit) && !diags.full())
      diags.error(v.range, "integer literal too large");
    return v;
  }
  // `0.5%`: the digits without the point, how many followed it, unit "%".
  template <typename In>
  ast::Value percent_decimal(const In &in) {
    ast::Value v;
    v.kind = ast::Value::Kind::Int;
    v.range = range(in);
    v.unit = std::string(1, '%');
    bool after_point = false;
    for (char c : in.string_view()) {
      if (c == '.') after_point = true;
      if (c < '0' || c > '9') continue;
      if (v.number > (INT64_MAX - 9) / 10) {
        if (!diags.full()) diags.error(v.range, "percentage has too many digits");
        v.number = 0;
        return v;
      }
      v.number = v.number * 10 + (c - '0');
      v.decimals += after_point;
    }
    return v;
  }
  ast::Value pop_value() {
    ast::Value v = std::move(values.back());
    values.pop_back();
    return v;
  }
  void check_depth(size_t at) const {
    if (list_marks.size() + suites.size() + code_depth + calls.size() + paren_depth >= kMaxNesting)
      throw SyntaxError{at, at + 1, fmt::format("nesting too deep (more than {} levels)", kMaxNesting)};
  }
  // `left OP right` from the two values on top of the stack (left-associative: a chain
  // folds as it is read). A chain deeper than kMaxNesting is refused here, so nothing
  // later recurses further than that.
  void combine() {
    ast::Value right = pop_value();
    ast::Value left = pop_value();
    ast::Value v;
    v.kind = ast::Value::Kind::Expr;
    v.text = std::move(expr_ops.back().first);
    size_t at = expr_ops.back().second;
    v.op_range = loc.range(at, at + v.text.size());
    expr_ops.pop_back();
    v.range = left.range;
    v.range.end_line = right.range.end_line;
    v.range.end_col = right.range.end_col;
    v.expr_depth = std::max(left.expr_depth, right.expr_depth) + 1;
    if (v.expr_depth >= kMaxNesting)
      throw SyntaxError{at, at + 1, fmt::format("expression nested too deep (more than {} operators)", kMaxNesting)};
    v.items.push_back(std::move(left));
    v.items.push_back(std::move(right));
    values.push_back(std::move(v));
  }
  void add_setting(ast::Setting::Kind kind, SourceRange r, bool has_value) {
    ast::Setting s;
    s.kind = kind;
    s.names = std::move(names);
    names.clear();
    if (has_value && !values.empty()) s.value = pop_value();
    s.zipped = zipped;
    zipped = false;
    s.range = r;
    settings.push_back(std::move(s));
  }
};

template <typename Rule>
struct Action : pegtl::nothing<Rule> {};

// --- values ---
template <>
struct Action<g::int_value> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.values.push_back(b.int_value(in));
  }
};
template <>
struct Action<g::ident_value> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    ast::Value v;
    v.kind = ast::Value::Kind::Ident;
    v.text = in.string();
    v.range = b.range(in);
    b.values.push_back(std::move(v));
  }
};
template <>
struct Action<g::quote_open> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.string_start = b.offset(in.begin());
  }
};
template <>
struct Action<g::string_lit> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    ast::Value v;
    v.kind = ast::Value::Kind::String;
    v.text = unescape(in.string_view());
    v.range = b.range(in);
    b.values.push_back(std::move(v));
  }
};
template <>
struct Action<g::lbracket> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.check_depth(b.offset(in.begin()));
    b.list_marks.push_back(b.values.size());
    b.opens.push_back(b.offset(in.begin()));
  }
};
template <>
struct Action<g::range_by> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.range_by = b.int_value(in);
  }
};
template <>
struct Action<g::range_step> {
  static void apply0(Builder &b) { b.range_kind = ast::RangeKind::Step; }
};
template <>
struct Action<g::range_geometric> {
  static void apply0(Builder &b) { b.range_kind = ast::RangeKind::Geometric; }
};
template <>
struct Action<g::range_log> {
  static void apply0(Builder &b) { b.range_kind = ast::RangeKind::Log; }
};
template <>
struct Action<g::range_tail> {
  static void apply0(Builder &b) { b.range_seen = true; }
};
// A bracket becomes a list, or a range when its tail had '..'. Inner brackets finish
// (and reset the range state) before an outer tail starts, so one slot suffices.
template <>
struct Action<g::bracket_value> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    ast::Value v;
    v.range = b.range(in);
    size_t mark = b.list_marks.back();
    b.list_marks.pop_back();
    b.opens.pop_back();
    v.items.assign(std::make_move_iterator(b.values.begin() + static_cast<ptrdiff_t>(mark)),
                   std::make_move_iterator(b.values.end()));
    b.values.resize(mark);
    if (b.range_seen) {
      v.kind = ast::Value::Kind::Range;
      v.range_kind = b.range_kind.value_or(ast::RangeKind::Step);
      if (b.range_by) {
        v.by = b.range_by->number;
        v.by_unit = b.range_by->unit;
        v.by_range = b.range_by->range;
        if (!v.by_unit.empty() && v.range_kind != ast::RangeKind::Step)
          b.diags.error(v.by_range, fmt::format("a {} takes a plain number, without a unit",
                                                v.range_kind == ast::RangeKind::Log ? "point count" : "factor"));
      }
    } else {
      v.kind = ast::Value::Kind::List;
    }
    b.range_seen = false;
    b.range_kind.reset();
    b.range_by.reset();
    b.values.push_back(std::move(v));
  }
};

// --- integer expressions: operators fold when their right operand is complete ---
template <typename Rule>
struct OpAction {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.expr_ops.emplace_back(in.string(), b.offset(in.begin()));
  }
};
template <>
struct Action<g::mul_op> : OpAction<g::mul_op> {};
template <>
struct Action<g::div_op> : OpAction<g::div_op> {};
template <>
struct Action<g::add_op> : OpAction<g::add_op> {};
template <typename Rule>
struct CombineAction {
  static void apply0(Builder &b) { b.combine(); }
};
template <>
struct Action<g::mul_tail> : CombineAction<g::mul_tail> {};
template <>
struct Action<g::div_tail> : CombineAction<g::div_tail> {};
template <>
struct Action<g::add_tail> : CombineAction<g::add_tail> {};
template <>
struct Action<g::bound_add_tail> : CombineAction<g::bound_add_tail> {};
template <>
struct Action<g::call_head> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    size_t open = b.offset(in.end()) - 1;  // the '('
    b.check_depth(open);
    b.calls.emplace_back(ast::Name{std::string(in.begin(), in.end() - 1), b.loc.range(b.offset(in.begin()), open)},
                         b.values.size());
    b.opens.push_back(open);
  }
};
template <>
struct Action<g::call_expr> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    auto [name, mark] = std::move(b.calls.back());
    b.calls.pop_back();
    b.opens.pop_back();
    ast::Value v;
    v.kind = ast::Value::Kind::Expr;
    v.text = std::move(name.text);
    v.op_range = name.range;
    v.range = b.range(in);
    for (size_t i = mark; i < b.values.size(); ++i) v.expr_depth = std::max(v.expr_depth, b.values[i].expr_depth);
    ++v.expr_depth;
    v.items.assign(std::make_move_iterator(b.values.begin() + static_cast<ptrdiff_t>(mark)),
                   std::make_move_iterator(b.values.end()));
    b.values.resize(mark);
    if (v.expr_depth >= kMaxNesting)
      throw SyntaxError{b.offset(in.begin()), b.offset(in.begin()) + 1,
                        fmt::format("expression nested too deep (more than {} operators)", kMaxNesting)};
    b.values.push_back(std::move(v));
  }
};
template <>
struct Action<g::paren_open> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.check_depth(b.offset(in.begin()));
    ++b.paren_depth;
    b.opens.push_back(b.offset(in.begin()));
  }
};
// Parentheses only group; the value's range grows to cover them.
template <>
struct Action<g::paren_expr> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    --b.paren_depth;
    b.opens.pop_back();
    SourceRange r = b.range(in);
    b.values.back().range = r;
  }
};

// --- settings ---
template <typename Rule>
struct NameAction {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.names.push_back(b.name(in));
  }
};
template <>
struct Action<g::metric_name> : NameAction<g::metric_name> {};
template <>
struct Action<g::sweep_name> : NameAction<g::sweep_name> {};
template <>
struct Action<g::zip_name> : NameAction<g::zip_name> {};
template <>
struct Action<g::setting_name> : NameAction<g::setting_name> {};
template <>
struct Action<g::zipped_sweep> {
  static void apply0(Builder &b) { b.zipped = true; }
};
template <>
struct Action<g::report_stmt> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.add_setting(ast::Setting::Kind::Report, b.range(in), false);
  }
};
template <>
struct Action<g::sweep_stmt> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.add_setting(ast::Setting::Kind::Sweep, b.range(in), true);
  }
};
template <>
struct Action<g::cond_name> : NameAction<g::cond_name> {};
template <>
struct Action<g::cond_where> {
  static void apply0(Builder &b) { b.cond_kind = ast::Setting::Kind::Where; }
};
template <>
struct Action<g::cond_until> {
  static void apply0(Builder &b) { b.cond_kind = ast::Setting::Kind::Until; }
};
template <>
struct Action<g::cond_expect> {
  static void apply0(Builder &b) { b.cond_kind = ast::Setting::Kind::Expect; }
};
template <>
struct Action<g::cond_op> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.cond_op = in.string();
    b.cond_op_range = b.range(in);
  }
};
template <>
struct Action<g::percent_decimal> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.values.push_back(b.percent_decimal(in));
  }
};
template <>
struct Action<g::cond_stmt> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.add_setting(*b.cond_kind, b.range(in), true);
    b.settings.back().op = std::move(b.cond_op);
    b.settings.back().op_range = b.cond_op_range;
    b.cond_kind.reset();
  }
};
template <>
struct Action<g::assign_stmt> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.add_setting(ast::Setting::Kind::Assign, b.range(in), true);
  }
};

// --- items ---
template <typename Rule>
struct OpenAction {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.opens.push_back(b.offset(in.begin()));
  }
};
template <typename Rule>
struct CloseAction {
  static void apply0(Builder &b) { b.opens.pop_back(); }
};
template <>
struct Action<g::defaults_open> : OpenAction<g::defaults_open> {};
template <>
struct Action<g::bench_open> : OpenAction<g::bench_open> {};
template <>
struct Action<g::suite_open> : OpenAction<g::suite_open> {};
template <>
struct Action<g::defaults_close> : CloseAction<g::defaults_close> {};
template <>
struct Action<g::bench_close> : CloseAction<g::bench_close> {};
template <>
struct Action<g::suite_close> : CloseAction<g::suite_close> {};
// A baseline's statements collect into a fresh list; the bench's wait aside.
template <>
struct Action<g::baseline_open> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.opens.push_back(b.offset(in.begin()));
    b.outer_settings = std::move(b.settings);
    b.settings.clear();
  }
};
template <>
struct Action<g::baseline_close> : CloseAction<g::baseline_close> {};
template <>
struct Action<g::baseline_stmt> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    ast::Setting s;
    s.kind = ast::Setting::Kind::Baseline;
    s.body = std::move(b.settings);
    s.range = b.range(in);
    b.settings = std::move(b.outer_settings);
    b.outer_settings.clear();
    b.settings.push_back(std::move(s));
  }
};

// --- code blocks: raw C, kept byte for byte with where it starts ---
template <>
struct Action<g::code_hook> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.code_hook = b.name(in);
  }
};
template <>
struct Action<g::code_open> : OpenAction<g::code_open> {};
template <>
struct Action<g::code_close> : CloseAction<g::code_close> {};
// Nested braces count towards the nesting limit: the rule recurses per '{'.
template <>
struct Action<g::code_brace_open> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.check_depth(b.offset(in.begin()));
    ++b.code_depth;
    b.opens.push_back(b.offset(in.begin()));
  }
};
template <>
struct Action<g::code_brace_close> {
  static void apply0(Builder &b) {
    --b.code_depth;
    b.opens.pop_back();
  }
};
template <>
struct Action<g::code_body> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.code_text = in.string();
    b.code_text_range = b.range(in);
  }
};
template <>
struct Action<g::code_stmt> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.code.push_back(ast::CodeBlock{std::move(*b.code_hook), std::move(b.code_text), b.code_text_range, b.range(in)});
    b.code_hook.reset();
    b.code_text.clear();
  }
};

template <>
struct Action<g::include_path> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.include = ast::Name{unescape(in.string_view()), b.range(in)};
  }
};
template <>
struct Action<g::let_name> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.let_name = b.name(in);
  }
};
template <>
struct Action<g::let_item> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.items.push_back(ast::Item{ast::Let{std::move(*b.let_name), b.pop_value(), b.range(in)}});
  }
};
template <>
struct Action<g::defaults_item> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.items.push_back(ast::Item{ast::Defaults{std::move(b.settings), b.range(in)}});
    b.settings.clear();
    for (const auto &c : b.code)
      if (!b.diags.full())
        b.diags.error(c.range, "'code' belongs in a bench, not in defaults",
                      {"inline C is inserted into one bench's program"});
    b.code.clear();
  }
};
template <>
struct Action<g::bench_family> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.family = b.name(in);
  }
};
template <>
struct Action<g::bench_label> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.label = ast::Name{unescape(in.string_view()), b.range(in)};
  }
};
template <>
struct Action<g::bench_item> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.items.push_back(ast::Item{
        ast::Bench{std::move(*b.family), std::move(b.label), std::move(b.settings), b.range(in), std::move(b.code)}});
    b.label.reset();
    b.settings.clear();
    b.code.clear();
  }
};
template <>
struct Action<g::suite_title> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    b.check_depth(b.offset(in.begin()));
    b.suites.emplace_back(ast::Name{unescape(in.string_view()), b.range(in)}, b.items.size());
  }
};
template <>
struct Action<g::suite_item> {
  template <typename In>
  static void apply(const In &in, Builder &b) {
    auto [title, mark] = std::move(b.suites.back());
    b.suites.pop_back();
    ast::Suite s{std::move(title), {}, b.range(in)};
    s.items.assign(std::make_move_iterator(b.items.begin() + static_cast<ptrdiff_t>(mark)),
                   std::make_move_iterator(b.items.end()));
    b.items.resize(mark);
    b.items.push_back(ast::Item{std::move(s)});
  }
};

}  // namespace bpfbench::parse_detail
