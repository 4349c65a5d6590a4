#include "compiler/bdsl/parse.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <tao/pegtl.hpp>

#include "compiler/bdsl/include_files.hpp"
#include "util/input_file.hpp"
#include "compiler/bdsl/names.hpp"
#include "compiler/bdsl/parse_actions.hpp"
#include "compiler/bdsl/parse_builder.hpp"
#include "grammar/bdsl.hpp"
#include "grammar/error_messages.hpp"

namespace bpfbench {
namespace {

using namespace parse_detail;  // NOLINT: the parser's own insides
namespace g = grammar;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
// Bytes that can never start a token: control characters and anything non-ASCII.
bool is_invalid(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && !is_space(c)) || u >= 0x7f;
}

// The words that start a top-level item (grammar/bdsl.hpp: item_keyword).
constexpr std::string_view kItemKeywords[] = {"include", "let", "defaults", "suite", "bench"};

// The next item keyword at or after `err` (and after `item_start`, so parsing always
// moves on), skipping strings and comments; the end of text when there is none.
size_t recovery_point(std::string_view t, size_t item_start, size_t err) {
  size_t i = item_start;
  while (i < t.size()) {
    char c = t[i];
    if (c == '"') {
      for (++i; i < t.size() && t[i] != '"' && t[i] != '\n'; ++i)
        if (t[i] == '\\' && i + 1 < t.size() && t[i + 1] != '\n') ++i;
      ++i;
    } else if (c == '#' || (c == '/' && i + 1 < t.size() && t[i + 1] == '/')) {
      while (i < t.size() && t[i] != '\n') ++i;
    } else if (is_bdsl_ident_char(c)) {
      size_t j = i;
      while (j < t.size() && is_bdsl_ident_char(t[j])) ++j;
      std::string_view word = t.substr(i, j - i);
      if (i > item_start && i >= err)
        for (std::string_view kw : kItemKeywords)
          if (word == kw) return i;
      i = j;
    } else {
      ++i;
    }
  }
  return t.size();
}

// Where the last thing written between `from` and `to` ends (strings and comments
// skipped like recovery_point does): a missing '>' is missing just after it.
size_t last_token_end(std::string_view t, size_t from, size_t to) {
  size_t end = from, i = from;
  to = std::min(to, t.size());
  while (i < to) {
    char c = t[i];
    if (c == '"') {
      for (++i; i < to && t[i] != '"' && t[i] != '\n'; ++i)
        if (t[i] == '\\' && i + 1 < to && t[i + 1] != '\n') ++i;
      i = std::min(i + 1, to);
      end = i;
    } else if (c == '#' || (c == '/' && i + 1 < to && t[i + 1] == '/')) {
      while (i < to && t[i] != '\n') ++i;
    } else {
      if (!is_space(c)) end = i + 1;
      ++i;
    }
  }
  return end;
}

// The error is at the end of the text or at the keyword of the next item.
bool at_next_item(std::string_view t, size_t at) {
  if (at >= t.size()) return true;
  size_t j = at;
  while (j < t.size() && is_bdsl_ident_char(t[j])) ++j;
  for (std::string_view kw : kItemKeywords)
    if (t.substr(at, j - at) == kw) return true;
  return false;
}

bool is_close_message(std::string_view msg) {
  for (const char *m :
       {g::error_message<g::bench_close>, g::error_message<g::defaults_close>, g::error_message<g::suite_close>,
        g::error_message<g::list_close>, g::error_message<g::range_close>, g::error_message<g::code_close>,
        g::error_message<g::call_close>, g::error_message<g::paren_close>})
    if (msg == m) return true;
  return false;
}

class Parser {
 public:
  Parser(SourceManager &sm, Diagnostics &diags) : sm_(sm), diags_(diags), includes_(sm, diags) {}

