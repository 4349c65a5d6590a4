// Parser tests: the AST and source ranges of every .bdsl form, syntax errors, includes.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

#include <fmt/format.h>

#include "compiler/bdsl/parse.hpp"
#include "temp_dir.hpp"

using namespace bpfbench;
using Kind = ast::Value::Kind;

namespace {

struct ParsedFile {
  SourceManager sm;
  Diagnostics diags;
  std::optional<ast::File> file;

  std::string rendered() const { return render_all(diags, sm); }
  std::string first_error() const {
    if (diags.all().empty()) return "(no error)";
    const Diagnostic &d = diags.all().front();
    return fmt::format("{}:{}: {}", d.range.line, d.range.col, d.message);
  }
  const ast::Item &item(size_t i) const { return file->items.at(i); }
};

ParsedFile parse(const std::string &text) {
  ParsedFile p;
  p.file = parse_text("test.bdsl", text, p.sm, p.diags);
  return p;
}

// "line:col-end_line:end_col", compact to compare ranges.
std::string span(const SourceRange &r) { return fmt::format("{}:{}-{}:{}", r.line, r.col, r.end_line, r.end_col); }

// The range of the first (or last) occurrence of `needle` on a single-line `text`.
std::string span_of(const std::string &text, const std::string &needle, bool last = false) {
  size_t at = last ? text.rfind(needle) : text.find(needle);
  uint32_t line = 1;
  return fmt::format("{}:{}-{}:{}", line, at + 1, line, at + needle.size());
}

const ast::Bench &bench(const ast::Item &i) { return std::get<ast::Bench>(i.node); }

}  // namespace

TEST_CASE("parse: the card's example parses as written", "[parse]") {
  const std::string text =
      "bench ringbuf < prog reserve_commit; trigger getpgid; batch 500; sweep sample_rate [1..3000]; "
      "report hits, drops >";
  ParsedFile p = parse(text);
  REQUIRE(p.rendered() == "");
  REQUIRE(p.file->items.size() == 1);
  const ast::Bench &b = bench(p.item(0));
  CHECK(b.family.text == "ringbuf");
  CHECK(span(b.family.range) == span_of(text, "ringbuf"));
  CHECK(span(b.range) == fmt::format("1:1-1:{}", text.size()));
  CHECK(b.range.file == 0);
  CHECK_FALSE(b.label.has_value());
  REQUIRE(b.settings.size() == 5);

  const ast::Setting &prog = b.settings[0];
  CHECK(prog.kind == ast::Setting::Kind::Assign);
  CHECK(prog.names.at(0).text == "prog");
  CHECK(span(prog.names[0].range) == span_of(text, "prog"));
  REQUIRE(prog.value);
  CHECK(prog.value->kind == Kind::Ident);
  CHECK(prog.value->text == "reserve_commit");
  CHECK(span(prog.value->range) == span_of(text, "reserve_commit"));
  CHECK(span(prog.range) == span_of(text, "prog reserve_commit"));

  const ast::Setting &batch = b.settings[2];
  CHECK(batch.value->kind == Kind::Int);
  CHECK(batch.value->number == 500);
  CHECK(batch.value->unit == "");
  CHECK(span(batch.value->range) == span_of(text, "500"));

  const ast::Setting &sweep = b.settings[3];
  CHECK(sweep.kind == ast::Setting::Kind::Sweep);
  CHECK_FALSE(sweep.zipped);
  REQUIRE(sweep.names.size() == 1);
  CHECK(sweep.names[0].text == "sample_rate");
  CHECK(span(sweep.range) == span_of(text, "sweep sample_rate [1..3000]"));
  REQUIRE(sweep.value);
  CHECK(sweep.value->kind == Kind::Range);
  CHECK(span(sweep.value->range) == span_of(text, "[1..3000]"));
  CHECK(sweep.value->range_kind == ast::RangeKind::Step);
  CHECK_FALSE(sweep.value->by.has_value());
  REQUIRE(sweep.value->items.size() == 2);
  CHECK(sweep.value->items[0].number == 1);
  CHECK(sweep.value->items[1].number == 3000);
  CHECK(span(sweep.value->items[1].range) == span_of(text, "3000"));

  const ast::Setting &report = b.settings[4];
  CHECK(report.kind == ast::Setting::Kind::Report);
  CHECK_FALSE(report.value.has_value());
  REQUIRE(report.names.size() == 2);
  CHECK(report.names[0].text == "hits");
  CHECK(report.names[1].text == "drops");
  CHECK(span(report.names[1].range) == span_of(text, "drops"));
}

