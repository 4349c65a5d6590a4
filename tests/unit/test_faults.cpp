// Fault tests of `bpfbench run` (root + real kernel): signals at random phases, failures
// of the kernel and the machine (verifier, map allocation, uprobe target, tracefs, cache
// directory, full disk), missing privileges and points too large for the machine. Each
// fault must end in one clear message and the documented exit code, with no crash, no
// C++ exception text and no lost or torn results.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "test_paths.hpp"
#include "fault_support.hpp"
#include "run_process.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench::test;
using Clock = std::chrono::steady_clock;

namespace {

using bpfbench::test::kBin;
const std::string kFaultFixtures = std::string(BPFBENCH_SOURCE_DIR) + "/tests/fixtures/families";

size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// A started `bpfbench`, its stdout/stderr going to files (no pipe to fill up), in its
// own process group.
struct Spawned {
  pid_t pid = -1;
  Clock::time_point started;
};

Spawned spawn(const std::vector<std::string> &argv, const fs::path &out, const fs::path &err,
              const std::string &cache_home) {
  Spawned s;
  // The signals stay blocked across fork until the child has dropped the test
  // framework's handlers: a signal before exec must act on the child as on bpfbench
  // before main(), not run Catch's reporter in the copy of this process.
  sigset_t stop_signals, old;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop_signals, &old);
  s.started = Clock::now();
  s.pid = fork();
  if (s.pid == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || e < 0) _exit(126);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    setenv("XDG_CACHE_HOME", cache_home.c_str(), 1);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  return s;
}

// Waits up to `limit` for `pid`; SIGKILLs it after that. Returns the wait status.
int wait_for(pid_t pid, std::chrono::milliseconds limit, bool &timed_out) {
  auto deadline = Clock::now() + limit;
  int status = 0;
  timed_out = false;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      timed_out = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return status;
}

// "" when the results document is whole and holds only fully measured points: label ->
// warmup intervals; each point measures one interval.
std::string check_results_json(const std::string &text, bool complete, const std::map<std::string, size_t> &warmups,
                               std::vector<std::string> &labels) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "not JSON";
  if (j.value("schema", "") != "bpfbench-results/2") return "no schema";
  if (j.value("complete", !complete) != complete) return "complete is not " + std::to_string(complete);
  if (j.value("interrupted", complete) == complete) return "interrupted is not " + std::to_string(!complete);
  if (!j.contains("points") || !j["points"].is_array()) return "no points";
  if (complete && j["points"].size() != warmups.size()) return "not every point is there";
  for (const auto &p : j["points"]) {
    std::string label = p.value("label", "?");
    if (p.value("status", "") != "ok") return "point '" + label + "' has status " + p.value("status", "?");
    if (!warmups.count(label) || p["warmup"].size() != warmups.at(label) || p["samples"].size() != 1)
      return "point '" + label + "' is not fully measured";
    labels.push_back(label);
  }
  return "";
}

// Points whose text shows a summary must have printed a measured interval: per block
// "Setting up benchmark 'L'", more Iter lines than L's warmup intervals. "" or the label.
std::string summary_without_samples(const std::string &out, const std::map<std::string, size_t> &warmups) {
  const std::string head = "Setting up benchmark '";
  for (size_t at = out.find(head); at != std::string::npos;) {
    size_t next = out.find(head, at + 1);
    std::string block = out.substr(at, next == std::string::npos ? std::string::npos : next - at);
    std::string label = block.substr(head.size(), block.find('\'', head.size()) - head.size());
    if (block.find("Summary:") != std::string::npos && warmups.count(label) &&
        count_of(block, "\nIter ") <= warmups.at(label))
      return label;
    at = next;
  }
  return "";
}

