// Command-line values: every nonsense value is refused with its option, the value as typed
// and its bounds (exit 2); big plans stream in bounded memory.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_paths.hpp"
#include "compiler/pipeline.hpp"
#include "compiler/bdsl/plan_dump.hpp"
#include "run_process.hpp"

namespace fs = std::filesystem;
using bpfbench::test::ProcessResult;
using bpfbench::test::run_process;

namespace {

using bpfbench::test::kBin;
using bpfbench::test::kSrc;
const std::string kTrigger = kSrc + "/examples/trigger.bdsl";

ProcessResult run_values_cli(std::vector<std::string> args) {
  args.insert(args.begin(), kBin);
  return run_process(args, 60);
}

struct Rejected {
  std::vector<std::string> args;
  std::string message;  // the whole error line after "bpfbench: error: "
};

// Runs `bpfbench args`, stdout to /dev/null; returns its max RSS in KB (-1: did not exit 0).
long max_rss_kb(const std::vector<std::string> &args) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char *> argv{const_cast<char *>(kBin.c_str())};
    for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    execv(kBin.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return ru.ru_maxrss;
}

}  // namespace

TEST_CASE("every nonsense option value is refused with its option, value and bounds", "[cli][values]") {
  const std::vector<Rejected> cases = {
      {{"plan", kTrigger, "-d", "0"}, "--duration: 0 is below the 1s minimum"},
      {{"plan", kTrigger, "-d", "500ms"}, "--duration: 500ms is below the 1s minimum"},
      // 9223372036 s fits int64 ns (292 years) and used to run for one interval.
      {{"plan", kTrigger, "-d", "9223372036s"}, "--duration: 9223372036s is above the 86400s maximum"},
      {{"plan", kTrigger, "-d", "9223372037s"}, "--duration: 9223372037s is too large (the maximum is 86400s)"},
      {{"plan", kTrigger, "-d", "99999999999999999999"},
       "--duration: 99999999999999999999 is too large (the maximum is 86400s)"},
      {{"plan", kTrigger, "-d", "-1s"}, "--duration: -1s is below the 1s minimum"},
      {{"plan", kTrigger, "-w", "3601s"}, "--warmup: 3601s is above the 3600s maximum"},
      {{"plan", kTrigger, "-w", "1.5s"},
       "--warmup: expected a duration like 500ms or 2s, got '1.5s' (unknown unit '.5s' for a duration (use s, ms, "
       "us or ns))"},
      // A bare number was seconds: `-w 500` meant as 500ms ran 8 minutes of warmup.
      {{"plan", kTrigger, "-w", "500"}, "--warmup: 500 has no unit: write 500s, 500ms, 500us or 500ns"},
      {{"run", kTrigger, "-d", "5"}, "--duration: 5 has no unit: write 5s, 5ms, 5us or 5ns"},
      {{"run", kTrigger, "--interval", "1"}, "--interval: 1 has no unit: write 1s, 1ms, 1us or 1ns"},
      {{"ab", kTrigger, "--a", "prog=tp", "--b", "prog=rawtp", "--slice", "20"},
       "--slice: 20 has no unit: write 20s, 20ms, 20us or 20ns"},
      {{"plan", kTrigger, "-p", "0"}, "--producers: 0 is below the 1 minimum"},
      {{"plan", kTrigger, "-p", "1025"}, "--producers: 1025 is above the 1024 maximum"},
      {{"plan", kTrigger, "-c", "-1"}, "--consumers: -1 is below the 0 minimum"},
      {{"plan", kTrigger, "-c", "65"}, "--consumers: 65 is above the 64 maximum"},
      {{"plan", kTrigger, "-p", "2x"}, "--producers: expected a whole number, got '2x'"},
      {{"emit", kTrigger, "--point", "-1"}, "--point: -1 is below the 0 minimum"},
      {{"emit", kTrigger, "--point", "18446744073709551615"},
       "--point: 18446744073709551615 is out of range (from 0 to 9223372036854775807)"},
      {{"run", kTrigger, "--min-duration", "5s", "--max-duration", "2s"},
       "--min-duration: the minimum 5s is above the maximum 2s"},
      {{"run", kTrigger, "--min-duration", "40s"},
       "--min-duration: the minimum 40s is above the maximum 30s (the default)"},
      {{"run", kTrigger, "--max-duration", "1s"},
       "--max-duration: the minimum 1500ms (the default) is above the maximum 1s"},
      {{"run", kTrigger, "--min-duration", "5ms"}, "--min-duration: 5ms is below the 10ms minimum"},
      {{"run", kTrigger, "--interval", "5ms"}, "--interval: 5ms is below the 10ms minimum"},
      {{"run", kTrigger, "--interval", "61s"}, "--interval: 61s is above the 60s maximum"},
      {{"run", kTrigger, "--calibration", "50ms"}, "--calibration: 50ms is below the 100ms minimum"},
      {{"run", kTrigger, "--rounds", "0"}, "--rounds: 0 is below the 1 minimum"},
      {{"run", kTrigger, "--rounds", "101"}, "--rounds: 101 is above the 100 maximum"},
      {{"run", kTrigger, "--precision", "0"}, "--precision: 0 is below the 0.01% minimum"},
      {{"run", kTrigger, "--precision", "-1%"}, "--precision: -1% is below the 0.01% minimum"},
      {{"run", kTrigger, "--precision", "1e-300"}, "--precision: 1e-300 is below the 0.01% minimum"},
      {{"run", kTrigger, "--precision", "101%"}, "--precision: 101% is above the 100% maximum"},
      {{"run", kTrigger, "--precision", "nan"}, "--precision: expected a percentage like 1% or 0.5%, got 'nan'"},
      {{"run", kTrigger, "--json", ""}, "--json: expected a file name, got an empty string"},
      {{"run", kTrigger, "--csv", ""}, "--csv: expected a file name, got an empty string"},
      {{"run", kTrigger, "--markdown", ""}, "--markdown: expected a file name, got an empty string"},
      {{"run", kTrigger, "--kernel", ""}, "--kernel: expected a kernel name or path, got an empty string"},
      {{"run", kTrigger, "--only", ""}, "--only: expected a point label or glob, got an empty string"},
      {{"run", kTrigger, "--kernel", "6.12", "--boot-timeout", "nan"}, "--boot-timeout: expected a number, got 'nan'"},
      {{"plan", ""}, "FILE: expected a .bdsl file name, got an empty string"},
      {{"plan", kTrigger, "--templates", ""}, "--templates: expected a folder name, got an empty string"},
      {{"compare", "a.json", "b.json", "--threshold", "nan"}, "--threshold: expected a number, got 'nan'"},
      {{"compare", "a.json", "b.json", "--alpha", "1"}, "--alpha: 1 is not between 0 and 1 (both excluded)"},
      {{"compare", "a.json", "b.json", "--metric", ""}, "--metric: expected a metric name, got an empty string"},
      {{"frob"},
       "unknown command 'frob' (commands: check, plan, emit, list, run, probe, kernels, bench, compare, plot, ab, "
       "doctor)"},
      {{"chek", kTrigger},
       "unknown command 'chek'; did you mean 'check'? (commands: check, plan, emit, list, run, "
       "probe, kernels, bench, compare, plot, ab, doctor)"},
  };
  for (const auto &c : cases) {
    std::string shown;
    for (const auto &a : c.args) shown += " '" + a + "'";
    INFO("bpfbench" << shown);
    auto r = run_values_cli(c.args);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());  // refused before anything ran
    CHECK(r.err.rfind("bpfbench: error: " + c.message + "\n", 0) == 0);
  }
}