TEST_CASE("parse: a whole file with every item form", "[parse]") {
  const std::string text = R"(# comment
let rates = [1, 5, 10];   // trailing comment
defaults < warmup 3s; duration 10s; affinity; >
suite "Ringbuf back-to-back" <
  let local = 7;
  defaults < producers 1 >
  bench ringbuf as "rb-sampled-{sample_rate}" <
    consumer custom; back2back;
    sweep (batch, sample_rate) over rates;
    report hits, drops;
  >
>
bench trigger as "{attach}" < attach [base, tp, rawtp]; >
)";
  ParsedFile p = parse(text);
  REQUIRE(p.rendered() == "");
  REQUIRE(p.file->items.size() == 4);

  const auto &let = std::get<ast::Let>(p.item(0).node);
  CHECK(let.name.text == "rates");
  CHECK(span(let.name.range) == "2:5-2:9");
  CHECK(span(let.range) == "2:1-2:23");
  CHECK(let.value.kind == Kind::List);
  REQUIRE(let.value.items.size() == 3);
  CHECK(let.value.items[2].number == 10);
  CHECK(span(let.value.range) == "2:13-2:22");

  const auto &defs = std::get<ast::Defaults>(p.item(1).node);
  REQUIRE(defs.settings.size() == 3);
  CHECK(defs.settings[0].value->number == 3);
  CHECK(defs.settings[0].value->unit == "s");
  CHECK(span(defs.settings[0].value->range) == "3:19-3:20");
  CHECK(defs.settings[2].names[0].text == "affinity");
  CHECK_FALSE(defs.settings[2].value.has_value());
  CHECK(span(defs.range) == "3:1-3:47");

  const auto &suite = std::get<ast::Suite>(p.item(2).node);
  CHECK(suite.title.text == "Ringbuf back-to-back");
  CHECK(span(suite.title.range) == "4:7-4:28");
  CHECK(span(suite.range) == "4:1-12:1");
  REQUIRE(suite.items.size() == 3);
  CHECK(std::holds_alternative<ast::Let>(suite.items[0].node));
  CHECK(std::holds_alternative<ast::Defaults>(suite.items[1].node));
  const ast::Bench &rb = bench(suite.items[2]);
  REQUIRE(rb.label);
  CHECK(rb.label->text == "rb-sampled-{sample_rate}");
  CHECK(span(rb.label->range) == "7:20-7:45");
  CHECK(span(rb.range) == "7:3-11:3");
  REQUIRE(rb.settings.size() == 4);
  const ast::Setting &zip = rb.settings[2];
  CHECK(zip.kind == ast::Setting::Kind::Sweep);
  CHECK(zip.zipped);
  REQUIRE(zip.names.size() == 2);
  CHECK(zip.names[0].text == "batch");
  CHECK(zip.names[1].text == "sample_rate");
  CHECK(span(zip.names[1].range) == "9:19-9:29");
  CHECK(zip.value->kind == Kind::Ident);
  CHECK(zip.value->text == "rates");
  CHECK(span(zip.range) == "9:5-9:41");

  const ast::Bench &trig = bench(p.item(3));
  CHECK(trig.family.text == "trigger");
  REQUIRE(trig.settings.size() == 1);
  CHECK(trig.settings[0].value->kind == Kind::List);
  CHECK(trig.settings[0].value->items[2].text == "rawtp");
}

