// Points the verifier refuses, end to end (root + BPF): `check --verify` names each at its
// .bdsl place with the complaint and its source line, and keeps the whole log in a file;
// `run` refuses before measuring anything (ab's sides in-process: test_session_ab.cpp);
// "started" is said only once loaded.
#include <catch2/catch.hpp>

#include <filesystem>

#include "fault_support.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "test_runtime_support.hpp"
#include "verify_fixtures.hpp"

namespace fs = std::filesystem;
using bpfbench::test::kBin;
using bpfbench::test::run_process;
using bpfbench::test::kBothFine;
using bpfbench::test::kSecondRefused;
using bpfbench::test::TempDir;

namespace {

// bpfbench with `args`, run in `dir` (where the logs' folder goes).
bpfbench::test::ProcessResult bpfbench_in(const TempDir &dir, std::vector<std::string> args, int timeout_s = 120) {
  std::vector<std::string> argv{"/usr/bin/env", "-C", dir.path.string(), kBin};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, timeout_s);
}

size_t times_in(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

// What a run prints once it measures: none of it may appear when a point is refused.
void check_nothing_measured(const bpfbench::test::ProcessResult &r) {
  for (const char *line : {"calibration", "Setting up", "started", "Iter ", "Summary", "===="})
    CHECK(r.out.find(line) == std::string::npos);
  CHECK(r.err.find("[1/") == std::string::npos);  // ab's progress after a round
}

}  // namespace

TEST_CASE("check --verify: a refused second point, at its bench and its source line, the log in a file, exit 2",
          "[runtime][cli][verify]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  const std::string bdsl = dir.write("t.bdsl", kSecondRefused);
  auto r = bpfbench_in(dir, {"check", "--verify", bdsl});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(times_in(r.err, "error:") == 1);
  CHECK(r.err.find(bdsl +
                   ":4:3: error: bench 'two': the verifier refused program 'bench_tp': R1 invalid mem access "
                   "'scalar'\n" +
                   bdsl + ":6: note: at instruction ") != std::string::npos);
  CHECK(r.err.find("\n    if (*(volatile int *)(unsigned long)bpf_get_prandom_u32()) return;\n") != std::string::npos);
  CHECK(r.err.find("): bpfbench-verifier-logs/two.bench_tp.log\n") != std::string::npos);
  CHECK(r.err.ends_with(bdsl + ": 1 of 2 points refused, 1 point verified\n"));
  const std::string log = bpfbench::test::read_text(dir.path / "bpfbench-verifier-logs" / "two.bench_tp.log");
  CHECK(log.find("R1 invalid mem access 'scalar'") != std::string::npos);
  CHECK(log.find("processed ") != std::string::npos);  // the whole log, to its statistics
  CHECK_FALSE(bpfbench::test::has_exception_text(r.err));

  // Both fine: how many were verified, and no logs' folder.
  TempDir ok_dir;
  const std::string fine = ok_dir.write("t.bdsl", kBothFine);
  auto ok = bpfbench_in(ok_dir, {"check", "--verify", fine});
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.starts_with(fine + ": ok, 2 points, "));
  CHECK(ok.out.ends_with(", 2 points verified\n"));
  CHECK_FALSE(fs::exists(ok_dir.path / "bpfbench-verifier-logs"));
}

TEST_CASE("check --verify without root or BPF privileges: exit 2 with what is missing", "[runtime][cli][verify]") {
  BB_REQUIRE_ROOT();
  bpfbench::test::TestUser user = bpfbench::test::test_user();
  REQUIRE(user.ok);
  TempDir dir;
  const std::string bdsl = dir.write("t.bdsl", kBothFine);
  auto r = run_process(bpfbench::test::as_user(user, {kBin, "check", "--verify", bdsl}), 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "bpfbench: error: check --verify loads the programs: bpfbench needs root or CAP_BPF and CAP_PERFMON "
                 "(missing: CAP_BPF, CAP_PERFMON)\n");
}

TEST_CASE("run: a point the verifier refuses ends the run before anything is measured, exit 2",
          "[runtime][cli][verify]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  const std::string bdsl = dir.write("t.bdsl", kSecondRefused);
  const fs::path json = dir.path / "r.json";
  auto r = bpfbench_in(dir, {"run", "--calibration", "1s", bdsl, "--json", json.string()});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  check_nothing_measured(r);
  CHECK(r.err.find(bdsl + ":4:3: error: bench 'two': the verifier refused program 'bench_tp': ") != std::string::npos);
  CHECK(r.err.ends_with("bpfbench: 1 point refused before anything was measured (1 point verified)\n"));
  CHECK_FALSE(fs::exists(json));  // nothing ran: no results to keep
}

// ab: B refused at its second point, found before the first turn: test_session_ab.cpp.

TEST_CASE("run says a benchmark started only once its programs are loaded and attached", "[runtime][cli][verify]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  // The verifier takes a read past a tracepoint's record; attaching it fails (EACCES).
  const std::string bdsl = dir.write("t.bdsl", "defaults < warmup 0s; duration 1s; >\n"
                                               "bench trigger as \"one\" < prog tp; >\n"
                                               "bench trigger as \"two\" < prog tp;\n"
                                               "  code body { if (*(volatile __u64 *)((char *)ctx + 4096)) return; }\n"
                                               ">\n");
  auto r = bpfbench_in(dir, {"run", bdsl});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("Setting up benchmark 'one'...\nBenchmark 'one' started.\n") != std::string::npos);
  CHECK(r.out.find("Setting up benchmark 'two'...\n") != std::string::npos);
  CHECK(r.out.find("Benchmark 'two' started.") == std::string::npos);
  CHECK(r.err.find(bdsl + ":3:1: error: bench 'two' failed: attach: ") != std::string::npos);
}
