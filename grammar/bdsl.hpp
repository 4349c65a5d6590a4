// The .bdsl grammar as PEGTL rules (rules only: messages in error_messages.hpp, actions in compiler/bdsl/parse_actions.cpp).
#pragma once

#include <tao/pegtl.hpp>

namespace bpfbench::grammar {

using namespace tao::pegtl;

// Every rule an action or an error message attaches to has its own name. A rule with an
// error message raises whenever it fails (must_if control), so such rules are used only
// where nothing else may follow: they are thin named copies of the general rules.

// clang-format off

// --- lexical -----------------------------------------------------------------------------

// comment := ('#' | '//') .* EOL
struct line_comment : sor< seq< one< '#' >, until< eolf > >, seq< two< '/' >, until< eolf > > > {};
// ws := (space | comment)*
struct ws : star< sor< space, line_comment > > {};

// ident := [A-Za-z_][A-Za-z0-9_-]*   (dashes inside names: rb-custom)
struct ident_first : ranges< 'a', 'z', 'A', 'Z', '_' > {};
struct ident_other : ranges< 'a', 'z', 'A', 'Z', '0', '9', '_', '_', '-', '-' > {};
struct identifier : seq< ident_first, star< ident_other > > {};

// A keyword is a whole word: `log` does not match the start of `logger`.
template< typename Word > struct key : seq< Word, not_at< ident_other > > {};
struct kw_include : key< TAO_PEGTL_STRING( "include" ) > {};
struct kw_let : key< TAO_PEGTL_STRING( "let" ) > {};
struct kw_defaults : key< TAO_PEGTL_STRING( "defaults" ) > {};
struct kw_suite : key< TAO_PEGTL_STRING( "suite" ) > {};
struct kw_bench : key< TAO_PEGTL_STRING( "bench" ) > {};
struct kw_as : key< TAO_PEGTL_STRING( "as" ) > {};
struct kw_sweep : key< TAO_PEGTL_STRING( "sweep" ) > {};
struct kw_over : key< TAO_PEGTL_STRING( "over" ) > {};
struct kw_report : key< TAO_PEGTL_STRING( "report" ) > {};
struct kw_step : key< TAO_PEGTL_STRING( "step" ) > {};
struct kw_log : key< TAO_PEGTL_STRING( "log" ) > {};
struct kw_where : key< TAO_PEGTL_STRING( "where" ) > {};
struct kw_until : key< TAO_PEGTL_STRING( "until" ) > {};
struct kw_expect : key< TAO_PEGTL_STRING( "expect" ) > {};
struct kw_baseline : key< TAO_PEGTL_STRING( "baseline" ) > {};

// int := '-'? (hex | dec) unit?   with '_' between digits: 1_000_000, 0x10_00
struct dec_digits : seq< digit, star< opt< one< '_' > >, digit > > {};
struct hex_digits : seq< one< '0' >, one< 'x', 'X' >, xdigit, star< opt< one< '_' > >, xdigit > > {};
// unit := s | ms | us | ns | K | M | G   (attached: 500ms, never 500 ms)
struct unit : sor< string< 'm', 's' >, string< 'u', 's' >, string< 'n', 's' >, one< 's', 'K', 'M', 'G', '%' > > {};
struct int_value : seq< opt< one< '-' > >, sor< hex_digits, dec_digits >, opt< unit >, not_at< ident_other > > {};

// ident value: any identifier, keywords included (`prog log` names a program called log).
struct ident_value : identifier {};

// string := '"' (char | '\' ["\\nt])* '"'    on one line; no raw control characters
struct quote_open : one< '"' > {};
struct escape_char : one< '"', '\\', 'n', 't' > {};
struct escape : seq< one< '\\' >, must< escape_char > > {};
struct string_plain : sor< one< '\t' >, seq< not_at< one< '"', '\\', '\x7f' > >, not_range< '\0', '\x1f' > > > {};
struct string_close : one< '"' > {};
struct string_lit : seq< quote_open, star< sor< escape, string_plain > >, must< string_close > > {};

// --- integer expressions -----------------------------------------------------------------

// expr   := term { ('+' | '-') term }           left to right, like C
// term   := factor { ('*' | '/') factor }
// factor := call | '(' expr ')' | int | ident
// call   := ident '(' expr { ',' expr } ')'      no space before '(': min(a, b), max(1, nproc - 1)
// A name may contain '-', so `nproc-1` is one identifier: write `nproc - 1`. The checker
// evaluates expressions (compiler/bdsl/int_expr.cpp); a lone int or ident stays what it is.
struct expr;
struct factor;
struct call_head : seq< identifier, one< '(' > > {};
struct call_arg : seq< expr > {};
struct call_close : one< ')' > {};
struct call_expr : seq< call_head, ws, must< call_arg >, ws,
                        star< one< ',' >, ws, must< call_arg >, ws >, must< call_close > > {};
struct paren_open : one< '(' > {};
struct paren_inner : seq< expr > {};
struct paren_close : one< ')' > {};
struct paren_expr : seq< paren_open, ws, must< paren_inner >, ws, must< paren_close > > {};
struct factor : sor< call_expr, paren_expr, int_value, ident_value > {};
struct operand : seq< factor > {};
struct mul_op : one< '*', '/' > {};
struct mul_tail : seq< ws, mul_op, ws, must< operand > > {};
struct term : seq< factor, star< mul_tail > > {};
struct term_operand : seq< term > {};
struct add_op : one< '+', '-' > {};
struct add_tail : seq< ws, add_op, ws, must< term_operand > > {};
struct expr : seq< term, star< add_tail > > {};

// A range's upper bound is an expr without a top-level '*', which starts the geometric
// factor there: [1..nproc *2] is 1, 2, 4, ... up to nproc; write [1..(nproc * 2)].
struct div_op : one< '/' > {};
struct div_tail : seq< ws, div_op, ws, must< operand > > {};
struct bound_term : seq< factor, star< div_tail > > {};
struct bound_operand : seq< bound_term > {};
struct bound_add_tail : seq< ws, add_op, ws, must< bound_operand > > {};
struct bound_expr : seq< bound_term, star< bound_add_tail > > {};

// --- values ------------------------------------------------------------------------------

struct value;

// bracket := '[' ']' | '[' value (',' value)* ']' | '[' value '..' bound_expr by? ']'
// by      := 'step' int | '*' int | 'log' int
struct lbracket : one< '[' > {};
struct empty_list : one< ']' > {};
struct list_item : seq< value > {};
struct list_close : one< ']' > {};
struct list_tail : seq< star< one< ',' >, ws, must< list_item >, ws >, must< list_close > > {};
struct range_to : bound_expr {};
struct range_by : int_value {};
struct range_step : seq< kw_step, ws, must< range_by > > {};
struct range_geometric : seq< one< '*' >, ws, must< range_by > > {};
struct range_log : seq< kw_log, ws, must< range_by > > {};
struct range_close : one< ']' > {};
struct range_tail : seq< two< '.' >, ws, must< range_to >, ws,
                         opt< sor< range_step, range_geometric, range_log >, ws >,
                         must< range_close > > {};
struct bracket_body : sor< empty_list, seq< value, ws, sor< range_tail, list_tail > > > {};
struct bracket_value : seq< lbracket, ws, must< bracket_body > > {};

// value := bracket | string | expr
struct value : sor< bracket_value, string_lit, expr > {};

// --- settings (inside `bench < ... >` and `defaults < ... >`) ----------------------------

// report := 'report' metric (',' metric)*
struct metric_name : identifier {};
struct report_stmt : seq< kw_report, ws, must< metric_name >, star< ws, one< ',' >, ws, must< metric_name > > > {};

// sweep := 'sweep' name value | 'sweep' '(' name (',' name)* ')' 'over' value
struct sweep_name : identifier {};
struct sweep_value : value {};
struct zip_name : identifier {};
struct zip_close : one< ')' > {};
struct zip_over : kw_over {};
struct single_sweep : seq< sweep_name, ws, must< sweep_value > > {};
struct zipped_sweep : seq< one< '(' >, ws, must< zip_name >, star< ws, one< ',' >, ws, must< zip_name > >, ws,
                           must< zip_close >, ws, must< zip_over >, ws, must< sweep_value > > {};
struct sweep_target : sor< zipped_sweep, single_sweep > {};
struct sweep_stmt : seq< kw_sweep, ws, must< sweep_target > > {};

// assign := name value?    (not an item keyword: a missing '>' then reads well)
struct item_keyword : sor< kw_include, kw_let, kw_defaults, kw_suite, kw_bench > {};
struct setting_name : seq< not_at< sor< item_keyword, kw_baseline > >, identifier > {};
struct assign_stmt : seq< setting_name, ws, opt< value > > {};

// condition := ('where' | 'until' | 'expect') name op (value | decimal '%')
//   where producers <= nproc;   until ci < 1%;   expect drops == 0;
struct cond_where : kw_where {};
struct cond_until : kw_until {};
struct cond_expect : kw_expect {};
struct cond_name : identifier {};
struct cond_op : sor< string< '<', '=' >, string< '>', '=' >, string< '=', '=' >, string< '!', '=' >, one< '<', '>' > > {};
// A condition may compare with a decimal percentage: until ci < 0.5%;
struct percent_decimal : seq< dec_digits, one< '.' >, dec_digits, one< '%' >, not_at< ident_other > > {};
struct cond_value : sor< percent_decimal, value > {};
struct cond_stmt : seq< sor< cond_where, cond_until, cond_expect >, ws, must< cond_name >, ws, must< cond_op >, ws,
                        must< cond_value > > {};

struct statement : sor< report_stmt, sweep_stmt, cond_stmt, assign_stmt > {};
// The last ';' before '>' may be left out; stray ';' are allowed. At the end of the
// text, or where the next item starts (`bench`, `suite`, ...), the missing '>' is the
// better error, reported by the enclosing block.
struct stmt_end : sor< one< ';' >, at< one< '>' > >, at< item_keyword >, eof > {};
struct plain_settings : star< sor< one< ';' >, seq< statement, ws, must< stmt_end > > >, ws > {};

// baseline := 'baseline' '<' settings '>'   (inside a bench; baselines do not nest)
struct baseline_open : one< '<' > {};
struct baseline_close : one< '>' > {};
struct baseline_stmt : seq< kw_baseline, ws, must< baseline_open >, ws, plain_settings, must< baseline_close > > {};

// code := 'code' hook '{' C text '}'   inline BPF C for the family template's hook `hook`.
// The text is raw (not .bdsl tokens: '#' starts a C directive, not a comment); braces must
// balance, except inside C comments, string and character literals. Lenient on purpose
// about unterminated C literals: clang reports those, at the right .bdsl line.
struct kw_code : key< TAO_PEGTL_STRING( "code" ) > {};
struct code_hook : identifier {};
struct code_open : one< '{' > {};
struct c_block_comment : seq< one< '/' >, one< '*' >, until< sor< seq< one< '*' >, one< '/' > >, eof > > > {};
struct c_line_comment : seq< two< '/' >, until< eolf > > {};
struct c_escape : seq< one< '\\' >, any > {};
struct c_string : seq< one< '"' >, star< sor< c_escape, not_one< '"', '\n' > > >, opt< one< '"' > > > {};
struct c_char : seq< one< '\'' >, star< sor< c_escape, not_one< '\'', '\n' > > >, opt< one< '\'' > > > {};
struct code_text;
struct code_brace_open : one< '{' > {};
struct code_brace_close : one< '}' > {};
struct code_braces : seq< code_brace_open, code_text, must< code_brace_close > > {};
struct code_text : star< sor< c_block_comment, c_line_comment, c_string, c_char, code_braces, not_one< '{', '}' > > > {};
struct code_body : code_text {};
struct code_close : one< '}' > {};
struct code_stmt : seq< kw_code, ws, must< code_hook >, ws, must< code_open >, code_body, must< code_close > > {};

struct settings : star< sor< one< ';' >, seq< baseline_stmt, ws >, seq< code_stmt, ws >, seq< statement, ws, must< stmt_end > > >, ws > {};

// --- items -------------------------------------------------------------------------------

// include := 'include' string ';'
struct include_path : string_lit {};
struct include_end : one< ';' > {};
struct include_item : seq< kw_include, ws, must< include_path >, ws, must< include_end > > {};

// let := 'let' name '=' value ';'
struct let_name : identifier {};
struct let_equals : one< '=' > {};
struct let_value : value {};
struct let_end : one< ';' > {};
struct let_item : seq< kw_let, ws, must< let_name >, ws, must< let_equals >, ws, must< let_value >, ws, must< let_end > > {};

// defaults := 'defaults' '<' settings '>'
struct defaults_open : one< '<' > {};
struct defaults_close : one< '>' > {};
struct defaults_item : seq< kw_defaults, ws, must< defaults_open >, ws, settings, must< defaults_close > > {};

// bench := 'bench' family ('as' string)? '<' settings '>'
struct bench_family : identifier {};
struct bench_label : string_lit {};
struct bench_open : one< '<' > {};
struct bench_close : one< '>' > {};
struct bench_item : seq< kw_bench, ws, must< bench_family >, ws, opt< kw_as, ws, must< bench_label >, ws >,
                         must< bench_open >, ws, settings, must< bench_close > > {};

// suite := 'suite' string '<' (let | defaults | bench | suite)* '>'
// (nested suites parse so that the checker can say they are not allowed)
struct suite_item;
struct suite_title : string_lit {};
struct suite_open : one< '<' > {};
struct suite_close : one< '>' > {};
struct suite_member : sor< let_item, defaults_item, bench_item, suite_item > {};
struct suite_item : seq< kw_suite, ws, must< suite_title >, ws, must< suite_open >, ws,
                         star< suite_member, ws >, must< suite_close > > {};

// item := include | let | defaults | suite | bench
struct top_item : sor< include_item, let_item, defaults_item, suite_item, bench_item > {};
// The parser drives items one at a time (to recover after an error); `file` is the
// whole language in one rule, for analyze() and for documentation.
struct expected_item : top_item {};
struct one_item : must< expected_item > {};
struct file : seq< ws, star< top_item, ws >, eof > {};

// clang-format on

}  // namespace bpfbench::grammar