TEST_CASE("parse: integer forms and units", "[parse]") {
  struct Case {
    const char *src;
    int64_t number;
    const char *unit;
  };
  for (const Case &c : {Case{"3s", 3, "s"}, Case{"500ms", 500, "ms"}, Case{"10us", 10, "us"}, Case{"5ns", 5, "ns"},
                        Case{"512K", 512, "K"}, Case{"4M", 4, "M"}, Case{"1G", 1, "G"}, Case{"-1", -1, ""},
                        Case{"1_000_000", 1000000, ""}, Case{"0x1000", 4096, ""}, Case{"0xFF_FF", 65535, ""},
                        Case{"9223372036854775807", INT64_MAX, ""}, Case{"-9223372036854775808", INT64_MIN, ""},
                        Case{"-0x10ms", -16, "ms"}}) {
    INFO(c.src);
    ParsedFile p = parse(fmt::format("let x = {};", c.src));
    REQUIRE(p.rendered() == "");
    const auto &v = std::get<ast::Let>(p.item(0).node).value;
    CHECK(v.kind == Kind::Int);
    CHECK(v.number == c.number);
    CHECK(v.unit == c.unit);
    CHECK(span(v.range) == fmt::format("1:9-1:{}", 8 + std::string(c.src).size()));
  }
}

TEST_CASE("parse: integer overflow is a located error", "[parse]") {
  for (const char *lit :
       {"9223372036854775808", "-9223372036854775809", "0x1_0000_0000_0000_0000", "99999999999999999999999999999ms"}) {
    INFO(lit);
    ParsedFile p = parse(fmt::format("bench b < n {}; >", lit));
    REQUIRE(p.diags.error_count() == 1);
    CHECK(p.first_error() == "1:13: integer literal too large");
    CHECK(p.diags.all()[0].range.end_col == 12 + std::string(lit).size());
  }
}

TEST_CASE("parse: strings, identifiers and lists", "[parse]") {
  ParsedFile p = parse(R"(let s = ["a \"b\" \\ \t\n", rb-custom, true, "0-3,8", [], [[1], [2, 3]]];)");
  REQUIRE(p.rendered() == "");
  const auto &v = std::get<ast::Let>(p.item(0).node).value;
  REQUIRE(v.kind == Kind::List);
  REQUIRE(v.items.size() == 6);
  CHECK(v.items[0].kind == Kind::String);
  CHECK(v.items[0].text == "a \"b\" \\ \t\n");
  CHECK(span(v.items[0].range) == "1:10-1:26");
  CHECK(v.items[1].kind == Kind::Ident);
  CHECK(v.items[1].text == "rb-custom");
  CHECK(v.items[2].text == "true");
  CHECK(v.items[3].text == "0-3,8");
  CHECK(v.items[4].kind == Kind::List);
  CHECK(v.items[4].items.empty());
  const auto &nested = v.items[5];
  REQUIRE(nested.items.size() == 2);
  CHECK(nested.items[1].items.size() == 2);
  CHECK(nested.items[1].items[1].number == 3);
}

TEST_CASE("parse: range forms", "[parse]") {
  struct Case {
    const char *src;
    ast::RangeKind kind;
    std::optional<int64_t> by;
    const char *by_unit;
  };
  for (const Case &c :
       {Case{"[1..10]", ast::RangeKind::Step, std::nullopt, ""}, Case{"[1..100 step 5]", ast::RangeKind::Step, 5, ""},
        Case{"[1ms..9ms step 2ms]", ast::RangeKind::Step, 2, "ms"},
        Case{"[1..1024 *2]", ast::RangeKind::Geometric, 2, ""}, Case{"[1..1000 log 4]", ast::RangeKind::Log, 4, ""},
        Case{"[lo..hi]", ast::RangeKind::Step, std::nullopt, ""}}) {
    std::string text = fmt::format("let r = {};", c.src);
    INFO(text);
    ParsedFile p = parse(text);
    REQUIRE(p.rendered() == "");
    const auto &v = std::get<ast::Let>(p.item(0).node).value;
    CHECK(v.kind == Kind::Range);
    CHECK(v.range_kind == c.kind);
    CHECK(v.by == c.by);
    CHECK(v.by_unit == c.by_unit);
    REQUIRE(v.items.size() == 2);
    CHECK(span(v.range) == span_of(text, c.src));
    if (c.by) CHECK(span(v.by_range) == span_of(text, std::to_string(*c.by) + c.by_unit, true));
  }
  ParsedFile p = parse("let r = [1..8 *2K];");
  CHECK(p.first_error() == "1:16: a factor takes a plain number, without a unit");
}

