// Integer expressions in .bdsl values: grammar rules, the AST the parser builds, and what
// the checker computes and reports (compiler/bdsl/int_expr.cpp).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <initializer_list>
#include <string>
#include <variant>

#include <fmt/format.h>
#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/analyze.hpp>

#include "compiler/bdsl/parse.hpp"
#include "compiler/pipeline.hpp"
#include "grammar/bdsl.hpp"
#include "grammar/error_messages.hpp"
#include "grammar_support.hpp"

using namespace bpfbench;
namespace g = bpfbench::grammar;
namespace pegtl = tao::pegtl;
using Kind = ast::Value::Kind;

namespace {

using bpfbench::test::full_match;

struct ExprParsed {
  SourceManager sm;
  Diagnostics diags;
  std::optional<ast::File> file;
  std::string first_error() const {
    if (diags.all().empty()) return "(no error)";
    const Diagnostic &d = diags.all().front();
    return fmt::format("{}:{}-{}: {}", d.range.line, d.range.col, d.range.end_col, d.message);
  }
};

// The value of `let x = <src>;`.
const ast::Value &let_value(ExprParsed &p, const std::string &src) {
  p.file = parse_text("test.bdsl", "let x = " + src + ";", p.sm, p.diags);
  INFO(render_all(p.diags, p.sm));
  REQUIRE_FALSE(p.diags.has_errors());
  return std::get<ast::Let>(p.file->items.at(0).node).value;
}

// The tree as a compact string: (op a b), max(a b), literals as written.
std::string tree(const ast::Value &v) {
  switch (v.kind) {
  case Kind::Int: return fmt::format("{}{}", v.number, v.unit);
  case Kind::Ident: return v.text;
  case Kind::Expr: {
    std::string out = "(" + v.text;
    for (const auto &i : v.items) out += " " + tree(i);
    return out + ")";
  }
  case Kind::Range: return "[" + tree(v.items.at(0)) + ".." + tree(v.items.at(1)) + "]";
  default: return "?";
  }
}

struct Checked {
  Frontend fe;
  bool ok = false;
  std::string rendered;
};

// Runs the front end on `text` with nproc = `nproc`.
void check_text(Checked &c, const std::string &text, int64_t nproc) {
  char tmpl[] = "/tmp/bpfbench-expr-XXXXXX.bdsl";
  int fd = mkstemps(tmpl, 5);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(tmpl) << text;
  FrontendOptions opts;
  opts.nproc = nproc;
  c.ok = run_frontend(tmpl, opts, c.fe);
  c.rendered = render_all(c.fe.diags, c.fe.sources);
  unlink(tmpl);
}

int64_t param(const PlanPoint &p, const std::string &n) {
  const ParamValue *v = p.param(n);
  REQUIRE(v);
  return v->i;
}

}  // namespace

TEST_CASE("grammar: integer expressions", "[grammar][expr]") {
  for (const char *t :
       {"nproc - 1", "nproc -1", "1+2", "nproc/2", "2 * 3", "(1)", "( nproc - 1 ) * 2", "max(1, nproc - 1)",
        "min(a,b,c)", "max( 1 , 2 )", "1 - -1", "512K * 2", "a + b * c - d / e", "max(1, min(2, (3)))"})
    CHECK(full_match<g::expr>(t));
  for (const char *t : {"nproc -", "1 +", "* 2", "(1", "()", "max()", "max(1,", "max(1 2)", "max (1, 2)", "-nproc",
                        "1 2", "1 ** 2", "nproc-1 -"})
    CHECK_FALSE(full_match<g::expr>(t));
  // A range's upper bound keeps '*' for the geometric factor.
  CHECK(full_match<g::value>("[1..nproc *2]"));
  CHECK(full_match<g::value>("[1..nproc - 1 *2]"));
  CHECK(full_match<g::value>("[1..(nproc * 2)]"));
  CHECK_FALSE(full_match<g::value>("[1..nproc * 2 - 1]"));  // '*' starts the factor: then "- 1" is junk
  CHECK(full_match<g::value>("[half..nproc + 1 step 2]"));
  CHECK(full_match<g::value>("[1, nproc - 1, max(2, 3)]"));
  CHECK(pegtl::analyze<g::expr>(-1) == 0);
}

