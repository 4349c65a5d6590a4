// Parsing of where / until / expect conditions and baseline blocks.
#include <catch2/catch.hpp>

#include "compiler/bdsl/parse.hpp"

using namespace bpfbench;

namespace {

struct CondParsed {
  SourceManager sm;
  Diagnostics diags;
  std::optional<ast::File> file;
};

void parse(CondParsed &p, const std::string &text) { p.file = parse_text("c.bdsl", text, p.sm, p.diags); }

const ast::Bench &only_bench(const CondParsed &p) {
  REQUIRE(p.file);
  REQUIRE(p.file->items.size() == 1);
  return std::get<ast::Bench>(p.file->items[0].node);
}

}  // namespace

TEST_CASE("parse: where, until and expect are comparisons", "[parse]") {
  CondParsed p;
  parse(p, "bench ringbuf < where producers <= nproc; until ci < 1%; expect hits > 0; expect drops == 0 >");
  INFO(render_all(p.diags, p.sm));
  REQUIRE_FALSE(p.diags.has_errors());
  const auto &b = only_bench(p);
  REQUIRE(b.settings.size() == 4);
  using K = ast::Setting::Kind;
  CHECK(b.settings[0].kind == K::Where);
  CHECK(b.settings[0].names.at(0).text == "producers");
  CHECK(b.settings[0].op == "<=");
  CHECK(b.settings[0].value->kind == ast::Value::Kind::Ident);
  CHECK(b.settings[0].value->text == "nproc");
  CHECK(b.settings[1].kind == K::Until);
  CHECK(b.settings[1].op == "<");
  CHECK(b.settings[1].value->number == 1);
  CHECK(b.settings[1].value->unit == "%");
  CHECK(b.settings[2].kind == K::Expect);
  CHECK(b.settings[2].op == ">");
  CHECK(b.settings[2].op_range.col == 70);
  CHECK(b.settings[3].op == "==");
  CHECK(b.settings[3].value->number == 0);
}

TEST_CASE("parse: a baseline holds its own settings", "[parse]") {
  CondParsed p;
  parse(p, "bench local_storage < nr_maps 10; baseline < prog noop; batch 1 > report hits >");
  INFO(render_all(p.diags, p.sm));
  REQUIRE_FALSE(p.diags.has_errors());
  const auto &b = only_bench(p);
  REQUIRE(b.settings.size() == 3);
  CHECK(b.settings[0].names.at(0).text == "nr_maps");
  CHECK(b.settings[1].kind == ast::Setting::Kind::Baseline);
  REQUIRE(b.settings[1].body.size() == 2);
  CHECK(b.settings[1].body[0].names.at(0).text == "prog");
  CHECK(b.settings[1].body[1].value->number == 1);
  CHECK(b.settings[2].kind == ast::Setting::Kind::Report);
}

TEST_CASE("parse: malformed conditions and baselines are located errors", "[parse]") {
  struct Bad {
    std::string text, message;
    uint32_t col;
  };
  std::vector<Bad> cases = {
      {"bench r < where producers 4 >", "expected a comparison: <, <=, >, >=, == or !=", 27},
      {"bench r < expect > 0 >", "expected a name (a parameter or metric) to compare", 18},
      {"bench r < until ci < >", "expected a value to compare with", 22},
      {"bench r < baseline prog noop >", "expected '<' after 'baseline'", 20},
      {"bench r < baseline < baseline < x > > >", "expected '>' to close baseline", 22},
  };
  for (const auto &c : cases) {
    CondParsed p;
    parse(p, c.text);
    INFO(c.text << "\n" << render_all(p.diags, p.sm));
    REQUIRE(p.diags.has_errors());
    CHECK(p.diags.all()[0].message == c.message);
    CHECK(p.diags.all()[0].range.col == c.col);
  }
}