TEST_CASE("parse: settings separators and flags", "[parse]") {
  ParsedFile p = parse("bench b < back2back; ; sampled; prog x >\nbench c <>\nbench d < a >");
  REQUIRE(p.rendered() == "");
  REQUIRE(p.file->items.size() == 3);
  const auto &b = bench(p.item(0));
  REQUIRE(b.settings.size() == 3);
  CHECK_FALSE(b.settings[0].value.has_value());
  CHECK(span(b.settings[0].range) == "1:11-1:19");
  CHECK(bench(p.item(1)).settings.empty());
  CHECK(bench(p.item(2)).settings.at(0).names.at(0).text == "a");
  // Keywords are keywords only where the grammar expects them.
  ParsedFile q = parse("bench b < prog log; step over; sweep log [1, 2] >");
  REQUIRE(q.rendered() == "");
  const auto &s = bench(q.item(0)).settings;
  CHECK(s[0].value->text == "log");
  CHECK(s[1].names[0].text == "step");
  CHECK(s[1].value->text == "over");
  CHECK(s[2].names[0].text == "log");
}

TEST_CASE("parse: syntax errors are located and use the message table", "[parse]") {
  struct Case {
    const char *src;
    const char *error;
  };
  for (const Case &c : {
           Case{"bench < a >", "1:7: expected a family name after 'bench'"},
           Case{"bench x < batch 500 sample_rate 3 >", "1:21: expected ';' after setting"},
           Case{"let x = ;", "1:9: expected a value"},
           Case{"let x 5;", "1:7: expected '=' after the name in 'let'"},
           Case{"let x = 5", "1:10: expected ';' after let"},
           Case{"bench x < prog a", "1:17: expected '>' to close bench"},
           // At the end of the text: just after the last setting, not after a comment.
           Case{"bench x < prog a;\n\n# trailing\n", "1:18: expected '>' to close bench"},
           // Before the next item, with the last ';' missing too: the '>' is what is missing.
           Case{"bench x < prog a\nbench y < >", "1:17: expected '>' to close bench"},
           Case{"bench x prog a >", "1:9: expected '<' to open bench"},
           Case{"bench x as < >", "1:12: expected a label string after 'as'"},
           Case{"bench x < 5 >", "1:11: expected '>' to close bench"},
           Case{"bench x < a [1 2] >", "1:16: expected ',' or ']' in list"},
           Case{"bench x < a [1, ] >", "1:17: expected a value after ','"},
           Case{"bench x < a [1..] >", "1:17: expected an integer after '..'"},
           Case{"bench x < a [1..5 step] >", "1:23: expected an integer"},
           Case{"bench x < a [1..5 7] >", "1:19: expected ']' to close range"},
           Case{"bench x < sweep ; >", "1:17: expected a parameter name or '(' after 'sweep'"},
           Case{"bench x < sweep n ; >", "1:19: expected a value"},
           Case{"bench x < sweep (a b) over r >", "1:20: expected ',' or ')' in the sweep's name list"},
           Case{"bench x < sweep (a, b) r >", "1:24: expected 'over' after the sweep's name list"},
           Case{"bench x < report ; >", "1:18: expected a metric name"},
           Case{"bench x < s \"a\\q\" >", "1:16: unknown escape sequence (use \\\", \\\\, \\n or \\t)"},
           Case{"defaults warmup 3s;", "1:10: expected '<' after 'defaults'"},
           Case{"suite x < >", "1:7: expected a title string after 'suite'"},
           Case{"suite \"x\" < prog a; >", "1:13: expected '>' to close suite"},
           Case{"include common.bdsl;", "1:9: expected a file name string after 'include'"},
           Case{"prog reserve_commit;", "1:1: expected 'bench', 'suite', 'let', 'defaults' or 'include'"},
           Case{"bench x <> >", "1:12: expected 'bench', 'suite', 'let', 'defaults' or 'include'"},
       }) {
    INFO(c.src);
    ParsedFile p = parse(c.src);
    CHECK(p.first_error() == c.error);
    CHECK(p.diags.error_count() == 1);
  }
}