// SIGINT and SIGTERM (alternately) sent to `bpfbench run FILE --json --csv` after one
// random delay in each of `trials` equal slices of [0, span]: start-up, a cold compile
// (a fresh cache per run), probing, load, setup, warmup, sampling, the switch between
// points and the end of a run all get hit, at random places within their slices. Each
// time: the exit code of the signal (or 0 when the run had finished) within a second, no
// process and no BPF object left, and result files that are whole and hold only fully
// measured points. `warmups`: label -> warmup intervals (each point measures one).
void signal_trials(const std::string &bdsl_text, const std::map<std::string, size_t> &warmups, int trials,
                   double span) {
  TempDir dir;
  fs::path bdsl = dir.write("sig.bdsl", bdsl_text);
  // Reproduce a failure with BPFBENCH_FAULT_SEED=<seed from the report>.
  const char *env_seed = std::getenv("BPFBENCH_FAULT_SEED");
  const uint64_t seed = env_seed ? std::strtoull(env_seed, nullptr, 10) : std::random_device{}();
  std::mt19937_64 rng(seed);
  Subreaper reaper;
  // The results files are fsync'ed on the way out; right after a build, the disk's backlog
  // of dirty pages made one such fsync take over a second (measured in CI). Flush it first:
  // the second measured here is the signal's, not the page cache's.
  ::sync();
  for (int i = 0; i < trials; ++i) {
    std::uniform_real_distribution<double> in_slice(span * i / trials, span * (i + 1) / trials);
    const double delay = in_slice(rng);
    const int sig = i % 2 ? SIGTERM : SIGINT;
    fs::path run_dir = dir.path / ("run" + std::to_string(i));
    fs::create_directories(run_dir / "cache");
    fs::path json = run_dir / "r.json", csv = run_dir / "r.csv";

    BpfIds before = live_bpf_ids();
    Spawned s = spawn({kBin, "run", bdsl.string(), "--json", json.string(), "--csv", csv.string()}, run_dir / "out",
                      run_dir / "err", (run_dir / "cache").string());
    REQUIRE(s.pid > 0);
    std::this_thread::sleep_until(s.started + std::chrono::duration<double>(delay));
    auto signalled = Clock::now();
    kill(s.pid, sig);
    bool timed_out = false;
    int status = wait_for(s.pid, std::chrono::seconds(10), timed_out);
    double exit_s = std::chrono::duration<double>(Clock::now() - signalled).count();
    std::vector<pid_t> orphans = reaper.take_orphans();  // e.g. a compile child still running
    bool group_gone = kill(-s.pid, 0) != 0 && errno == ESRCH;
    std::string leaked = leaked_bpf_objects(before);
    std::string out = read_text(run_dir / "out"), err = read_text(run_dir / "err");

    INFO("seed " << seed << ", trial " << i << ": " << strsignal(sig) << " after " << delay << " s, exit after "
                 << exit_s << " s\nstdout:\n"
                 << out << "stderr:\n"
                 << err << "leaked: " << leaked);
    CHECK_FALSE(timed_out);
    CHECK(exit_s < 1.0);
    CHECK(orphans.empty());
    CHECK(group_gone);
    CHECK(leaked.empty());
    CHECK_FALSE(has_exception_text(err));
    CHECK(summary_without_samples(out, warmups) == "");
    if (!WIFEXITED(status)) {
      // Only before `run` blocks the signals (process start-up, argument parsing) may one
      // kill the process, as it would any program: then nothing has started yet.
      CHECK(WIFSIGNALED(status));
      CHECK(WTERMSIG(status) == sig);
      CHECK(out.empty());
      CHECK_FALSE(fs::exists(json));
      continue;
    }
    const int code = WEXITSTATUS(status);
    const bool finished = code == 0;
    CHECK((code == 128 + sig || finished));
    if (finished) CHECK(count_of(out, "Summary:") == warmups.size());
    else CHECK(err.find("bpfbench: interrupted (") != std::string::npos);

    // Results: both files, whole, with only fully measured points, and no temporary file.
    REQUIRE(fs::exists(json));
    REQUIRE(fs::exists(csv));
    std::vector<std::string> labels;
    CHECK(check_results_json(read_text(json), finished, warmups, labels) == "");
    CHECK(labels.size() <= count_of(out, "Summary:"));
    std::vector<std::vector<std::string>> rows;
    CHECK(check_csv(read_text(csv), &rows) == "");
    std::set<std::string> csv_labels;
    for (const auto &r : rows) {
      REQUIRE(r.size() > 5);
      csv_labels.insert(r[1]);  // suite,label,family,program,params,status,...
      CHECK(r[5] == "ok");
    }
    CHECK(csv_labels == std::set<std::string>(labels.begin(), labels.end()));
    for (const auto &e : fs::directory_iterator(run_dir))
      CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
  }
}

}  // namespace