TEST_CASE("parse: expressions build a left-to-right tree with C precedence", "[parse][expr]") {
  struct Case {
    const char *src, *tree;
  };
  for (const Case &c :
       {Case{"nproc - 1", "(- nproc 1)"}, Case{"a - b - c", "(- (- a b) c)"}, Case{"a - b * c", "(- a (* b c))"},
        Case{"(a - b) * c", "(* (- a b) c)"}, Case{"a / b / c", "(/ (/ a b) c)"},
        Case{"max(1, nproc - 1)", "(max 1 (- nproc 1))"}, Case{"min(a, b, c)", "(min a b c)"},
        Case{"nproc -1", "(- nproc 1)"}, Case{"1 - -1", "(- 1 -1)"}, Case{"4M / nproc", "(/ 4M nproc)"},
        Case{"(5)", "5"}, Case{"nproc", "nproc"}, Case{"[1..nproc - 1 *2]", "[1..(- nproc 1)]"}}) {
    INFO(c.src);
    ExprParsed p;
    CHECK(tree(let_value(p, c.src)) == c.tree);
  }
}

TEST_CASE("parse: expression ranges cover operands, operators and parentheses", "[parse][expr]") {
  ExprParsed p;
  const ast::Value &v = let_value(p, "(nproc - 1) * 2");  // "let x = " is 8 columns
  CHECK(v.kind == Kind::Expr);
  CHECK(v.range.col == 9);
  CHECK(v.range.end_col == 23);
  CHECK(v.op_range.col == 21);
  CHECK(v.items[0].range.col == 9);  // the parentheses belong to the operand
  CHECK(v.items[0].range.end_col == 19);
  CHECK(v.items[0].op_range.col == 16);
  ExprParsed q;
  const ast::Value &call = let_value(q, "max(1, 2)");
  CHECK(call.op_range.col == 9);
  CHECK(call.op_range.end_col == 11);
  CHECK(call.range.end_col == 17);
}

TEST_CASE("parse: expression syntax errors and depth limits", "[parse][expr][robust]") {
  struct Case {
    const char *src, *error;
  };
  for (const Case &c :
       {Case{"nproc - ;", "1:17-17: expected a number, a name or '(' after the operator"},
        Case{"max(1, 2;", "1:17-17: expected ',' or ')' in the argument list"},
        Case{"(1 + 2;", "1:15-15: expected ')'"}, Case{"max();", "1:13-13: expected an expression as argument"},
        Case{"2 * ;", "1:13-13: expected a number, a name or '(' after the operator"}}) {
    INFO(c.src);
    ExprParsed p;
    p.file = parse_text("test.bdsl", std::string("let x = ") + c.src, p.sm, p.diags);
    CHECK(p.first_error() == c.error);
  }
  // An unclosed call gets a note at its '('.
  ExprParsed n;
  n.file = parse_text("test.bdsl", "let x = max(1, 2", n.sm, n.diags);
  REQUIRE(n.diags.all().size() == 1);
  REQUIRE(n.diags.all()[0].notes.size() == 1);
  CHECK(n.diags.all()[0].notes[0].range.col == 12);
  // Deep parentheses and long chains are bounded, not a stack overflow.
  for (const std::string &src : {std::string(100000, '('), "max(" + std::string(100000, '(')}) {
    ExprParsed p;
    p.file = parse_text("test.bdsl", "let x = " + src, p.sm, p.diags);
    CHECK(p.first_error().find("nesting too deep") != std::string::npos);
  }
  std::string chain = "1";
  for (int i = 0; i < 100000; ++i) chain += " + 1";
  ExprParsed c;
  c.file = parse_text("test.bdsl", "let x = " + chain + ";", c.sm, c.diags);
  CHECK(c.first_error().find("expression nested too deep") != std::string::npos);
  std::string ok = "1";
  for (size_t i = 1; i + 1 < kMaxNesting; ++i) ok += " + 1";
  ExprParsed fine;
  fine.file = parse_text("test.bdsl", "let x = " + ok + ";", fine.sm, fine.diags);
  CHECK_FALSE(fine.diags.has_errors());
}

