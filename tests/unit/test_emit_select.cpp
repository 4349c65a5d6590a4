// emit --only / --point: the program of exactly the points asked for, under a line naming
// each. With a baseline, --only LABEL used to emit the baseline's program first (xlated:
// only it), as the baseline runs before its main point and came along with it.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <regex>
#include <string>

#include "run_process.hpp"
#include "runtime/prog_dump.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"

using bpfbench::test::ProcessResult;
using bpfbench::test::run_process;

namespace {

const std::string kSelectFixtures = BPFBENCH_SOURCE_DIR "/tests/fixtures/families";

// Points: 0 s-4-baseline (2 slots), 1 s-4, 2 s-16-baseline (2 slots), 3 s-16. The slot count
// is a template param: each point's C says it (`/* 16 slots */`).
const char *kSlotsFile = "bench tplparam as \"s-{slots}\" < sweep slots [4, 16]; baseline < slots 2; >; >\n";

size_t dump_headers_in(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

ProcessResult run_emit(const std::string &file, std::vector<std::string> args) {
  std::vector<std::string> argv = {BPFBENCH_BINARY, "emit", "--templates", kSelectFixtures, file};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, 60);
}

}  // namespace

TEST_CASE("emit --only LABEL: the C of that point alone, under a line naming it", "[cli][emit][only]") {
  bpfbench::test::TempDir d;
  const std::string f = d.write("s.bdsl", kSlotsFile);
  // Its index in the file's plan (`bpfbench plan FILE`), not in the points --only kept.
  const std::string title = "point 3 's-16' of bench 0 tplparam (" + f + ":1:1): prog=slots slots=16 mode=count";
  for (std::vector<std::string> args : {std::vector<std::string>{"--only", "s-16"},
                                        std::vector<std::string>{"--only", "s-16", "--dump=c"}}) {
    ProcessResult r = run_emit(f, args);
    INFO(args.back() << ": " << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("// ==== tplparam-0.bpf.c: " + title + "\n", 0) == 0);
    CHECK(dump_headers_in(r.out, "// ==== ") == 1);  // --dump=c printed it twice before
    CHECK(r.out.find("/* 16 slots */") != std::string::npos);
    CHECK(r.out.find("/* 2 slots */") == std::string::npos);  // not the baseline's program
    CHECK(r.out.find("baseline") == std::string::npos);
  }
  // The baseline's own label: its program.
  ProcessResult b = run_emit(f, {"--only", "s-16-baseline"});
  REQUIRE(b.exit_code == 0);
  CHECK(b.out.find("point 2 's-16-baseline' of bench 0 tplparam") != std::string::npos);
  CHECK(b.out.find("/* 2 slots */") != std::string::npos);
  CHECK(b.out.find("/* 16 slots */") == std::string::npos);
  // --dump=plan of emit is the plan of the points named, numbered as the file's plan.
  ProcessResult p = run_emit(f, {"--only", "s-16", "--dump=plan"});
  REQUIRE(p.exit_code == 0);
  CHECK(p.out.find("plan for " + f + ": 1 point\n  [  3] s-16 ") != std::string::npos);
  // `plan --only` runs the baseline too, and numbers both as the file's plan does.
  ProcessResult plan = run_process({BPFBENCH_BINARY, "plan", "--templates", kSelectFixtures, f, "--only", "s-16"});
  REQUIRE(plan.exit_code == 0);
  CHECK(plan.out.find("plan for " + f + ": 2 points\n  [  2] s-16-baseline ") != std::string::npos);
  CHECK(plan.out.find("\n  [  3] s-16 ") != std::string::npos);
  CHECK(plan.out.find(" baseline=[2] ") != std::string::npos);
}

