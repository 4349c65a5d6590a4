// The PEGTL actions of the .bdsl grammar: what each named rule does to the Builder
// (compiler/bdsl/parse_builder.hpp) when it matches. Rules without an action do nothing.
#include "compiler/bdsl/parse_actions.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "compiler/bdsl/parse.hpp"  // kMaxNesting
#include "grammar/bdsl.hpp"
#include "grammar/error_messages.hpp"

namespace bpfbench::parse_detail {
namespace {

namespace g = grammar;

// A rule with an error message (grammar/error_messages.hpp) raises when it fails.
template <typename Rule>
using Control = pegtl::must_if<g::Errors>::control<Rule>;

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

}  // namespace

void parse_one_item(pegtl::memory_input<> &in, Builder &b) { pegtl::parse<g::one_item, Action, Control>(in, b); }

}  // namespace bpfbench::parse_detail
