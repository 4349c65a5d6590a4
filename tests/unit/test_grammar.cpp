// Table tests for the .bdsl PEGTL rules: what each rule matches in full and what it rejects.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>
#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/analyze.hpp>

#include "grammar/bdsl.hpp"
#include "grammar/error_messages.hpp"
#include "grammar_support.hpp"

namespace g = bpfbench::grammar;
namespace pegtl = tao::pegtl;

namespace {

using bpfbench::test::full_match;

template <typename Rule>
void check_table(std::initializer_list<std::string> good, std::initializer_list<std::string> bad) {
  for (const auto &t : good) {
    INFO("should match: " << t);
    CHECK(full_match<Rule>(t));
  }
  for (const auto &t : bad) {
    INFO("should not match: " << t);
    CHECK_FALSE(full_match<Rule>(t));
  }
}

}  // namespace

TEST_CASE("grammar: analyze finds no infinite loops or left recursion", "[grammar]") {
  CHECK(pegtl::analyze<g::file>(-1) == 0);
  CHECK(pegtl::analyze<g::one_item>(-1) == 0);
}

TEST_CASE("grammar: comments and whitespace", "[grammar]") {
  check_table<g::ws>({"", "  \t\n", "# comment", "# a\n# b\n", "// c++ style\n  # mixed", "\r\n"},
                     {"x", "/ not a comment", "#a\nx"});
}

TEST_CASE("grammar: identifiers", "[grammar]") {
  check_table<g::identifier>({"a", "_x", "sample_rate", "rb-custom", "true", "x1", "A-b-c"},
                             {"", "1a", "-a", "a b", "a.b", "é"});
}

TEST_CASE("grammar: keywords are whole words", "[grammar]") {
  check_table<g::kw_log>({"log"}, {"logger", "log-x", "log_", "lo"});
  check_table<g::kw_bench>({"bench"}, {"benchmark", "bench2"});
  // `in` problem: a keyword never matches the start of a longer identifier.
  CHECK_FALSE(full_match<g::item_keyword>("letter"));
  CHECK(full_match<g::item_keyword>("let"));
}

TEST_CASE("grammar: integers and units", "[grammar]") {
  check_table<g::int_value>(
      {"0", "42", "-1", "1_000_000", "0x1000", "0XfF", "0x10_00", "3s", "500ms", "10us", "5ns", "512K", "4M", "1G",
       "-5ms", "99999999999999999999"},
      {"", "-", "1_", "1__0", "_1", "0x", "1.5", "10x", "5 s", "1k", "1Ks", "1sample", "- 1", "1-3"});
}

TEST_CASE("grammar: strings", "[grammar]") {
  check_table<g::string_lit>(
      {R"("")", R"("abc")", R"("a \"q\" b")", R"("back\\slash")", R"("\n\t")", R"("0-3,8")", "\"tab\there\"",
       R"("rb-{sample_rate}")"},
      {R"(")", R"("abc)", "\"line\nbreak\"", R"("bad \q")", std::string("\"nul\0x\"", 7), R"(abc)", "\"del\x7f\""});
}

TEST_CASE("grammar: values: lists and ranges", "[grammar]") {
  check_table<g::value>({"[]", "[ ]", "[1]", "[1, 2, 3]", "[a, b]", "[\"x\", 1, y]", "[[1, 2], [3]]", "[1..3000]",
                         "[ 1 .. 10 ]", "[1..100 step 5]", "[1ms..10ms step 1ms]", "[1..1024 *2]", "[1..1024 * 2]",
                         "[1..1000 log 4]", "[lo..hi]", "[-5..5]", "[1, # comment\n 2]"},
                        {"[", "[1", "[1,]", "[1 2]", "[,]", "[1..]", "[1..3 step]", "[1..3 step x]", "[1..3 *]",
                         "[1..3 by 2]", "[1...3]", "[1..3, 4]", "(1, 2)"});
}

TEST_CASE("grammar: statements", "[grammar]") {
  check_table<g::statement>({"prog reserve_commit", "batch 500", "back2back", "affinity", "sweep sample_rate [1..3000]",
                             "sweep (batch, sample_rate) over rates", "sweep ( a ) over [1, 2]", "report hits, drops",
                             "report hits", "cpus \"0-3,8\"", "prog log", "attach [base, tp]"},
                            {"sweep", "sweep x", "sweep (a, b) rates", "sweep (a b) over x", "sweep () over x",
                             "report", "report hits,", "report hits drops", "500", "bench x", "\"str\""});
}

TEST_CASE("grammar: settings blocks", "[grammar]") {
  check_table<g::bench_item>(
      {"bench ringbuf < prog reserve_commit; trigger getpgid; batch 500; sweep sample_rate [1..3000]; report "
       "hits, drops >",
       "bench x <>", "bench x < ; ; >", "bench x < a; >", "bench x < a >", "bench rb as \"rb-{n}\" < n [1, 2] >",
       "bench x<a;b 1;>"},
      {"bench < a >", "bench x a >", "bench x < a", "bench x < a b c >", "bench x as < a >", "bench x as y < a >",
       "bench x < 5 >"});
  check_table<g::defaults_item>({"defaults < warmup 3s; duration 10s; affinity; >", "defaults <>"},
                                {"defaults", "defaults warmup 3s", "defaults < warmup 3s"});
}

TEST_CASE("grammar: items", "[grammar]") {
  check_table<g::top_item>({"include \"common.bdsl\";", "let rates = [1, 5, 10];", "let x = 3s;", "suite \"t\" < >",
                            "suite \"t\" < let a = 1; defaults < x 1 > bench b < > >",
                            "suite \"outer\" < suite \"inner\" < > >"},
                           {"include common.bdsl;", "include \"x\"", "let = 1;", "let x 1;", "let x = ;", "let x = 1",
                            "suite t < >", "suite \"t\" < prog a; >", "bench"});
  check_table<g::file>({"", "# only a comment\n", "bench a <>\nbench b <>", "let x = 1; // c\nbench a < n x >"},
                       {"bench a <> >", "garbage"});
}

TEST_CASE("grammar: every must<> rule has an error message", "[grammar]") {
  // must_if<Errors, normal, true> static_asserts this at compile time; spot-check the table.
  CHECK(std::string(g::error_message<g::bench_close>) == "expected '>' to close bench");
  CHECK(std::string(g::error_message<g::stmt_end>) == "expected ';' after setting");
  CHECK(std::string(g::error_message<g::bench_family>) == "expected a family name after 'bench'");
  CHECK(g::error_message<g::value> == nullptr);  // optional after a setting name: must never raise
  CHECK(g::error_message<g::setting_name> == nullptr);
}
