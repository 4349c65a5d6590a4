// Error messages of the .bdsl grammar: one per rule that must match where it is used.
#pragma once

#include "grammar/bdsl.hpp"

namespace bpfbench::grammar {

// A rule with a message raises a parse error whenever it fails (see must_if in compiler/bdsl/parse_actions.cpp).
template <typename Rule>
inline constexpr const char *error_message = nullptr;

// clang-format off
template<> inline constexpr auto error_message< expected_item > = "expected 'bench', 'suite', 'let', 'defaults' or 'include'";

template<> inline constexpr auto error_message< escape_char > = "unknown escape sequence (use \\\", \\\\, \\n or \\t)";
template<> inline constexpr auto error_message< string_close > = "unterminated string";

template<> inline constexpr auto error_message< bracket_body > = "expected a value or ']'";
template<> inline constexpr auto error_message< list_item > = "expected a value after ','";
template<> inline constexpr auto error_message< list_close > = "expected ',' or ']' in list";
template<> inline constexpr auto error_message< range_to > = "expected an integer after '..'";

template<> inline constexpr auto error_message< call_arg > = "expected an expression as argument";
template<> inline constexpr auto error_message< call_close > = "expected ',' or ')' in the argument list";
template<> inline constexpr auto error_message< paren_inner > = "expected an expression after '('";
template<> inline constexpr auto error_message< paren_close > = "expected ')'";
template<> inline constexpr auto error_message< operand > = "expected a number, a name or '(' after the operator";
template<> inline constexpr auto error_message< term_operand > = "expected a number, a name or '(' after the operator";
template<> inline constexpr auto error_message< bound_operand > = "expected a number, a name or '(' after the operator";
template<> inline constexpr auto error_message< range_by > = "expected an integer";
template<> inline constexpr auto error_message< range_close > = "expected ']' to close range";

template<> inline constexpr auto error_message< metric_name > = "expected a metric name";
template<> inline constexpr auto error_message< sweep_target > = "expected a parameter name or '(' after 'sweep'";
template<> inline constexpr auto error_message< sweep_value > = "expected a value";
template<> inline constexpr auto error_message< zip_name > = "expected a parameter name";
template<> inline constexpr auto error_message< zip_close > = "expected ',' or ')' in the sweep's name list";
template<> inline constexpr auto error_message< zip_over > = "expected 'over' after the sweep's name list";
template<> inline constexpr auto error_message< stmt_end > = "expected ';' after setting";
template<> inline constexpr auto error_message< cond_name > = "expected a name (a parameter or metric) to compare";
template<> inline constexpr auto error_message< cond_op > = "expected a comparison: <, <=, >, >=, == or !=";
template<> inline constexpr auto error_message< cond_value > = "expected a value to compare with";
template<> inline constexpr auto error_message< baseline_open > = "expected '<' after 'baseline'";
template<> inline constexpr auto error_message< baseline_close > = "expected '>' to close baseline";
template<> inline constexpr auto error_message< code_hook > = "expected a hook name after 'code' (e.g. 'code body { ... }')";
template<> inline constexpr auto error_message< code_open > = "expected '{' to open the code block";
template<> inline constexpr auto error_message< code_close > = "expected '}' to close the code block";
template<> inline constexpr auto error_message< code_brace_close > = "expected '}' to close the code block";

template<> inline constexpr auto error_message< include_path > = "expected a file name string after 'include'";
template<> inline constexpr auto error_message< include_end > = "expected ';' after include";

template<> inline constexpr auto error_message< let_name > = "expected a name after 'let'";
template<> inline constexpr auto error_message< let_equals > = "expected '=' after the name in 'let'";
template<> inline constexpr auto error_message< let_value > = "expected a value";
template<> inline constexpr auto error_message< let_end > = "expected ';' after let";

template<> inline constexpr auto error_message< defaults_open > = "expected '<' after 'defaults'";
template<> inline constexpr auto error_message< defaults_close > = "expected '>' to close defaults";

template<> inline constexpr auto error_message< bench_family > = "expected a family name after 'bench'";
template<> inline constexpr auto error_message< bench_label > = "expected a label string after 'as'";
template<> inline constexpr auto error_message< bench_open > = "expected '<' to open bench";
template<> inline constexpr auto error_message< bench_close > = "expected '>' to close bench";

template<> inline constexpr auto error_message< suite_title > = "expected a title string after 'suite'";
template<> inline constexpr auto error_message< suite_open > = "expected '<' after the suite title";
template<> inline constexpr auto error_message< suite_close > = "expected '>' to close suite";
// clang-format on

// The `Errors` argument of tao::pegtl::must_if.
struct Errors {
  template <typename Rule>
  static constexpr const char *message = error_message<Rule>;
};

}  // namespace bpfbench::grammar
