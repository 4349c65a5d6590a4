#include "util/escape.hpp"

#include <cstdint>

namespace bpfbench {

namespace {

// Length of the valid UTF-8 sequence at s[i] (1..4), 0 when it is invalid (overlong,
// surrogate, above U+10FFFF, truncated, stray continuation byte).
size_t utf8_length(std::string_view s, size_t i, uint32_t *cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint32_t v = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

constexpr const char *kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string printable_text(std::string_view s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = utf8_length(s, i, &cp);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    bool control = cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
    if (control && !(keep_newlines && (cp == '\n' || cp == '\t'))) out += ' ';
    else out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string TerminalText::feed(std::string_view piece) {
  std::string text = std::move(held_);
  held_.clear();
  text.append(piece);
  // The last lead byte within the last 3 bytes starts a sequence that may still be unfinished.
  size_t keep = text.size();
  for (size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto c = static_cast<unsigned char>(text[text.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (need > back) keep = text.size() - back;
    break;
  }
  held_ = text.substr(keep);
  text.resize(keep);
  return printable_text(text, /*keep_newlines=*/true);
}

std::string TerminalText::finish() {
  std::string rest = printable_text(held_, /*keep_newlines=*/true);
  held_.clear();
  return rest;
}

std::string gnuplot_string(std::string_view s) {
  std::string out = "'";
  for (char c : printable_text(s)) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string gnuplot_data_field(std::string_view s) {
  std::string out = "\"";
  for (char c : printable_text(s)) out += c == '"' ? '\'' : c;
  return out + "\"";
}

std::string markdown_text(std::string_view s) {
  std::string out;
  for (char c : printable_text(s)) {
    switch (c) {
    case '\\':
    case '|':
    case '`':
    case '*':
    case '_':
    case '[':
    case ']':
      out += '\\';
      out += c;
      break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string csv_field(std::string_view s) {
  std::string text = printable_text(s, /*keep_newlines=*/true);
  bool formula = !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
  if (formula) text.insert(0, 1, '\'');
  if (!formula && text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_text(const nlohmann::json &j, int indent) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

std::string c_string_literal(std::string_view s) {
  static constexpr char kOctal[] = "01234567";
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c >= 0x7F || c == '?') {
      // '?' too: "??/" is a trigraph for a backslash in older C modes.
      out += '\\';
      out += kOctal[(c >> 6) & 7];
      out += kOctal[(c >> 3) & 7];
      out += kOctal[c & 7];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string c_comment_text(std::string_view s) {
  std::string out;
  for (char c : printable_text(s)) {
    if (c == '/' && !out.empty() && out.back() == '*') out += ' ';
    out += c;
  }
  return out;
}

std::string shell_word(std::string_view s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace bpfbench