TEST_CASE("signals at random phases: exit 130 or 143 within a second, nothing left behind, whole result files",
          "[runtime][faults][signals]") {
  BB_REQUIRE_ROOT();
  // Two points, ~3.3 s in all here: rawtp warms up for an interval, tp does not.
  signal_trials("bench trigger as \"rawtp\" < prog rawtp; warmup 1s; duration 1s >\n"
                "bench trigger as \"tp\" < prog tp; warmup 0s; duration 1s >\n",
                {{"rawtp", 1}, {"tp", 0}}, 20, 3.6);
}

TEST_CASE("signals during a point with forked tasks: every child reaped, exit 130 or 143 within a second",
          "[runtime][faults][signals]") {
  BB_REQUIRE_ROOT();
  // 300 children forked at setup (the rcu_tasks_trace seed forks 15000), killed and reaped
  // on the way out; ~2.8 s in all here. It runs under ASan too since the fork loop checks
  // for a stop before every child (534b523): 30 signals to ASan's bpfbench beside a nice-19
  // CPU hog took at most 0.45 s to the exit (before: 1.02-1.15 s in 3 of 30).
  signal_trials("bench rcu_tasks_trace as \"churn\" < prog churn; nr_procs 300; warmup 1s; duration 1s >\n",
                {{"churn", 1}}, 6, 3.0);
}

TEST_CASE("a verifier rejection among other points: nothing is measured, no results file, exit 2",
          "[runtime][faults]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("rej.bdsl", "bench trigger as \"base\" < prog base; warmup 0s; duration 1s >\n"
                                        "bench verifier_reject as \"rej\" < warmup 0s; duration 1s >\n");
  fs::path json = dir.path / "r.json";
  // Every point is verified before the first is measured: the run ends there (its log's
  // folder goes to the current folder, the test's own here).
  auto r = run_process({"/usr/bin/env", "-C", dir.path.string(), kBin, "run", "--templates", kFaultFixtures,
                        bdsl.string(), "--json", json.string()},
                       60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(count_of(r.err, "error:") == 1);
  CHECK(r.err.find(bdsl.string() + ":2:1: error: bench 'rej': the verifier refused program 'bench_reject': ") !=
        std::string::npos);
  CHECK_FALSE(has_exception_text(r.err));
  CHECK(r.out.find("Summary") == std::string::npos);  // base was not measured either
  CHECK_FALSE(fs::exists(json));                      // nothing measured, nothing to keep
  CHECK(fs::exists(dir.path / "bpfbench-verifier-logs" / "rej.bench_reject.log"));
}

TEST_CASE("a map too big to allocate: one message naming the map and its size, exit 2", "[runtime][faults]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  // 1G entries of 4 KiB: 4 TiB, which the kernel refuses at once.
  fs::path bdsl =
      dir.write("huge.bdsl", "bench huge_map as \"huge\" < nr_entries 1073741824; warmup 0s; duration 1s >\n");
  auto r = run_process({kBin, "run", "--templates", kFaultFixtures, bdsl.string()}, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(count_of(r.err, "error:") == 1);
  CHECK(r.err.find(bdsl.string() +
                   ":1:1: error: bench 'huge' failed: load: cannot create map 'huge' (max_entries 1073741824, "
                   "4-byte keys, 4096-byte values): Cannot allocate memory (ENOMEM)") != std::string::npos);
  CHECK_FALSE(has_exception_text(r.err));
}

TEST_CASE("a uprobe target that does not exist: the message names the function and the binary, exit 2",
          "[runtime][faults][uprobes]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("up.bdsl", "bench missing_uprobe as \"missing\" < warmup 0s; duration 1s >\n");
  auto r = run_process({kBin, "run", "--templates", kFaultFixtures, bdsl.string()}, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(count_of(r.err, "error:") == 1);
  CHECK(r.err.find(bdsl.string() + ":1:1: error: bench 'missing' failed: attach: cannot attach program "
                                   "'bench_uprobe' (uprobe on bpfbench_no_such_target): /proc/self/exe (the "
                                   "bpfbench binary) has no function 'bpfbench_no_such_target'") != std::string::npos);
  CHECK_FALSE(has_exception_text(r.err));
}

TEST_CASE("a tracefs that cannot be mounted: the point fails naming tracefs and its path, exit 2",
          "[runtime][faults][tracefs]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("tp.bdsl", "bench trigger as \"tp\" < prog tp; warmup 0s; duration 1s >\n");
  // A private mount namespace without tracefs, and a root without CAP_SYS_ADMIN (as in a
  // container given CAP_BPF and CAP_PERFMON): mounting tracefs fails with EPERM.
  auto r =
      run_process(in_mount_namespace("umount -l /sys/kernel/tracing 2>/dev/null; "
                                     "test ! -e /sys/kernel/tracing/events || exit 99; "
                                     "exec /usr/bin/setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin \"$@\"",
                                     {kBin, "run", bdsl.string()}),
                  60);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code != 99);
  CHECK(r.exit_code == 2);
  CHECK(count_of(r.err, "error:") == 1);
  CHECK(r.err.find(bdsl.string() + ":1:1: error: bench 'tp' failed: tracefs is not mounted at /sys/kernel/tracing "
                                   "and mounting it failed: Operation not permitted (EPERM)") != std::string::npos);
  CHECK(r.out.find("skipped") == std::string::npos);  // the kernel has tracepoints: not a skip
  CHECK_FALSE(has_exception_text(r.err));
}