TEST_CASE("parse: rendered errors point at the token", "[parse]") {
  ParsedFile p = parse("bench x < batch 500 sample_rate 3 >\n");
  CHECK(p.rendered() == "test.bdsl:1:21-31: error: expected ';' after setting\n"
                        "bench x < batch 500 sample_rate 3 >\n"
                        "                    ~~~~~~~~~~~\n");
  ParsedFile q = parse("let x = 1;\nbench x < prog \"abc >\nbench y < >\n");
  CHECK(q.rendered() == "test.bdsl:2:16-21: error: unterminated string\n"
                        "bench x < prog \"abc >\n"
                        "               ~~~~~~\n");
  REQUIRE(q.file->items.size() == 2);  // recovered at `bench y`
}

TEST_CASE("parse: a bare CPU set gets a hint", "[parse]") {
  ParsedFile p = parse("bench a < cpus 0-3,8 >");
  CHECK(p.rendered() == "test.bdsl:1:16-18: error: expected ';' after setting\n"
                        "bench a < cpus 0-3,8 >\n"
                        "               ~~~\n"
                        "hint: write a CPU set as a string: \"0-3,8\"\n");
}

TEST_CASE("parse: a missing '>' points at the '<' it should close", "[parse]") {
  ParsedFile p = parse("bench a < x 1;\nbench b < y 2; >\n");
  REQUIRE(p.diags.error_count() == 1);
  CHECK(p.first_error() == "1:15: expected '>' to close bench");  // just after `x 1;`
  REQUIRE(p.diags.all()[0].notes.size() == 1);
  CHECK(span(p.diags.all()[0].notes[0].range) == "1:9-1:9");
  CHECK(p.diags.all()[0].notes[0].message == "to match this '<'");
  // Recovery resumes at the keyword the error was found at.
  REQUIRE(p.file->items.size() == 1);
  CHECK(bench(p.item(0)).family.text == "b");
}

TEST_CASE("parse: recovery reports several errors and keeps good items", "[parse]") {
  ParsedFile p = parse("bench < >\nbench y < a b c >\nbench z < ok >\nlet = 3;\nlet w = 1;\n");
  CHECK(p.diags.error_count() == 3);
  CHECK(render_all(p.diags, p.sm).find("test.bdsl:4:5") != std::string::npos);
  REQUIRE(p.file->items.size() == 2);
  CHECK(bench(p.item(0)).family.text == "z");
  CHECK(std::get<ast::Let>(p.item(1).node).name.text == "w");

  // An error inside a suite: the suite's leftover '>' is not a second error.
  ParsedFile q = parse("suite \"s\" < bench a < 5 > bench b < > >\nbench c <>");
  CHECK(q.diags.error_count() == 1);
  CHECK(q.file->items.size() == 2);

  // A keyword inside a string or comment is not a recovery point.
  ParsedFile r = parse("bench < \"bench\" # bench\n> bench d <>");
  CHECK(r.diags.error_count() == 1);
  REQUIRE(r.file->items.size() == 1);
  CHECK(bench(r.item(0)).family.text == "d");
}

