// The parse stage's state: the AST of one top-level item, built while the grammar
// (grammar/bdsl.hpp) matches it. The PEGTL actions that fill it are compiler/bdsl/parse_actions.cpp;
// the driver and its error recovery, compiler/bdsl/parse.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/source.hpp"

namespace bpfbench::parse_detail {

// An error the grammar cannot express (nesting too deep), thrown by an action:
// [begin, end) are byte offsets into the file.
struct SyntaxError {
  size_t begin, end;
  std::string message;
};

// Maps byte offsets of one file to SourceRanges. Looks the file up on every call:
// SourceManager::add (for includes) may move the files.
struct Locator {
  const SourceManager &sm;
  uint32_t id;

  void position(size_t off, uint32_t &line, uint32_t &col) const;
  // [begin, end) -> inclusive range; an empty span marks the single column at begin.
  SourceRange range(size_t begin, size_t end) const;
};

// "-1_000ms" -> -1000 and "ms"; false when the number does not fit in int64.
bool parse_int(std::string_view s, int64_t &number, std::string &unit);
// The contents of a matched string literal (quotes included) with escapes resolved.
std::string unescape(std::string_view lit);

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
  // The text [begin, end) of the file, as a range and as a name.
  SourceRange range(const char *begin, const char *end) const { return loc.range(offset(begin), offset(end)); }
  ast::Name name(const char *begin, const char *end) const {
    return ast::Name{std::string(begin, end), range(begin, end)};
  }
  // An integer literal (with its unit); too large is an error.
  ast::Value int_value(const char *begin, const char *end);
  // `0.5%`: the digits without the point, how many followed it, unit "%".
  ast::Value percent_decimal(const char *begin, const char *end);
  // The same for what a PEGTL action matched (its `in`).
  template <typename In>
  SourceRange range(const In &in) const {
    return range(in.begin(), in.end());
  }
  template <typename In>
  ast::Name name(const In &in) const {
    return name(in.begin(), in.end());
  }
  template <typename In>
  ast::Value int_value(const In &in) {
    return int_value(in.begin(), in.end());
  }
  template <typename In>
  ast::Value percent_decimal(const In &in) {
    return percent_decimal(in.begin(), in.end());
  }
  ast::Value pop_value();
  // Throws SyntaxError at `at` when one more level would nest deeper than kMaxNesting.
  void check_depth(size_t at) const;
  // `left OP right` from the two values on top of the stack (left-associative: a chain
  // folds as it is read). A chain deeper than kMaxNesting is refused here, so nothing
  // later recurses further than that.
  void combine();
  void add_setting(ast::Setting::Kind kind, SourceRange r, bool has_value);
};

}  // namespace bpfbench::parse_detail