TEST_CASE("a read-only cache directory: a warning, the run compiles without caching, exit 0",
          "[runtime][faults][cache]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("c.bdsl", "bench trigger as \"rawtp\" < prog rawtp; warmup 0s; duration 1s >\n");
  fs::create_directories(dir.path / "cache");
  // Root ignores mode bits: a read-only tmpfs is what makes the directory unwritable.
  auto r = run_process(in_mount_namespace("mount -t tmpfs -o ro,size=64k none \"$1\" && d=\"$1\" && shift && "
                                          "XDG_CACHE_HOME=\"$d\" exec \"$@\"",
                                          {(dir.path / "cache").string(), kBin, "run", bdsl.string()}),
                       60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(count_of(r.out, "Summary: hits") == 1);
  // Once, however many programs; the machine may add warnings of its own (busy CPUs).
  CHECK(count_of(r.err, "compiled BPF objects are not cached") == 1);
  CHECK(r.err.find("warning: compiled BPF objects are not cached (cannot create " + (dir.path / "cache").string() +
                   "/bpfbench: Read-only file system); every run compiles again") != std::string::npos);
  CHECK(count_of(r.err, "error:") == 0);
  CHECK_FALSE(has_exception_text(r.err));
}

TEST_CASE("a full disk for the results: the file and the error named, exit 1, text kept, old file intact",
          "[runtime][faults][results]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("d.bdsl", "bench trigger as \"{prog}\" < prog [base, rawtp]; warmup 0s; duration 1s >\n");
  const std::string old_json = "{\"schema\": \"bpfbench-results/1\", \"points\": []}\n";
  const std::string old_csv = "suite,label\n";
  fs::path full = dir.path / "full";
  fs::create_directories(full);
  // A 64 KiB tmpfs holding good files from before, then filled up.
  auto r = run_process(in_mount_namespace("mount -t tmpfs -o size=64k none \"$1\" && "
                                          "printf '%s' \"$2\" > \"$1/r.json\" && printf '%s' \"$3\" > \"$1/r.csv\" && "
                                          "{ head -c 1M /dev/zero > \"$1/filler\" 2>/dev/null; true; } && "
                                          "d=\"$1\" && shift 3 && \"$@\"; rc=$?; "
                                          "cat \"$d/r.json\" > \"$d.json\"; cat \"$d/r.csv\" > \"$d.csv\"; "
                                          "ls -A \"$d\" > \"$d.ls\"; exit $rc",
                                          {full.string(), old_json, old_csv, kBin, "run", bdsl.string(), "--json",
                                           (full / "r.json").string(), "--csv", (full / "r.csv").string()}),
                       60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(count_of(r.out, "Summary: hits") == 2);  // the text report is whole
  CHECK(r.err.find("bpfbench: error: cannot write " + (full / "r.json").string() + ": No space left on device") !=
        std::string::npos);
  CHECK(r.err.find("bpfbench: error: cannot write " + (full / "r.csv").string() + ": No space left on device") !=
        std::string::npos);
  CHECK(count_of(r.err, "error:") == 2);  // once per file, not once per point
  CHECK_FALSE(has_exception_text(r.err));
  // The files from before are untouched, no temporary file is left.
  CHECK(read_text(dir.path / "full.json") == old_json);
  CHECK(read_text(dir.path / "full.csv") == old_csv);
  CHECK(read_text(dir.path / "full.ls") == "filler\nr.csv\nr.json\n");
}

