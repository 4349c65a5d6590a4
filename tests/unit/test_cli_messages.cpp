// Mistakes a new user makes on the command line get the name they meant: a kernel bench
// option misspelt, an option a command does not have; `ab`'s options refused with why.
#include <catch2/catch.hpp>

#include <filesystem>

#include "run_process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using bpfbench::test::kBin;
using bpfbench::test::kSrc;
using bpfbench::test::ProcessResult;
using bpfbench::test::run_process;

namespace {

ProcessResult run_messages_cli(std::vector<std::string> args) {
  args.insert(args.begin(), kBin);
  return run_process(args, 60);
}

}  // namespace

// A misspelt benchmark name: test_kbench_translate.cpp (the session makes the message).

// CLI11 let `--cmp_str_len` go, gave 64 to NAME and then called the benchmark name
// unexpected ("The following argument was not expected: strncmp-helper").
TEST_CASE("bench: a misspelt option is named, with the option meant", "[cli][kbench]") {
  ProcessResult r = run_messages_cli({"bench", "--cmp_str_len", "64", "strncmp-helper"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: bench: unknown option '--cmp_str_len'; did you mean '--cmp-str-len'?\n"
                 "Run with --help for more information.\n");
  CHECK(r.out.empty());
  // The same through a symlink named `bench` (the kernel's scripts call it so).
  bpfbench::test::TempDir d;
  const fs::path link = d.path / "bench";
  fs::create_symlink(kBin, link);
  r = run_process({link.string(), "--nr_map", "10", "local-storage-cache-seq-get"}, 60);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bpfbench: error: bench: unknown option '--nr_map'; did you mean '--nr_maps'?\n") == 0);
  // `--opt=value` is the option `--opt`; every command gets the same.
  r = run_messages_cli({"check", kSrc + "/examples/trigger.bdsl", "--tempaltes=x"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bpfbench: error: check: unknown option '--tempaltes'; did you mean '--templates'?\n") == 0);
  // A value that only looks like an option is still the option's value error.
  r = run_messages_cli({"plan", kSrc + "/examples/trigger.bdsl", "-d", "-1s"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bpfbench: error: --duration: -1s is below the 1s minimum") == 0);
}

// --only is a label or a glob, never a substring: an --only that matches no label of A
// says so and lists them (it was "no point of A matches a point of B (by suite and label)").
TEST_CASE("ab: an --only matching no label of A says so, with the labels", "[cli][ab]") {
  bpfbench::test::TempDir d;
  const std::string f = d.write("a.bdsl", "bench trigger as \"r1\" < prog base >\n");
  ProcessResult r = run_messages_cli({"ab", f, "--a", "producers=1", "--b", "producers=2", "--only", "r"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: --only 'r' matches no point label; the labels are: r1\n");
  CHECK(r.out.empty());
}

// The option values CLI11 refuses, a floors file that is not one, and one combination of
// settings (all of them: test_session_ab.cpp) as `ab` says them: exit 2, a clear message.
TEST_CASE("ab: option errors exit 2 with a clear message", "[cli][ab]") {
  bpfbench::test::TempDir d;
  const std::string f = d.write("a.bdsl", "suite \"S\" < bench trigger as \"t\" < prog base; > >\n"),
                    g = d.write("b.bdsl", "suite \"S\" < bench trigger as \"t\" < prog base; > >\n");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases{
      {{f}, "bpfbench: error: one file needs --a/--b settings, --a-templates/--b-templates, --a-kernel/--b-kernel"},
      {{f, "--a-kernel", "6.1", "--b-kernel", "6.12", "--accel", "xen"}, "--accel"},
      {{f, g, "--format", "xml"}, "--format"},
      {{f, g, "--turn-value", "p90"}, "--turn-value"},
      {{f, g, "--floor-from", d.write("x.json", "{}")}, "not the JSON of a control run"},
      {{f, "--a", "producers"}, "bpfbench: error: --a takes NAME=VALUE, got 'producers'"},
  };
  for (const auto &c : cases) {
    std::vector<std::string> args{"ab"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    ProcessResult r = run_messages_cli(args);
    INFO(c.message << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.out.empty());
  }
}
