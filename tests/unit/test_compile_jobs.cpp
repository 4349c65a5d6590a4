// compile_programs runs a file's compiles side by side (one forked clang child per unit,
// up to the online CPUs): each object must still go to its own points, and the
// diagnostics must come out in unit order, whatever order the compiles finished in.
#include <catch2/catch.hpp>

#include <atomic>
#include <random>
#include <string>

#include "compiler/bpf/object_check.hpp"
#include "compiler/pipeline.hpp"

using namespace bpfbench;

namespace {

// Six trigger benches, each with a global of its own name; benches 1 and 4 use an
// undeclared identifier. A nonce in a comment makes every compile a cache miss, so the
// compiles really run (and overlap) rather than coming from an earlier run's cache.
std::string six_benches(unsigned nonce) {
  std::string text;
  for (int i = 0; i < 6; ++i) {
    text += "bench trigger as \"b" + std::to_string(i) + "\" < prog tp;\n";
    text += "  code globals { /* " + std::to_string(nonce) + " */ int bb_mark_" + std::to_string(i) + "; }\n";
    text += (i == 1 || i == 4) ? "  code body { not_declared_" + std::to_string(i) + " = 1; }\n"
                               : "  code body { bb_mark_" + std::to_string(i) + "++; }\n";
    text += ">\n";
  }
  return text;
}

}  // namespace

TEST_CASE("compiles side by side: each object goes to its own points, errors in file order", "[compile]") {
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  REQUIRE(run_frontend_text("/tmp/jobs.bdsl", six_benches(std::random_device{}()), opts, fe));
  REQUIRE(fe.plan->points.size() == 6);
  CompiledPrograms compiled;
  CHECK_FALSE(compile_programs(fe, compiled));
  CHECK_FALSE(compiled.interrupted);
  CHECK(compiled.compiled == 4);
  CHECK(compiled.programs.size() == 6);
  for (size_t i = 0; i < 6; ++i) {
    INFO("point " << i);
    if (i == 1 || i == 4) {
      CHECK_FALSE(compiled.objects.count(i));
      continue;
    }
    REQUIRE(compiled.objects.count(i));
    auto globals = read_object_globals(compiled.objects.at(i));
    INFO((globals ? "" : globals.error().message));
    REQUIRE(globals);
    for (size_t j = 0; j < 6; ++j) CHECK(globals->count("bb_mark_" + std::to_string(j)) == (i == j ? 1u : 0u));
  }
  const std::string shown = render_all(fe.diags, fe.sources);
  INFO(shown);
  const auto first = shown.find("/tmp/jobs.bdsl:7:");
  const auto second = shown.find("/tmp/jobs.bdsl:19:");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  CHECK(first < second);
  CHECK(shown.find("not_declared_1") < shown.find("not_declared_4"));
}

TEST_CASE("a stop before the compiles start compiles nothing and says interrupted", "[compile]") {
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  REQUIRE(run_frontend_text("/tmp/jobs.bdsl", six_benches(std::random_device{}()), opts, fe));
  std::atomic<bool> stop{true};
  CompiledPrograms compiled;
  CHECK(compile_programs(fe, compiled, &stop));
  CHECK(compiled.interrupted);
  CHECK(compiled.compiled == 0);
  CHECK(compiled.objects.empty());
}
