// Escaping for every language bpfbench writes (util/escape.hpp), fed hostile strings.
#include <catch2/catch.hpp>

#include <string>

#include "util/escape.hpp"

using namespace bpfbench;

namespace {

// Every hostile string each escaper must survive.
const std::string kBackquote = "a`id`b";
const std::string kSystemAfterNewline = "title\nsystem \"id\"\n";
const std::string kQuotes = "it's \"quoted\" \\ back";
const std::string kPipe = "a|b\n| c";
const std::string kInvalidUtf8 = "bad\xff\xfe\xc0\x80\xed\xa0\x80 end";  // 0xff, overlong NUL, surrogate
const std::string kNul = std::string("nul\0here", 8);
const std::string kLong = std::string(100000, '\'') + std::string(100000, '\n');

// The text between a gnuplot single-quoted string's quotes, '' read back as '.
std::string gnuplot_unquote(const std::string &q) {
  REQUIRE(q.size() >= 2);
  REQUIRE(q.front() == '\'');
  REQUIRE(q.back() == '\'');
  std::string out;
  for (size_t i = 1; i + 1 < q.size(); ++i) {
    if (q[i] == '\'') {
      REQUIRE(q[i + 1] == '\'');  // a lone ' would end the string early
      ++i;
    }
    out += q[i];
  }
  return out;
}

bool has_control(const std::string &s, bool allow_newlines) {
  for (unsigned char c : s)
    if ((c < 0x20 || c == 0x7f) && !(allow_newlines && (c == '\n' || c == '\t'))) return true;
  return false;
}

}  // namespace