TEST_CASE("without privileges: one clear message naming the capability, exit 2, front-end commands work",
          "[runtime][faults][privileges]") {
  BB_REQUIRE_ROOT();
  TestUser user = test_user();
  REQUIRE(user.ok);
  TempDir dir;
  fs::path bdsl = dir.write("t.bdsl", "bench trigger < prog rawtp; duration 1s >\n");
  fs::path cache = dir.path / "cache";
  fs::create_directories(cache);
  REQUIRE(chown(cache.c_str(), user.uid, user.gid) == 0);
  const std::string xdg = "XDG_CACHE_HOME=" + cache.string();
  fs::path json = dir.path / "r.json";

  auto r = run_process(as_user(user, {kBin, "run", bdsl.string(), "--json", json.string()}), 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "bpfbench: error: bpfbench needs root or CAP_BPF and CAP_PERFMON (missing: CAP_BPF, CAP_PERFMON)\n");
  CHECK_FALSE(fs::exists(json));

  // With CAP_BPF only, the message names what is still missing.
  auto half = run_process(as_user(user, {kBin, "run", bdsl.string()}, {}, "+bpf"), 60);
  INFO(half.err);
  CHECK(half.exit_code == 2);
  CHECK(half.err == "bpfbench: error: bpfbench needs root or CAP_BPF and CAP_PERFMON (missing: CAP_PERFMON)\n");

  auto probe = run_process(as_user(user, {kBin, "probe"}), 60);
  CHECK(probe.exit_code == 2);
  CHECK(probe.err.find("missing: CAP_BPF, CAP_PERFMON") != std::string::npos);

  // The commands that never touch the kernel work without privileges.
  for (std::vector<std::string> cmd : {std::vector<std::string>{"check", bdsl.string()},
                                       {"check", "--compile", bdsl.string()},
                                       {"plan", bdsl.string()},
                                       {"plan", "--json", bdsl.string()},
                                       {"emit", bdsl.string()},
                                       {"list"}}) {
    cmd.insert(cmd.begin(), kBin);
    auto c = run_process(as_user(user, cmd, {xdg}), 60);
    INFO(cmd[1] << " " << cmd.back() << ": " << c.err);
    CHECK(c.exit_code == 0);
    CHECK(c.err.find("error") == std::string::npos);
    CHECK(c.err.find("warning") == std::string::npos);
    CHECK_FALSE(c.out.empty());
  }
}

TEST_CASE("points too large for this machine are refused at check time, --allow-large lets them through",
          "[faults][limits]") {
  TempDir dir;
  // 1000 preallocated hash maps of 4M entries: at least 250 GiB.
  fs::path bdsl = dir.write("big.bdsl", "bench local_storage < prog hashmap;\n  nr_maps 1000; >\n");
  for (const char *cmd : {"check", "plan", "emit"}) {
    auto r = run_process({kBin, cmd, bdsl.string()}, 60);
    INFO(cmd << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_of(r.err, "error:") == 1);
    CHECK(r.err.find(bdsl.string() + ":2:11-14: error: point 'local_storage' needs at least 250.0 GiB for "
                                     "4194304000 map entries: more than 3/4 of this machine's available memory") !=
          std::string::npos);
    CHECK(r.err.find("hint: pass --allow-large to run it anyway") != std::string::npos);
  }
  auto ok = run_process({kBin, "check", "--allow-large", bdsl.string()}, 60);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  // The shipped studies fit: the seeds' 15000 tasks and 4M-entry maps are not refused.
  for (const char *ex : {"rcu_tasks_trace", "local_storage"}) {
    auto r = run_process({kBin, "check", std::string(BPFBENCH_SOURCE_DIR) + "/examples/" + ex + ".bdsl"}, 60);
    INFO(ex << ": " << r.err);
    CHECK(r.exit_code == 0);
  }
}