TEST_CASE("parse: errors are capped", "[parse]") {
  std::string big = "let x = [";
  for (int i = 0; i < 100; ++i) big += "99999999999999999999, ";
  ParsedFile many = parse(big + "1];");
  CHECK(many.diags.error_count() == Diagnostics::kMaxErrors);

  std::string text;
  for (int i = 0; i < 200; ++i) text += "bench < >\n";
  ParsedFile p = parse(text);
  CHECK(p.diags.error_count() == Diagnostics::kMaxErrors);
}

// --- robustness: no input crashes, hangs or throws ---------------------------------------

TEST_CASE("parse: empty and comment-only files", "[parse][robust]") {
  for (const char *src : {"", "\n\n", "   \t  ", "# only a comment", "# a\n// b\n#c\n"}) {
    ParsedFile p = parse(src);
    CHECK(p.rendered() == "");
    REQUIRE(p.file);
    CHECK(p.file->items.empty());
  }
}

TEST_CASE("parse: binary, NUL and non-UTF-8 bytes are invalid characters", "[parse][robust]") {
  ParsedFile nul = parse(std::string("bench a < prog x\0y; >", 21));
  CHECK(nul.first_error() == "1:17: invalid character (byte 0x00)");
  ParsedFile latin1 = parse("bench a < prog caf\xe9; >\n");
  CHECK(latin1.first_error() == "1:19: invalid character (byte 0xe9)");
  ParsedFile top = parse("\x01\x02\x03");
  CHECK(top.first_error() == "1:1: invalid character (byte 0x01)");
  // UTF-8 is fine inside strings and comments.
  ParsedFile utf8 = parse("# café\nbench a as \"café\" <>");
  CHECK(utf8.rendered() == "");

  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1103515245 + 12345;
    junk.push_back(static_cast<char>(x >> 16));
  }
  ParsedFile p;
  REQUIRE_NOTHROW(p = parse(junk));
  CHECK(p.diags.has_errors());
  CHECK(p.diags.error_count() <= Diagnostics::kMaxErrors);
  CHECK_NOTHROW(p.rendered());
}

TEST_CASE("parse: deep nesting is an error, not a stack overflow", "[parse][robust]") {
  ParsedFile p = parse("let x = " + std::string(100000, '['));
  REQUIRE(p.diags.error_count() == 1);
  CHECK(p.first_error() == fmt::format("1:{}: nesting too deep (more than 64 levels)", 9 + kMaxNesting));
  std::string suites;
  for (int i = 0; i < 10000; ++i) suites += "suite \"s\" <";
  ParsedFile q = parse(suites);
  CHECK(q.first_error().find("nesting too deep") != std::string::npos);
  // 64 levels are fine.
  ParsedFile ok = parse("let x = " + std::string(kMaxNesting, '[') + std::string(kMaxNesting, ']') + ";");
  CHECK(ok.rendered() == "");
}

TEST_CASE("parse: a 1 MB single line", "[parse][robust]") {
  std::string list = "let x = [";
  while (list.size() < (1u << 20)) list += "12345, ";
  list += "1];";
  ParsedFile p = parse(list);
  REQUIRE(p.rendered() == "");
  CHECK(std::get<ast::Let>(p.item(0).node).value.items.size() > 100000);

  ParsedFile junk = parse(std::string(1u << 20, 'x'));
  CHECK(junk.diags.error_count() == 1);
  ParsedFile str = parse("let s = \"" + std::string(1u << 20, 'a'));
  CHECK(str.first_error() == "1:9: unterminated string");
  CHECK_NOTHROW(str.rendered());
}

TEST_CASE("parse: unterminated blocks", "[parse][robust]") {
  CHECK(parse("bench a <").first_error() == "1:10: expected '>' to close bench");
  CHECK(parse("defaults < x 1;").first_error() == "1:16: expected '>' to close defaults");
  CHECK(parse("suite \"s\" < bench a <>").first_error() == "1:23: expected '>' to close suite");
  CHECK(parse("let x = [1, 2").first_error() == "1:14: expected ',' or ']' in list");
  CHECK(parse("bench").first_error() == "1:6: expected a family name after 'bench'");
}