TEST_CASE("check: expressions compute values for every numeric use", "[check][expr]") {
  Checked c;
  check_text(c,
             "let half = nproc / 2;\n"
             "let most = max(1, nproc - 1);\n"
             "bench hashmap_full_update as \"a\" < producers most; nr_loops 7 - 10 / 3 * 2 >\n"
             "bench ringbuf as \"b{batch}\" < batch [half..(nproc * 2) step 4]; ring_size 512K * 2 >\n"
             "bench ringbuf as \"c{producers}\" < producers [1..nproc - 1]; warmup nproc / 4 - 2 >\n"
             "bench ringbuf as \"d{batch}\" < batch [1, nproc + 1]; where batch >= nproc - 7 >\n",
             8);
  INFO(c.rendered);
  REQUIRE(c.ok);
  const auto &pts = c.fe.plan->points;
  REQUIRE(pts.size() == 1 + 4 + 7 + 2);
  CHECK(pts[0].producers == 7);
  CHECK(param(pts[0], "nr_loops") == 1);  // 7 - (10 / 3) * 2, truncating division
  CHECK(param(pts[1], "batch") == 4);
  CHECK(param(pts[4], "batch") == 16);
  CHECK(param(pts[1], "ring_size") == 1 << 20);  // K scales as the size param's 2^10
  CHECK(pts[5].label == "c1");
  CHECK(pts[11].label == "c7");
  CHECK(pts[5].warmup_ns == 0);  // an expression worth 0 is the one without a unit a duration takes
  CHECK(pts[12].label == "d1");
  CHECK(pts[13].label == "d9");
}

// An expression has no unit, and a duration needs one: `warmup nproc / 4` was seconds.
TEST_CASE("check: a duration expression not worth 0 is an error", "[check][expr]") {
  Checked c;
  check_text(c, "bench ringbuf < warmup nproc / 4 >", 8);
  CHECK_FALSE(c.ok);
  CHECK(
      c.rendered.find("1:24-32: error: 'warmup' is a duration: an expression gives a number without a unit (2 here)") !=
      std::string::npos);
}

TEST_CASE("check: the seed's nproc - 1 producers, clamped to at least 1", "[check][expr]") {
  for (int64_t nproc : {1, 2, 16}) {
    Checked c;
    check_text(c, "bench hashmap_full_update < producers max(1, nproc - 1) >", nproc);
    INFO(c.rendered);
    REQUIRE(c.ok);
    CHECK(c.fe.plan->points.at(0).producers == std::max<int64_t>(1, nproc - 1));
  }
}

