// family.json `constraints` (parsing, loading, per-point evaluation) and `where` filters.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "compiler/family/constraints.hpp"
#include "compiler/pipeline.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;

namespace {

FamilyRegistry shipped(Diagnostics &diags) {
  SourceManager sources;
  return FamilyRegistry::load({std::string(BPFBENCH_SOURCE_DIR) + "/bpf_templates"}, sources, diags);
}

// A copy of the ringbuf family whose `constraints` are replaced by `json`.
struct FamilyCopy {
  fs::path dir = fs::temp_directory_path() / ("bb-constraints-" + std::to_string(getpid()));
  explicit FamilyCopy(const std::string &json) {
    fs::remove_all(dir);
    fs::create_directories(dir / "ringbuf");
    fs::path src = fs::path(BPFBENCH_SOURCE_DIR) / "bpf_templates";
    fs::copy(src / "include", dir / "include", fs::copy_options::recursive);
    fs::copy(src / "ringbuf" / "prog.bpf.c", dir / "ringbuf" / "prog.bpf.c");
    std::ifstream in(src / "ringbuf" / "family.json");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    size_t at = text.find("\"constraints\"");
    REQUIRE(at != std::string::npos);
    text = text.substr(0, at) + "\"constraints\": " + json + "\n}\n";
    std::ofstream(dir / "ringbuf" / "family.json") << text;
  }
  ~FamilyCopy() { fs::remove_all(dir); }
  std::string load_error() {
    SourceManager sources;
    Diagnostics diags;
    FamilyRegistry::load({dir.string()}, sources, diags);
    return diags.has_errors() ? diags.all().front().message : "";
  }
};

}  // namespace

TEST_CASE("constraint conditions parse against the family", "[constraints]") {
  Diagnostics diags;
  FamilyRegistry reg = shipped(diags);
  const FamilyManifest &f = *reg.find("ringbuf");
  auto c = parse_condition("prog == perfbuf && sampled == true && sample_rate <= batch", f);
  REQUIRE(c);
  REQUIRE(c->size() == 3);
  CHECK((*c)[0].rhs_value.s == "perfbuf");
  CHECK((*c)[1].rhs_value.i == 1);
  CHECK((*c)[2].rhs_name == "batch");
  CHECK(parse_condition("ring_size >= 64K", f)->front().rhs_value.i == 65536);
  CHECK(parse_condition("", f)->empty());
  auto bad1 = parse_condition("smaple_rate < 3", f);
  REQUIRE_FALSE(bad1);
  CHECK(bad1.error().message == "'smaple_rate < 3' names unknown setting 'smaple_rate'");
  auto bad2 = parse_condition("prog == tp", f);
  REQUIRE_FALSE(bad2);
  CHECK(bad2.error().message == "'prog == tp': 'tp' is not one of prog's choices");
  CHECK_FALSE(parse_condition("batch 3", f));
  CHECK_FALSE(parse_condition("sampled == maybe", f));
}

TEST_CASE("comparisons hold per point", "[constraints]") {
  Diagnostics diags;
  FamilyRegistry reg = shipped(diags);
  const FamilyManifest &f = *reg.find("ringbuf");
  PlanPoint p;
  p.program = "perfbuf";
  p.producers = 3;
  p.params = {{"batch", ParamValue{true, 10, {}}}, {"sample_rate", ParamValue{true, 50, {}}}};
  ValueLookup lookup = [&](const std::string &n) { return point_value(p, n); };
  CHECK_FALSE(holds_all(*parse_condition("sample_rate <= batch", f), lookup));
  CHECK(holds_all(*parse_condition("producers > 2 && prog != output", f), lookup));
  CHECK_FALSE(holds_all(*parse_condition("producers == 1", f), lookup));
}

TEST_CASE("the manifest loader rejects bad constraints", "[constraints][manifest]") {
  CHECK(FamilyCopy(R"([{ "require": "producers == 1", "message": "m" }])").load_error() == "");
  std::string e = FamilyCopy(R"([{ "require": "producer == 1", "message": "m" }])").load_error();
  CHECK(e.find("constraints[0]: 'producer == 1' names unknown setting 'producer'") != std::string::npos);
  e = FamilyCopy(R"([{ "when": "back2back", "require": "producers == 1", "message": "m" }])").load_error();
  CHECK(e.find("is not 'name op value'") != std::string::npos);
  e = FamilyCopy(R"([{ "require": "producers == 1" }])").load_error();
  CHECK(e.find("message") != std::string::npos);
}

TEST_CASE("where filters the plan and constraints see only what remains", "[constraints][where]") {
  fs::path file = fs::temp_directory_path() / ("bb-where-" + std::to_string(getpid()) + ".bdsl");
  std::ofstream(file)
      << "let most = 4;\n"
         "bench ringbuf as \"p{producers}\" < sweep producers [1..8]; where producers <= most; >\n"
         "bench ringbuf as \"b{producers}\" < back2back; sweep producers [1..3]; where producers == 1; >\n";
  FrontendOptions opts;
  opts.nproc = 2;
  Frontend fe;
  bool ok = run_frontend(file.string(), opts, fe);
  fs::remove(file);
  REQUIRE(ok);
  REQUIRE(fe.plan->points.size() == 5);
  CHECK(fe.plan->points[3].label == "p4");
  CHECK(fe.plan->points[4].label == "b1");
}

TEST_CASE("a remainder on the left: producers % 2 == 0 asks for an even count", "[constraints]") {
  Diagnostics diags;
  FamilyRegistry reg = shipped(diags);
  const FamilyManifest &f = *reg.find("ringbuf");
  auto even = parse_condition("producers % 2 == 0 && producers >= 2", f);
  REQUIRE(even);
  CHECK((*even)[0].lhs == "producers");
  CHECK((*even)[0].modulo == 2);
  PlanPoint p;
  ValueLookup lookup = [&](const std::string &n) { return point_value(p, n); };
  for (int n : {1, 2, 3, 4, 8, 9}) {
    p.producers = n;
    INFO(n);
    CHECK(holds_all(*even, lookup) == (n % 2 == 0));
  }
  auto bad3 = parse_condition("producers % 0 == 0", f);
  REQUIRE_FALSE(bad3);
  CHECK(bad3.error().message.find("the divisor after '%' is a positive integer") != std::string::npos);
  CHECK_FALSE(parse_condition("producers % x == 0", f));
  auto bad4 = parse_condition("prog % 2 == 0", f);
  REQUIRE_FALSE(bad4);
  CHECK(bad4.error().message.find("'prog % N' needs an int setting") != std::string::npos);
  // The shipped htab_mem family says so for its paired program.
  const FamilyManifest &h = *reg.find("htab_mem");
  PlanPoint q;
  q.program = "add_del_on_diff_cpu";
  Diagnostics cdiags;
  ConstraintChecker checker(cdiags);
  for (int n : {2, 3, 8}) {
    q.producers = n;
    INFO(n);
    CHECK(checker.check(q, h) == (n % 2 == 0));
  }
  q.program = "overwrite";
  q.producers = 3;
  CHECK(checker.check(q, h));
}