// --- includes -------------------------------------------------------------------------------

namespace {

// A scratch directory removed at the end of the test.
using bpfbench::test::TempDir;

ParsedFile parse_path(const std::string &path) {
  ParsedFile p;
  p.file = parse_file(path, p.sm, p.diags);
  return p;
}

}  // namespace

TEST_CASE("parse: includes are spliced in place with their own file ids", "[parse][include]") {
  TempDir d;
  d.write("sub/common.bdsl", "let rates = [1, 2];\ninclude \"more.bdsl\";\n");
  d.write("sub/more.bdsl", "defaults < warmup 1s >\n");
  std::string main = d.write("main.bdsl", "bench a <>\ninclude \"sub/common.bdsl\";\nbench b <>\n");
  ParsedFile p = parse_path(main);
  REQUIRE(p.rendered() == "");
  REQUIRE(p.file->items.size() == 4);
  CHECK(bench(p.item(0)).family.text == "a");
  const auto &let = std::get<ast::Let>(p.item(1).node);
  CHECK(std::get<ast::Defaults>(p.item(2).node).settings.size() == 1);
  CHECK(bench(p.item(3)).family.text == "b");
  CHECK(bench(p.item(0)).range.file == 0);
  REQUIRE(let.range.file == 1);
  CHECK(p.sm.file(1).path.ends_with("sub/common.bdsl"));
  CHECK(span(let.name.range) == "1:5-1:9");
  CHECK(std::get<ast::Defaults>(p.item(2).node).range.file == 2);
  CHECK(p.sm.file(2).path.ends_with("sub/more.bdsl"));
}

TEST_CASE("parse: missing, recursive and too deep includes are located errors", "[parse][include]") {
  TempDir d;
  std::string missing = d.write("missing.bdsl", "# x\ninclude \"nope.bdsl\";\nbench a <>\n");
  ParsedFile p = parse_path(missing);
  CHECK(p.first_error() == "2:9: cannot open include 'nope.bdsl': No such file or directory");
  CHECK(span(p.diags.all()[0].range) == "2:9-2:19");
  CHECK(p.file->items.size() == 1);

  d.write("a.bdsl", "include \"b.bdsl\";\n");
  d.write("b.bdsl", "let x = 1;\ninclude \"a.bdsl\";\n");
  ParsedFile r = parse_path((d.path / "a.bdsl").string());
  CHECK(r.first_error() == "2:9: recursive include of 'a.bdsl'");
  CHECK(r.diags.all()[0].range.file == 1);
  CHECK(r.file->items.size() == 1);

  ParsedFile self = parse_path(d.write("self.bdsl", "include \"./self.bdsl\";"));
  CHECK(self.first_error() == "1:9: recursive include of './self.bdsl'");

  for (size_t i = 0; i < 40; ++i)
    d.write(fmt::format("chain{}.bdsl", i), fmt::format("include \"chain{}.bdsl\";", i + 1));
  d.write("chain40.bdsl", "");
  ParsedFile deep = parse_path((d.path / "chain0.bdsl").string());
  CHECK(deep.diags.error_count() == 1);
  CHECK(deep.first_error() == "1:9: includes nested too deeply (more than 32 levels)");

  ParsedFile dir = parse_path(d.write("dir.bdsl", "include \"\";"));
  CHECK(dir.first_error() == "1:9: cannot include '': an include must name a .bdsl file");
  std::filesystem::create_directories(d.path / "sub.bdsl");
  ParsedFile subdir = parse_path(d.write("subdir.bdsl", "include \"sub.bdsl\";"));
  CHECK(subdir.first_error() == "1:9: cannot open include 'sub.bdsl': is a directory");
}