TEST_CASE("check: expression errors are located, with values and fixes in hints", "[check][expr]") {
  Checked c;
  check_text(c, "bench hashmap_full_update < producers nproc - 1 >", 1);
  CHECK_FALSE(c.ok);
  CHECK(c.rendered.find(":1:39-47: error: value 0 for 'producers' is below the 1 minimum") != std::string::npos);
  CHECK(c.rendered.find("hint: nproc - 1 is 0 here (nproc = 1)") != std::string::npos);
  CHECK(c.rendered.find("hint: max(1, nproc - 1) keeps it at least 1") != std::string::npos);

  struct Case {
    const char *src, *error;
  };
  for (const Case &e :
       {Case{"batch nproc / (nproc - 4)", "1:31-41: error: division by zero"},
        Case{"batch 9223372036854775807 + nproc", "1:43: error: integer overflow: 9223372036854775807 + 4"},
        Case{"batch 0 - 9223372036854775807 - 2", "1:47: error: integer overflow"},
        Case{"batch (-9223372036854775807 - 1) / -1", "1:50: error: integer overflow"},
        Case{"batch max(1)", "1:23-28: error: max() takes at least 2 arguments"},
        Case{"batch clamp(1, 2)", "1:23-27: error: unknown function 'clamp'"},
        Case{"batch nproc - sample_rate", "1:31-41: error: unknown name 'sample_rate' in expression"},
        Case{"batch 1ms + 1", "1:23-25: error: unit 'ms' is not allowed in an expression"},
        Case{"batch [1..nproc-1]", "1:27-33: error: range bounds must be numbers"},
        Case{"batch (nproc - 5) * 1000", "1:23-40: error: value -1000 for 'batch' is below the 1 minimum"},
        Case{"prog max(1, 2)", "1:22-30: error: expected a name for 'prog', got an expression"}}) {
    Checked k;
    check_text(k, fmt::format("bench ringbuf < {} >", e.src), 4);
    INFO(e.src << "\n" << k.rendered);
    CHECK_FALSE(k.ok);
    CHECK(k.rendered.find(e.error) != std::string::npos);
  }
  Checked dash;
  check_text(dash, "bench ringbuf < producers nproc-1 >", 4);
  CHECK(dash.rendered.find("hint: 'nproc-1' is one name ('-' belongs to names); to subtract, write 'nproc - 1'") !=
        std::string::npos);
  Checked list;
  check_text(list, "let r = [1, 2];\nbench ringbuf < batch r + 1 >", 4);
  CHECK(list.rendered.find("2:23: error: 'r' is a list, not a number") != std::string::npos);
}

TEST_CASE("check: a let used many times is computed once, a cycle is an error", "[check][expr][robust]") {
  // 2^60 evaluations without memoization; instant with it.
  std::string text = "let a0 = 1;\n";
  for (int i = 1; i <= 60; ++i) text += fmt::format("let a{} = a{} + a{} - a{};\n", i, i - 1, i - 1, i - 1);
  text += "bench ringbuf < batch a60 * 7 >\n";
  Checked c;
  check_text(c, text, 4);
  INFO(c.rendered);
  REQUIRE(c.ok);
  CHECK(param(c.fe.plan->points.at(0), "batch") == 7);

  // A long chain of lets naming lets is an error, not a stack overflow.
  std::string chain = "let b0 = 1;\n";
  for (int i = 1; i <= 20000; ++i) chain += fmt::format("let b{} = b{} + 1;\n", i, i - 1);
  chain += "bench ringbuf < batch b20000 - 19999 >\n";
  Checked deep;
  check_text(deep, chain, 4);
  CHECK_FALSE(deep.ok);
  CHECK(deep.rendered.find("lets refer to lets more than 64 levels deep") != std::string::npos);
  std::string shallow = "let b0 = 1;\n";
  for (int i = 1; i <= 60; ++i) shallow += fmt::format("let b{} = b{} + 1;\n", i, i - 1);
  Checked ok60;
  check_text(ok60, shallow + "bench ringbuf < batch b60 >\n", 4);
  INFO(ok60.rendered);
  CHECK(ok60.ok);

  Checked cyc;
  check_text(cyc, "let a = 1;\nlet b = a + 1;\nsuite \"s\" <\n  let a = b + 1;\n  bench ringbuf < batch a >\n>\n", 4);
  CHECK_FALSE(cyc.ok);
  CHECK(cyc.rendered.find(":2:9: error: 'a' refers to itself") != std::string::npos);
}

TEST_CASE("examples/hashmap_full_update.bdsl runs nproc - 1 producers, at least 1", "[check][expr][examples]") {
  for (int64_t nproc : {1, 2, 4, 16}) {
    Frontend fe;
    FrontendOptions opts;
    opts.nproc = nproc;
    bool ok = run_frontend(std::string(BPFBENCH_SOURCE_DIR) + "/examples/hashmap_full_update.bdsl", opts, fe);
    INFO(render_all(fe.diags, fe.sources));
    REQUIRE(ok);
    REQUIRE(fe.plan->points.size() == 1);
    CHECK(fe.plan->points[0].producers == std::max<int64_t>(1, nproc - 1));
    CHECK(fe.plan->points[0].affinity);
  }
}
