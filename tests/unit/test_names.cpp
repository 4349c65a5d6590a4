// compiler/bdsl/names.hpp against the grammar: the PEGTL rules (grammar/bdsl.hpp) define which
// characters a .bdsl identifier holds; the C++ helpers every other layer uses must say the
// same for every byte, first and later, and C identifiers are those without '-'.
#include <catch2/catch.hpp>

#include <string>

#include "compiler/bdsl/names.hpp"
#include "grammar/bdsl.hpp"
#include "grammar_support.hpp"

namespace g = bpfbench::grammar;
using bpfbench::test::full_match;

TEST_CASE("names: the character helpers agree with the grammar for every byte", "[grammar][names]") {
  int starts = 0, others = 0;
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const std::string one(1, c);
    INFO("byte " << b);
    CHECK(bpfbench::is_ident_start(c) == full_match<g::ident_first>(one));
    CHECK(bpfbench::is_bdsl_ident_char(c) == full_match<g::ident_other>(one));
    CHECK(bpfbench::is_c_ident_char(c) == (bpfbench::is_bdsl_ident_char(c) && c != '-'));
    starts += bpfbench::is_ident_start(c);
    others += bpfbench::is_bdsl_ident_char(c);
  }
  // [A-Za-z_] and [A-Za-z0-9_-]: the grammar's comment, so a rule that matched nothing
  // (and helpers that agreed by saying false everywhere) cannot pass.
  CHECK(starts == 53);
  CHECK(others == 64);
}

TEST_CASE("names: identifiers of one and two bytes as the grammar reads them", "[grammar][names]") {
  // Every string of one or two bytes: the grammar's identifier is a start byte and then
  // bytes of ident_other; a C identifier (is_identifier) is that without a '-'.
  size_t grammar_ids = 0;
  for (int a = 0; a < 256; ++a)
    for (int b = -1; b < 256; ++b) {
      std::string s(1, static_cast<char>(a));
      if (b >= 0) s += static_cast<char>(b);
      const bool bdsl = full_match<g::identifier>(s);
      grammar_ids += bdsl;
      const bool helpers = bpfbench::is_ident_start(s[0]) && (s.size() == 1 || bpfbench::is_bdsl_ident_char(s[1]));
      if (bdsl != helpers || bpfbench::is_identifier(s) != (bdsl && s.find('-') == std::string::npos)) {
        INFO("bytes " << a << " " << b);
        CHECK(bdsl == helpers);
        CHECK(bpfbench::is_identifier(s) == (bdsl && s.find('-') == std::string::npos));
      }
    }
  CHECK(grammar_ids == 53 + 53 * 64);
  CHECK_FALSE(bpfbench::is_identifier(""));
}

TEST_CASE("names: a name holds identifier bytes and may start with any of them", "[names]") {
  CHECK(bpfbench::is_name("rb-custom"));
  CHECK(bpfbench::is_name("1st"));
  CHECK(bpfbench::is_name("-x"));
  CHECK(bpfbench::is_name("kworker-x_9"));
  CHECK_FALSE(bpfbench::is_name(""));
  CHECK_FALSE(bpfbench::is_name("a b"));
  CHECK_FALSE(bpfbench::is_name("a.b"));
  CHECK_FALSE(bpfbench::is_name("\xc3\xa9"));
  CHECK(bpfbench::is_identifier("sample_rate"));
  CHECK(bpfbench::is_identifier("_x1"));
  CHECK_FALSE(bpfbench::is_identifier("rb-custom"));
  CHECK_FALSE(bpfbench::is_identifier("1a"));
}