TEST_CASE("emit --point N names the point it emits, as --only of its label does", "[cli][emit][only]") {
  bpfbench::test::TempDir d;
  const std::string f = d.write("s.bdsl", kSlotsFile);
  ProcessResult all = run_emit(f, {"--point", "3"});
  INFO(all.out << all.err);
  REQUIRE(all.exit_code == 0);
  CHECK(all.out.rfind("// ==== point 3 's-16' of bench 0 tplparam (" + f + ":1:1): prog=slots slots=16 mode=count\n",
                      0) == 0);
  CHECK(all.out.find("/* 16 slots */") != std::string::npos);
  // With --only too, --point still counts in the file's plan, and must be a point named.
  ProcessResult only = run_emit(f, {"--only", "s-*[0-9]", "--point", "3"});
  INFO(only.out << only.err);
  REQUIRE(only.exit_code == 0);
  CHECK(only.out.rfind("// ==== point 3 's-16' ", 0) == 0);
  ProcessResult other = run_emit(f, {"--only", "s-*[0-9]", "--point", "2"});
  CHECK(other.exit_code == 2);
  CHECK(other.err == "bpfbench: error: --point 2 is not one of the points --only names (1, 3)\n");
  // The whole file: every distinct program once, each under the first point that uses it.
  ProcessResult plain = run_emit(f, {});
  REQUIRE(plain.exit_code == 0);
  CHECK(dump_headers_in(plain.out, "// ==== ") == 3);
  CHECK(plain.out.find("// ==== tplparam-0.bpf.c: point 0 's-4-baseline' ") != std::string::npos);
  CHECK(plain.out.find("\n// (the same C for 1 more point: 2 's-16-baseline')\n") != std::string::npos);
}

// Loads the programs: the xlated dump of --only LABEL is the one of --point <its index>, not
// its baseline's.
TEST_CASE("emit --dump=xlated --only LABEL dumps that point's program, not its baseline's",
          "[runtime][cli][emit][only]") {
  BB_REQUIRE_ROOT();
  if (access(bpfbench::kBpftoolPath, X_OK) != 0) {
    WARN("skipped: no " << bpfbench::kBpftoolPath);
    return;
  }
  bpfbench::test::TempDir d;
  const std::string f = d.write("s.bdsl", kSlotsFile);
  // The program's lines, without the header and bpftool's `// bench_slots (id N)` line, and
  // with the ids of its maps (`map[id:21691]`, new at every load) left out.
  auto body = [](const std::string &out) {
    size_t second = out.find('\n', out.find('\n') + 1);
    return second == std::string::npos ? std::string()
                                       : std::regex_replace(out.substr(second + 1), std::regex("id:[0-9]+"), "id:N");
  };
  ProcessResult only = run_emit(f, {"--only", "s-16", "--dump=xlated"});
  ProcessResult point = run_emit(f, {"--point", "3", "--dump=xlated"});
  ProcessResult base = run_emit(f, {"--only", "s-16-baseline", "--dump=xlated"});
  INFO(only.out << only.err << point.err << base.err);
  REQUIRE(only.exit_code == 0);
  REQUIRE(point.exit_code == 0);
  REQUIRE(base.exit_code == 0);
  CHECK(only.out.rfind("// ==== point 3 's-16' of bench 0 tplparam (", 0) == 0);
  CHECK(point.out.rfind("// ==== point 3 's-16' of bench 0 tplparam (", 0) == 0);
  CHECK(base.out.rfind("// ==== point 2 's-16-baseline' ", 0) == 0);
  CHECK(only.out.find("\n// bench_slots (id ") != std::string::npos);
  CHECK(!body(only.out).empty());
  CHECK(body(only.out) == body(point.out));
  CHECK(body(only.out) != body(base.out));
  // Two points named: a dump each, each under its own line.
  ProcessResult both = run_emit(f, {"--only", "s-4", "--only", "s-16", "--dump=xlated"});
  REQUIRE(both.exit_code == 0);
  CHECK(dump_headers_in(both.out, "// ==== point ") == 2);
  CHECK(both.out.find("// ==== point 1 's-4' ") != std::string::npos);
  CHECK(both.out.find("// ==== point 3 's-16' ") != std::string::npos);
}

TEST_CASE("emit --bench N: a program two benches share is shown for either, under that bench's point",
          "[cli][emit]") {
  bpfbench::test::TempDir d;
  const std::string f = d.write("two.bdsl", "bench tplparam as \"a\" < slots 4; >\nbench tplparam as \"b\" < slots 4; >\n");
  ProcessResult second = run_emit(f, {"--bench", "1"});
  INFO(second.out << second.err);
  REQUIRE(second.exit_code == 0);  // was: no bench matches --bench 1 (the C's first point is bench 0's)
  CHECK(second.out.rfind("// ==== tplparam-0.bpf.c: point 1 'b' of bench 1 tplparam (" + f + ":2:1): ", 0) == 0);
  ProcessResult both = run_emit(f, {"--bench", "tplparam"});
  REQUIRE(both.exit_code == 0);
  CHECK(both.out.find("\n// (the same C for 1 more point: 1 'b')\n") != std::string::npos);
  ProcessResult none = run_emit(f, {"--bench", "2"});
  CHECK(none.exit_code == 2);
  CHECK(none.err == "bpfbench: error: no bench matches --bench 2\n");
}