TEST_CASE("printable_text replaces invalid UTF-8 and control characters", "[escape]") {
  CHECK(printable_text(kInvalidUtf8) == "bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
                                        "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD end");
  CHECK(printable_text(kNul) == "nul here");
  CHECK(printable_text("a\nb\tc") == "a b c");
  CHECK(printable_text("a\nb\tc", true) == "a\nb\tc");
  CHECK(printable_text("\xC3\xA9t\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x90\x9D") ==
        "\xC3\xA9t\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x90\x9D");
  CHECK(printable_text("\xC2\x85") == " ");                         // C1 NEL: a line break to some readers
  CHECK(printable_text("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated at the end
}

TEST_CASE("TerminalText: printable_text over a stream's pieces, a UTF-8 sequence cut between them kept", "[escape]") {
  TerminalText t;
  // ESC, BEL, CR, the 8-bit CSI (C1 U+009B) and a stray 0x9b byte: nothing a terminal acts on.
  CHECK(t.feed("a\x1b[31mred\x07\r\xC2\x9B"
               "2J\x9b\n\tb") == "a [31mred   2J\xEF\xBF\xBD\n\tb");
  // "é" (C3 A9), "—" (E2 80 94) and a bee (F0 9F 90 9D) cut after each of their bytes.
  for (const std::string whole : {"\xC3\xA9", "\xE2\x80\x94", "\xF0\x9F\x90\x9D"}) {
    for (size_t cut = 1; cut < whole.size(); ++cut) {
      INFO(cut);
      CHECK(t.feed("x" + whole.substr(0, cut)) == "x");
      CHECK(t.feed(whole.substr(cut) + "y") == whole + "y");
    }
  }
  // What follows an unfinished sequence decides: not a continuation byte, so U+FFFD.
  CHECK(t.feed("\xE2\x80") == "");
  CHECK(t.feed("z") == "\xEF\xBF\xBD\xEF\xBF\xBDz");
  CHECK(t.feed("end\xF0\x9F") == "end");
  CHECK(t.finish() == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(t.finish() == "");
  CHECK(t.feed(kLong) == printable_text(kLong, true));
}

TEST_CASE("gnuplot_string: single quotes, no command can follow", "[escape]") {
  CHECK(gnuplot_string(kBackquote) == "'a`id`b'");  // no substitution inside '…'
  CHECK(gnuplot_string(kSystemAfterNewline) == "'title system \"id\" '");
  CHECK(gnuplot_string(kQuotes) == "'it''s \"quoted\" \\ back'");
  for (const std::string &s : {kBackquote, kSystemAfterNewline, kQuotes, kPipe, kInvalidUtf8, kNul, kLong}) {
    std::string q = gnuplot_string(s);
    CHECK_FALSE(has_control(q, false));
    CHECK(gnuplot_unquote(q) == printable_text(s));
  }
}

TEST_CASE("gnuplot_data_field: one field on one line", "[escape]") {
  CHECK(gnuplot_data_field("x\ne\nsystem 'id'") == "\"x e system 'id'\"");
  CHECK(gnuplot_data_field(kQuotes) == "\"it's 'quoted' \\ back\"");
  std::string f = gnuplot_data_field(kLong);
  CHECK(f.find('\n') == std::string::npos);
  CHECK(f.find('"', 1) == f.size() - 1);
}

TEST_CASE("markdown_text keeps a table cell one cell", "[escape]") {
  CHECK(markdown_text(kPipe) == "a\\|b \\| c");
  CHECK(markdown_text("a\\|b") == "a\\\\\\|b");  // the \ cannot eat the escape of |
  CHECK(markdown_text("<script>x&y</script>") == "&lt;script&gt;x&amp;y&lt;/script&gt;");
  CHECK(markdown_text("`code` *b* [l](u)") == "\\`code\\` \\*b\\* \\[l\\](u)");
  for (const std::string &s : {kBackquote, kSystemAfterNewline, kQuotes, kPipe, kInvalidUtf8, kNul, kLong}) {
    std::string m = markdown_text(s);
    CHECK_FALSE(has_control(m, false));
    // Every | is escaped: preceded by an odd number of backslashes.
    for (size_t i = 0; i < m.size(); ++i)
      if (m[i] == '|') {
        size_t bs = 0;
        while (bs < i && m[i - 1 - bs] == '\\') ++bs;
        CHECK(bs % 2 == 1);
      }
  }
}

TEST_CASE("csv_field quotes like RFC 4180 and disarms formulas", "[escape]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field(kQuotes) == "\"it's \"\"quoted\"\" \\ back\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(csv_field("+1") == "\"'+1\"");
  CHECK(csv_field("-1+cmd|' /C calc'!A0") == "\"'-1+cmd|' /C calc'!A0\"");
  CHECK(csv_field("@SUM(A1)") == "\"'@SUM(A1)\"");
  CHECK(csv_field("\tx") == "\"'\tx\"");
  CHECK(csv_field("a=b") == "a=b");  // only a leading sign starts a formula
  CHECK(csv_field(kNul) == "nul here");
  CHECK(csv_field(kInvalidUtf8).find('\xff') == std::string::npos);
}

TEST_CASE("json_text never throws on invalid UTF-8", "[escape]") {
  nlohmann::json j = {{"label", kInvalidUtf8}, {"nul", kNul}};
  REQUIRE_THROWS(j.dump());  // what nlohmann does without the handler
  std::string text;
  REQUIRE_NOTHROW(text = json_text(j));
  nlohmann::json back = nlohmann::json::parse(text);
  CHECK(back["label"] == "bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD end");
  CHECK(back["nul"] == kNul);  // NUL is valid UTF-8: kept, as \u0000
  CHECK(json_text(nlohmann::json{{"a", 1}}, 2) == "{\n  \"a\": 1\n}");
}

TEST_CASE("c_string_literal: a file name cannot end a #line directive", "[escape]") {
  CHECK(c_string_literal("a.bdsl") == "\"a.bdsl\"");
  CHECK(c_string_literal("x\"\\y") == "\"x\\\"\\\\y\"");
  CHECK(c_string_literal("f\n#include \"/etc/shadow\"\n") == "\"f\\012#include \\\"/etc/shadow\\\"\\012\"");
  CHECK(c_string_literal(kNul) == "\"nul\\000here\"");
  CHECK(c_string_literal("\xff"
                         "1") == "\"\\3771\"");  // three digits: the 1 stays a 1
  CHECK(c_string_literal("?\?/") == "\"\\077\\077/\"");
  for (const std::string &s : {kBackquote, kSystemAfterNewline, kQuotes, kInvalidUtf8, kNul, kLong}) {
    std::string c = c_string_literal(s);
    CHECK_FALSE(has_control(c, false));
    // No unescaped " between the outer quotes.
    for (size_t i = 1; i + 1 < c.size(); ++i)
      if (c[i] == '\\') ++i;
      else CHECK(c[i] != '"');
  }
}

TEST_CASE("c_comment_text cannot close the comment", "[escape]") {
  CHECK(c_comment_text("a */ int x; /* b") == "a * / int x; /* b");
  CHECK(c_comment_text("a*/\n#define X") == "a* / #define X");
}

TEST_CASE("shell_word: one word, whatever it holds", "[escape]") {
  CHECK(shell_word("x'y") == "'x'\\''y'");
  CHECK(shell_word("$(id) `id` \"a\"\nb") == "'$(id) `id` \"a\"\nb'");
}
