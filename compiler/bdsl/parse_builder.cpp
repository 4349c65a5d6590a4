#include "compiler/bdsl/parse_builder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "compiler/bdsl/parse.hpp"  // kMaxNesting

namespace bpfbench::parse_detail {

void Locator::position(size_t off, uint32_t &line, uint32_t &col) const {
  const auto &starts = sm.file(id).line_starts;
  auto it = std::upper_bound(starts.begin(), starts.end(), off);
  size_t idx = static_cast<size_t>(it - starts.begin());  // >= 1: starts[0] == 0
  line = static_cast<uint32_t>(idx);
  col = static_cast<uint32_t>(off - starts[idx - 1] + 1);
}

SourceRange Locator::range(size_t begin, size_t end) const {
  SourceRange r;
  r.file = id;
  position(begin, r.line, r.col);
  position(end > begin ? end - 1 : begin, r.end_line, r.end_col);
  return r;
}

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

ast::Value Builder::int_value(const char *begin, const char *end) {
  ast::Value v;
  v.kind = ast::Value::Kind::Int;
  v.range = range(begin, end);
  if (!parse_int(std::string_view(begin, static_cast<size_t>(end - begin)), v.number, v.unit) && !diags.full())
    diags.error(v.range, "integer literal too large");
  return v;
}

ast::Value Builder::percent_decimal(const char *begin, const char *end) {
  ast::Value v;
  v.kind = ast::Value::Kind::Int;
  v.range = range(begin, end);
  v.unit = std::string(1, '%');
  bool after_point = false;
  for (char c : std::string_view(begin, static_cast<size_t>(end - begin))) {
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

ast::Value Builder::pop_value() {
  ast::Value v = std::move(values.back());
  values.pop_back();
  return v;
}

void Builder::check_depth(size_t at) const {
  if (list_marks.size() + suites.size() + code_depth + calls.size() + paren_depth >= kMaxNesting)
    throw SyntaxError{at, at + 1, fmt::format("nesting too deep (more than {} levels)", kMaxNesting)};
}

void Builder::combine() {
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

void Builder::add_setting(ast::Setting::Kind kind, SourceRange r, bool has_value) {
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

}  // namespace bpfbench::parse_detail