TEST_CASE("option values inside the bounds are taken as given", "[cli][values]") {
  auto r = run_values_cli({"plan", kTrigger, "-w", "0", "-d", "86400s", "-p", "3", "-c", "0"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("warmup=0s duration=86400s producers=3 consumers=0") != std::string::npos);
  auto e = run_values_cli({"emit", kTrigger, "--point", "1"});
  CHECK(e.exit_code == 0);
  auto out_of_plan = run_values_cli({"emit", kTrigger, "--point", "20"});
  CHECK(out_of_plan.exit_code == 2);
  CHECK(out_of_plan.err.find("--point 20 is out of range (the plan has 20 points)") != std::string::npos);
}

TEST_CASE("streamed plan JSON is plan_to_json(...).dump(2) byte for byte", "[cli][values][plan]") {
  for (const char *f : {"examples/trigger.bdsl", "examples/ringbufs.bdsl", "tests/cases/ok_expect_code.bdsl",
                        "tests/cases/ok_until.bdsl", "tests/cases/ok_all_forms.bdsl"}) {
    INFO(f);
    bpfbench::Frontend fe;
    bpfbench::FrontendOptions opts;
    opts.allow_large = true;
    REQUIRE(bpfbench::run_frontend(kSrc + "/" + f, opts, fe));
    std::string streamed;
    bpfbench::write_plan_json(*fe.plan, fe.sources, [&](const std::string &s) { streamed += s; });
    CHECK(streamed == bpfbench::plan_to_json(*fe.plan, fe.sources).dump(2));
    std::string text;
    bpfbench::write_plan_text(*fe.plan, [&](const std::string &s) { text += s; });
    CHECK(text == bpfbench::plan_to_text(*fe.plan));
  }
  bpfbench::RunPlan empty;
  empty.file = "e.bdsl";
  std::string streamed;
  bpfbench::write_plan_json(empty, bpfbench::SourceManager{}, [&](const std::string &s) { streamed += s; });
  CHECK(streamed == bpfbench::plan_to_json(empty, bpfbench::SourceManager{}).dump(2));
}

TEST_CASE("plan --json of 100000 points streams in bounded memory and more are refused",
          "[cli][values][plan][no-asan]") {
  char tmpl[] = "/tmp/bpfbench-values-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  fs::path dir = tmpl;
  std::string big = (dir / "big.bdsl").string(), huge = (dir / "huge.bdsl").string();
  std::ofstream(big) << "bench hashmap_full_update < sweep nr_loops [1..100]; sweep max_entries [1..1000]; >\n";
  std::ofstream(huge) << "bench hashmap_full_update < sweep nr_loops [1..1000]; sweep max_entries [1..1000]; >\n";
  // Before streaming this took 750 MB (one JSON tree of the whole plan); now ~150 MB.
  long kb = max_rss_kb({"plan", "--json", big});
  INFO("max RSS " << kb << " KB");
  CHECK(kb > 0);
  CHECK(kb < 400 * 1024);
  auto r = run_values_cli({"check", huge});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("huge.bdsl:1:7-25: error: bench 'hashmap_full_update' expands to more than 100000 points") !=
        std::string::npos);
  fs::remove_all(dir);
}