  // Parses file `id`; `key` identifies it on the include stack.
  void parse(uint32_t id, std::string key, std::vector<ast::Item> &out) {
    stack_.push_back(std::move(key));
    // A private copy: adding included files to the SourceManager may move its texts.
    const std::string text = sm_.file(id).text;
    const std::string path = sm_.file(id).path;
    Locator loc{sm_, id};
    size_t off = 0;
    bool had_error = false;
    while (!diags_.full()) {
      pegtl::memory_input<> ws_in(text.data() + off, text.data() + text.size(), path, off, 1, 1);
      pegtl::parse<g::ws>(ws_in);
      off = static_cast<size_t>(ws_in.current() - text.data());
      if (off >= text.size()) break;
      // After an error inside a suite, its closing '>' is left over: not a new error.
      if (had_error && text[off] == '>') {
        ++off;
        continue;
      }
      Builder b(text.data(), loc, diags_);
      pegtl::memory_input<> in(text.data() + off, text.data() + text.size(), path, off, 1, 1);
      bool ok = false;
      try {
        parse_one_item(in, b);
        off = static_cast<size_t>(in.current() - text.data());
        ok = true;
      } catch (const pegtl::parse_error &e) {
        size_t at = e.positions().empty() ? off : e.positions().front().byte;
        syntax_error(text, loc, b, std::string(e.message()), at);
        off = recovery_point(text, off, at);
      } catch (const SyntaxError &e) {
        diags_.error(loc.range(e.begin, e.end), e.message);
        off = recovery_point(text, off, e.begin);
      }
      if (!ok) {
        had_error = true;
        continue;
      }
      for (auto &item : b.items) out.push_back(std::move(item));
      if (b.include) include(*b.include, path, out);
    }
    stack_.pop_back();
  }

 private:
  void syntax_error(std::string_view text, const Locator &loc, const Builder &b, std::string msg, size_t at) {
    size_t begin = at, end = at;
    bool invalid = at < text.size() && is_invalid(text[at]);
    if (msg == g::error_message<g::string_close> && !invalid) {
      begin = b.string_start;  // from the opening quote to the end of the line
      end = at;
      while (end > begin + 1 && text[end - 1] == '\r') --end;
    } else if (at >= text.size()) {
      // At the end of the file: point just after the last thing written.
      while (begin > 0 && is_space(text[begin - 1])) --begin;
      end = begin;
    } else if (invalid) {
      msg = fmt::format("invalid character (byte 0x{:02x})", static_cast<unsigned char>(text[at]));
      end = at + 1;
    } else if (is_bdsl_ident_char(text[at])) {
      while (end < text.size() && is_bdsl_ident_char(text[end])) ++end;
    } else {
      end = at + 1;
    }
    // A block left open at the end of the text or before the next item: the '>' is missing
    // right after the block's last setting, not where the next bench starts.
    if (is_close_message(msg) && !b.opens.empty() && at_next_item(text, at))
      begin = end = std::max(last_token_end(text, b.opens.back(), at), b.opens.back() + 1);
    std::vector<std::string> hints;
    std::string_view token = text.substr(begin, end - begin);
    if (!token.empty() && token[0] >= '0' && token[0] <= '9' && token.find('-') != token.npos)
      hints.push_back("write a CPU set as a string: \"0-3,8\"");
    Diagnostic &d = diags_.error(loc.range(begin, end), std::move(msg), std::move(hints));
    if (is_close_message(d.message) && !b.opens.empty()) {
      size_t open = b.opens.back();
      d.notes.push_back(
          Diagnostic{Severity::Note, loc.range(open, open + 1), fmt::format("to match this '{}'", text[open]), {}, {}, {}});
    }
  }

  void include(const ast::Name &inc, const std::string &from, std::vector<ast::Item> &out) {
    if (auto f = includes_.open(inc, from, stack_)) parse(f->id, std::move(f->key), out);
  }

 public:
  // The main file: its key on the include stack; its bytes count toward the budget.
  void parse_main(uint32_t id, std::vector<ast::Item> &out) {
    includes_.add_main(sm_.file(id).text.size());
    parse(id, IncludeFiles::canonical_key(sm_.file(id).path), out);
  }

 private:
  SourceManager &sm_;
  Diagnostics &diags_;
  IncludeFiles includes_;
  std::vector<std::string> stack_;  // canonical paths of the files being parsed
};

}  // namespace

std::optional<ast::File> parse_text(const std::string &path, std::string text, SourceManager &sm, Diagnostics &diags) {
  uint32_t id = sm.add(path, std::move(text));
  ast::File file;
  try {
    Parser(sm, diags).parse_main(id, file.items);
  } catch (const std::exception &e) {
    // Not expected (the grammar reports its own errors); never let it reach the user raw.
    diags.error(SourceRange{}, fmt::format("internal error while parsing '{}': {}", path, e.what()));
  }
  return file;
}

std::optional<ast::File> parse_file(const std::string &path, SourceManager &sm, Diagnostics &diags) {
  auto in = read_input_file(path, kMaxTextInputBytes);
  if (!in) {
    diags.error(SourceRange{}, fmt::format("cannot open '{}': {}", path, in.error().message));
    return std::nullopt;
  }
  return parse_text(path, std::move(in->data), sm, diags);
}

}  // namespace bpfbench