TEST_CASE("parse: only .bdsl files are included, checked before reading, symlinks resolved", "[parse][include]") {
  TempDir d;
  // /etc/passwd exists everywhere; were it read, a parse error would print its first line.
  ParsedFile passwd = parse_path(d.write("p.bdsl", "include \"/etc/passwd\";\n"));
  CHECK(passwd.first_error() == "1:9: cannot include '/etc/passwd': an include must name a .bdsl file");
  CHECK(passwd.sm.size() == 1);  // nothing was read
  std::filesystem::create_symlink("/etc/passwd", d.path / "evil.bdsl");
  ParsedFile sym = parse_path(d.write("s.bdsl", "include \"evil.bdsl\";\n"));
  CHECK(sym.first_error() ==
        "1:9: cannot include 'evil.bdsl': it resolves to '/etc/passwd', which is not a .bdsl file");
  CHECK(sym.sm.size() == 1);
  CHECK(sym.rendered().find("root") == std::string::npos);
}

TEST_CASE("parse: a FIFO include is refused at once, not waited for", "[parse][include]") {
  TempDir d;
  REQUIRE(::mkfifo((d.path / "fifo.bdsl").c_str(), 0600) == 0);
  ParsedFile p = parse_path(d.write("m.bdsl", "include \"fifo.bdsl\";\n"));
  CHECK(p.first_error() == "1:9: cannot open include 'fifo.bdsl': is a FIFO, not a regular file");
  ParsedFile main = parse_path((d.path / "fifo.bdsl").string());
  CHECK_FALSE(main.file.has_value());
  CHECK(main.rendered() ==
        "error: cannot open '" + (d.path / "fifo.bdsl").string() + "': is a FIFO, not a regular file\n");
}

TEST_CASE("parse: an include is read once and the include budget is bounded", "[parse][include]") {
  TempDir d;
  d.write("common.bdsl", "let x = 1;\n");
  ParsedFile twice = parse_path(d.write("m.bdsl", "include \"common.bdsl\";\ninclude \"./common.bdsl\";\n"));
  CHECK(twice.rendered() == "");
  CHECK(twice.file->items.size() == 2);  // spliced twice, as written
  CHECK(twice.sm.size() == 2);           // but read (and stored) once

  // Each file includes the next twice: 2^21 include statements unbounded.
  for (int i = 0; i < 20; ++i)
    d.write(fmt::format("t{}.bdsl", i), fmt::format("include \"t{0}.bdsl\";\ninclude \"t{0}.bdsl\";\n", i + 1));
  d.write("t20.bdsl", "let y = 2;\n");
  auto start = std::chrono::steady_clock::now();
  ParsedFile tree = parse_path((d.path / "t0.bdsl").string());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(tree.diags.error_count() == 1);
  CHECK_THAT(tree.first_error(), Catch::EndsWith("too much included: more than 1024 include statements expanded"));
  CHECK(tree.sm.size() == 21);

  // 5 x 4 MiB of comment: within the per-file limit, past the 16 MiB budget of a parse.
  d.write("big.bdsl", "#" + std::string(4 << 20, 'x') + "\n");
  std::string five;
  for (int i = 0; i < 5; ++i) five += "include \"big.bdsl\";\n";
  ParsedFile big = parse_path(d.write("five.bdsl", five));
  CHECK(big.diags.error_count() == 1);
  CHECK(big.first_error() == "4:9: too much included: more than 16 MiB of source in all");
}

TEST_CASE("parse: a file over the 16 MiB input limit is refused without reading it", "[parse][include]") {
  TempDir d;
  std::string path = d.write("huge.bdsl", "");
  std::filesystem::resize_file(path, (uintmax_t{16} << 20) + 1);  // sparse: costs no disk
  ParsedFile p = parse_path(path);
  CHECK_FALSE(p.file.has_value());
  CHECK(p.rendered() == "error: cannot open '" + path + "': is larger than the 16 MiB limit\n");
}

TEST_CASE("parse: an unreadable top-level file yields nullopt", "[parse][include]") {
  ParsedFile p = parse_path("/nonexistent/dir/x.bdsl");
  CHECK_FALSE(p.file.has_value());
  CHECK(p.rendered() == "error: cannot open '/nonexistent/dir/x.bdsl': No such file or directory\n");
}
