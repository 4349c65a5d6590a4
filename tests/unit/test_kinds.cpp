// The kind tables (compiler/family/kinds.cpp): every enumerator has one row with a name and a doc,
// and docs/families.md shows the tables as `bpfbench list --kinds` prints them.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <set>

#include "compiler/family/kinds.hpp"
#include "compiler/family/kinds_text.hpp"
#include "test_paths.hpp"

using namespace bpfbench;

namespace {

template <typename Kind>
void check_table() {
  std::set<std::string> names;
  for (const auto &row : kind_table<Kind>()) {
    INFO(row.name);
    CHECK(names.insert(row.name).second);
    CHECK(*row.doc != '\0');
    CHECK(parse_kind<Kind>(row.name) == row.kind);
    CHECK(&kind_info(row.kind) == &row);
    std::set<std::string> params;
    for (const auto &p : row.params) CHECK(params.insert(p.name).second);
  }
}

// The text of the fenced block that follows the line `$ bpfbench list --kinds` in `page`.
std::string listed_block(const std::string &page) {
  const std::string cmd = "$ bpfbench list --kinds\n";
  size_t at = page.find(cmd);
  if (at == std::string::npos) return "";
  at += cmd.size();
  size_t end = page.find("```", at);
  return end == std::string::npos ? "" : page.substr(at, end - at);
}

}  // namespace

TEST_CASE("kind tables: one row per kind, named once, with a doc", "[kinds]") {
  check_table<ProducerKind>();
  check_table<ConsumerKind>();
  check_table<AttachKind>();
  check_table<SetupActionKind>();
  check_table<MetricSourceKind>();
}

TEST_CASE("docs/families.md lists the kinds as the tables have them (bpfbench list --kinds)", "[kinds][docs]") {
  std::ifstream in(test::kSrc + "/docs/families.md");
  REQUIRE(in);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string block = listed_block(page);
  INFO("regenerate the block with: build/bpfbench list --kinds");
  CHECK(block == kinds_reference());
}
