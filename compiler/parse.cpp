#include "compiler/parse.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <tao/pegtl.hpp>

#include "compiler/parse_actions.hpp"
#include "grammar/bdsl.hpp"
#include "grammar/error_messages.hpp"

namespace bpfbench {
namespace {

using namespace parse_detail;  // NOLINT: the parser's own insides

// The next item keyword at or after `err` (and after `item_start`, so parsing always
// moves on), skipping strings and comments; the end of text when there is none.
size_t recovery_point(std::string_view t, size_t item_start, size_t err) {
  static constexpr std::string_view kKeywords[] = {"include", "let", "defaults", "suite", "bench"};
  size_t i = item_start;
  while (i < t.size()) {
    char c = t[i];
    if (c == '"') {
      for (++i; i < t.size() && t[i] != '"' && t[i] != '\n'; ++i)
        if (t[i] == '\\' && i + 1 < t.size() && t[i + 1] != '\n')
          ++i;
      ++i;
    } else if (c == '#' || (c == '/' && i + 1 < t.size() && t[i + 1] == '/')) {
      while (i < t.size() && t[i] != '\n')
        ++i;
    } else if (is_ident_other(c)) {
      size_t j = i;
      while (j < t.size() && is_ident_other(t[j]))
        ++j;
      std::string_view word = t.substr(i, j - i);
      if (i > item_start && i >= err)
        for (std::string_view kw : kKeywords)
          if (word == kw)
            return i;
      i = j;
    } else {
      ++i;
    }
  }
  return t.size();
}

bool is_close_message(std::string_view msg) {
  for (const char *m :
       {g::error_message<g::bench_close>, g::error_message<g::defaults_close>,
        g::error_message<g::suite_close>, g::error_message<g::list_close>, g::error_message<g::range_close>,
        g::error_message<g::code_close>, g::error_message<g::call_close>, g::error_message<g::paren_close>})
    if (msg == m)
      return true;
  return false;
}

// Reads a whole file; on failure returns false and the reason in `err`.
bool read_file(const std::string &path, std::string &out, std::string &err) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    err = std::error_code(errno, std::generic_category()).message();
    return false;
  }
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    out.append(buf, n);
  bool ok = !std::ferror(f);
  if (!ok)
    err = std::error_code(errno ? errno : EIO, std::generic_category()).message();
  std::fclose(f);
  return ok;
}

class Parser {
 public:
  Parser(SourceManager &sm, Diagnostics &diags) : sm_(sm), diags_(diags) {}

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
      if (off >= text.size())
        break;
      // After an error inside a suite, its closing '>' is left over: not a new error.
      if (had_error && text[off] == '>') {
        ++off;
        continue;
      }
      Builder b(text.data(), loc, diags_);
      pegtl::memory_input<> in(text.data() + off, text.data() + text.size(), path, off, 1, 1);
      bool ok = false;
      try {
        pegtl::parse<g::one_item, Action, Control>(in, b);
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
      for (auto &item : b.items)
        out.push_back(std::move(item));
      if (b.include)
        include(*b.include, path, out);
    }
    stack_.pop_back();
  }

 private:
  void syntax_error(std::string_view text, const Locator &loc, const Builder &b, std::string msg, size_t at) {
    size_t begin = at, end = at;
    bool invalid = at < text.size() && is_invalid(text[at]);
    if (msg == g::error_message<g::string_close> && !invalid) {
      begin = b.string_start; // from the opening quote to the end of the line
      end = at;
      while (end > begin + 1 && text[end - 1] == '\r')
        --end;
    } else if (at >= text.size()) {
      // At the end of the file: point just after the last thing written.
      while (begin > 0 && is_space(text[begin - 1]))
        --begin;
      end = begin;
    } else if (invalid) {
      msg = fmt::format("invalid character (byte 0x{:02x})", static_cast<unsigned char>(text[at]));
      end = at + 1;
    } else if (is_ident_other(text[at])) {
      while (end < text.size() && is_ident_other(text[end]))
        ++end;
    } else {
      end = at + 1;
    }
    std::vector<std::string> hints;
    std::string_view token = text.substr(begin, end - begin);
    if (!token.empty() && token[0] >= '0' && token[0] <= '9' && token.find('-') != token.npos)
      hints.push_back("write a CPU set as a string: \"0-3,8\"");
    Diagnostic &d = diags_.error(loc.range(begin, end), std::move(msg), std::move(hints));
    if (is_close_message(d.message) && !b.opens.empty()) {
      size_t open = b.opens.back();
      d.notes.push_back(Diagnostic{
          Severity::Note, loc.range(open, open + 1), fmt::format("to match this '{}'", text[open]), {}, {}});
    }
  }

  void include(const ast::Name &inc, const std::string &from, std::vector<ast::Item> &out) {
    namespace fs = std::filesystem;
    if (stack_.size() > kMaxIncludeDepth) {
      diags_.error(inc.range,
                   fmt::format("includes nested too deeply (more than {} levels)", kMaxIncludeDepth));
      return;
    }
    fs::path p(inc.text);
    if (p.is_relative())
      p = fs::path(from).parent_path() / p;
    std::string key = canonical_key(p.string());
    for (const auto &open : stack_) {
      if (open == key) {
        diags_.error(inc.range, fmt::format("recursive include of '{}'", inc.text));
        return;
      }
    }
    // Devices, FIFOs and /proc/kcore would be read forever (or block): refuse them.
    // (A directory fails in read_file with "Is a directory".)
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (!ec && !fs::is_regular_file(st) && !fs::is_directory(st)) {
      diags_.error(inc.range, fmt::format("cannot open include '{}': not a regular file", inc.text));
      return;
    }
    constexpr uintmax_t kMaxIncludeBytes = 16u << 20;
    uintmax_t bytes = ec ? 0 : fs::file_size(p, ec);
    if (!ec && bytes > kMaxIncludeBytes) {
      diags_.error(inc.range, fmt::format("cannot open include '{}': larger than 16 MiB", inc.text));
      return;
    }
    std::string text, err;
    if (!read_file(p.string(), text, err)) {
      diags_.error(inc.range, fmt::format("cannot open include '{}': {}", inc.text, err));
      return;
    }
    uint32_t id = sm_.add(p.lexically_normal().string(), std::move(text));
    parse(id, std::move(key), out);
  }

 public:
  static std::string canonical_key(const std::string &path) {
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(path, ec);
    return ec ? std::filesystem::path(path).lexically_normal().string() : c.string();
  }

 private:
  SourceManager &sm_;
  Diagnostics &diags_;
  std::vector<std::string> stack_; // canonical paths of the files being parsed
};

} // namespace

std::optional<ast::File> parse_text(const std::string &path, std::string text, SourceManager &sm,
                                    Diagnostics &diags) {
  uint32_t id = sm.add(path, std::move(text));
  ast::File file;
  try {
    Parser(sm, diags).parse(id, Parser::canonical_key(path), file.items);
  } catch (const std::exception &e) {
    // Not expected (the grammar reports its own errors); never let it reach the user raw.
    diags.error(SourceRange{}, fmt::format("internal error while parsing '{}': {}", path, e.what()));
  }
  return file;
}

std::optional<ast::File> parse_file(const std::string &path, SourceManager &sm, Diagnostics &diags) {
  std::string text, err;
  if (!read_file(path, text, err)) {
    diags.error(SourceRange{}, fmt::format("cannot open '{}': {}", path, err));
    return std::nullopt;
  }
  return parse_text(path, std::move(text), sm, diags);
}

} // namespace bpfbench
