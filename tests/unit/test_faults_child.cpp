// Fault tests of the compile child and of how a run ends (root + real kernel for `run`):
// a signal during a slow compile, a macro bomb, SIGHUP, a closed stdout pipe, a signal
// right after start, a SIGINT while 1024 producers start, a thread limit.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
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

double secs_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// 2^30 copies of `1+` in inline code: an initializer whose AST grows without bound.
std::string bomb_bdsl() {
  std::string s = "bench trigger as \"bomb\" < prog tp;\n  code globals {\n#define A0 1+\n";
  for (int i = 1; i <= 30; ++i)
    s += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" + std::to_string(i - 1) + "\n";
  return s + "int bb_v = A30 1;\n  }\n>\n";
}

// `bpfbench ARGS` with stdout on `out_fd` (-1: a file), stderr to a file, stdin /dev/null,
// a fresh cache, and `as_limit` as its RLIMIT_AS (0 = none).
struct Run {
  pid_t pid = -1;
  Clock::time_point started;
  fs::path err;
};

Run start(const TempDir &dir, const std::vector<std::string> &args, int out_fd = -1, rlim_t as_limit = 0) {
  Run r;
  r.err = dir.path / "err";
  fs::create_directories(dir.path / "cache");
  r.started = Clock::now();
  r.pid = fork();
  if (r.pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(s, SIG_DFL);
    int in = open("/dev/null", O_RDONLY);
    int o = out_fd >= 0 ? out_fd : open((dir.path / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(r.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    close_range(3, ~0U, 0);  // e.g. the read end of the stdout pipe: the reader is the test
    setenv("XDG_CACHE_HOME", (dir.path / "cache").c_str(), 1);
    if (as_limit) {
      rlimit rl{as_limit, as_limit};
      setrlimit(RLIMIT_AS, &rl);
    }
    std::vector<char *> argv{const_cast<char *>(kBin.c_str())};
    for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return r;
}

// Waits up to `limit` s (then SIGKILL); the wait status.
int finish(pid_t pid, double limit, double &took) {
  auto t0 = Clock::now();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (secs_since(t0) > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  took = secs_since(t0);
  return status;
}

size_t threads_of(pid_t pid) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

nlohmann::json results(const fs::path &p) { return nlohmann::json::parse(read_text(p), nullptr, false); }

}  // namespace

// SIGTERM/SIGINT while clang expands a macro bomb: exit 143/130 at once (before the compile
// had no limit: bpfbench had not exited after 60 s and the child outlived it), the compile
// child killed and reaped, for every command that compiles.
TEST_CASE("a signal during a slow compile ends every command that compiles with 128 + the signal",
          "[runtime][faults][child]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("bomb.bdsl", bomb_bdsl());
  const std::vector<std::vector<std::string>> commands = {{"check", "--compile", bdsl.string()},
                                                          {"plan", "--facts", bdsl.string()},
                                                          {"ab", bdsl.string(), "--a", "warmup=1s", "--b", "warmup=2s"},
                                                          {"run", bdsl.string()}};
  for (const auto &args : commands)
    for (int sig : {SIGTERM, SIGINT}) {
      INFO(args[0] << " " << args[1] << ", signal " << sig);
      Subreaper reaper;
      Run r = start(dir, args);
      pid_t compile_child = 0;
      while (!compile_child && secs_since(r.started) < 20) {
        if (auto kids = children_of(r.pid); !kids.empty()) compile_child = kids[0];
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      REQUIRE(compile_child > 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // clang is busy expanding
      kill(r.pid, sig);
      double took = 0;
      int status = finish(r.pid, 10, took);
      std::string err = read_text(r.err);
      INFO(err);
      CHECK(took < 1.0);
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 128 + sig);
      CHECK(err.find(args[0] == "run" ? "bpfbench: interrupted (0 points measured)" : "bpfbench: interrupted") !=
            std::string::npos);
      CHECK(err.find("error") == std::string::npos);
      CHECK(reaper.take_orphans().empty());  // bpfbench reaped it: nothing was reparented to us
      CHECK(kill(compile_child, 0) != 0);
    }
}

TEST_CASE("a macro bomb in inline code ends at the compile's memory limit: one clear error, exit 2",
          "[faults][child][no-asan]") {
  TempDir dir;
  fs::path bdsl = dir.write("bomb.bdsl", bomb_bdsl());
  auto t0 = Clock::now();
  ProcessResult p = run_process({kBin, "check", "--compile", bdsl.string()}, 120);
  INFO(p.err << "after " << secs_since(t0) << " s");
  CHECK(p.exit_code == 2);
  CHECK(p.err.find("error: compiling the BPF program failed: the compile of trigger-0.bpf.c exceeded its memory "
                   "limit (1024 MiB of address space)\n" +
                   bdsl.string() + ":1:1: note: in the BPF program generated for 'bomb'") != std::string::npos);
  CHECK_FALSE(has_exception_text(p.err));
}

TEST_CASE("SIGHUP ends a run like SIGINT: the measured points kept, exit 129", "[runtime][faults][signals]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("hup.bdsl", "bench trigger as \"a\" < prog tp; warmup 0s; duration 1s >\n"
                                        "bench trigger as \"b\" < prog tp; warmup 0s; duration 5s >\n");
  fs::path json = dir.path / "r.json";
  Run r = start(dir, {"run", bdsl.string(), "--json", json.string()});
  // Point a is measured after ~1 s of sampling; b is running then.
  while (secs_since(r.started) < 20 && read_text(dir.path / "out").find("Benchmark 'b' started.") == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(r.pid, SIGHUP);
  double took = 0;
  int status = finish(r.pid, 10, took);
  INFO(read_text(r.err));
  CHECK(took < 1.0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 129);
  auto j = results(json);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["interrupted"] == true);
  REQUIRE(j["points"].size() == 1);
  CHECK(j["points"][0]["label"] == "a");
}

TEST_CASE("stdout piped into a reader that goes away: a stop, the results written, exit 141",
          "[runtime][faults][signals]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("pipe.bdsl", "bench trigger as \"a\" < prog tp; warmup 0s; duration 1s >\n"
                                         "bench trigger as \"b\" < prog tp; warmup 0s; duration 3s >\n");
  fs::path json = dir.path / "r.json";
  int p[2];
  REQUIRE(pipe(p) == 0);
  Run r = start(dir, {"run", bdsl.string(), "--json", json.string()}, p[1]);
  close(p[1]);
  // Like `| head -c 1`: read a little, then close the pipe while bpfbench still prints.
  char c = 0;
  REQUIRE(read(p[0], &c, 1) == 1);
  close(p[0]);
  double took = 0;
  int status = finish(r.pid, 20, took);
  std::string err = read_text(r.err);
  INFO(err);
  REQUIRE(WIFEXITED(status));  // not killed by SIGPIPE
  CHECK(WEXITSTATUS(status) == 141);
  CHECK(err.find("bpfbench: interrupted (") != std::string::npos);
  CHECK_FALSE(has_exception_text(err));
  auto j = results(json);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["interrupted"] == true);
  CHECK(j["complete"] == false);
}

TEST_CASE("stop signals are held before any library constructor runs", "[faults][signals]") {
  // The dynamic loader names the executable's preinit hook before it calls the init of
  // libLLVM (whose constructors take tens of ms).
  ProcessResult p = run_process({"/usr/bin/env", "LD_DEBUG=libs", kBin, "--version"});
  size_t preinit = p.err.find("calling preinit: "),
         llvm_init = p.err.find("calling init: /usr/lib/llvm-19/lib/libLLVM");
  INFO(p.err.substr(0, 2000));
  REQUIRE(llvm_init != std::string::npos);
  CHECK(preinit < llvm_init);
}

TEST_CASE("a SIGINT as soon as bpfbench blocks signals is not lost: exit 130, results written",
          "[runtime][faults][signals]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl = dir.write("early.bdsl", "bench trigger as \"a\" < prog tp; warmup 0s; duration 1s >\n");
  fs::path json = dir.path / "r.json";
  Run r = start(dir, {"run", bdsl.string(), "--json", json.string()});
  // SigBlk in /proc/<pid>/status: SIGINT is bit 1.
  const std::string status_path = "/proc/" + std::to_string(r.pid) + "/status";
  bool blocked = false;
  while (!blocked && secs_since(r.started) < 5) {
    std::string st = read_text(status_path);
    if (size_t at = st.find("SigBlk:\t"); at != std::string::npos && st.find("bpfbench") != std::string::npos)
      blocked = (std::stoull(st.substr(at + 8, 16), nullptr, 16) >> (SIGINT - 1)) & 1;
  }
  REQUIRE(blocked);
  double at_ms = secs_since(r.started) * 1000;
  kill(r.pid, SIGINT);
  double took = 0;
  int status = finish(r.pid, 20, took);
  INFO("SIGINT " << at_ms << " ms after fork\n" << read_text(r.err));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(read_text(r.err).find("bpfbench: interrupted (0 points measured)") != std::string::npos);
  auto j = results(json);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["interrupted"] == true);
}

TEST_CASE("a SIGINT while 1024 uprobe producers start stops within a second",
          "[runtime][faults][signals][no-asan][deadline]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl =
      dir.write("up.bdsl", "bench uprobes as \"many\" < prog uprobe-nop; producers 1024; warmup 0s; duration 5s >\n");
  Run r = start(dir, {"run", bdsl.string()});
  while (threads_of(r.pid) < 100 && secs_since(r.started) < 30)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  size_t started = threads_of(r.pid);
  REQUIRE(started >= 100);
  kill(r.pid, SIGINT);
  double took = 0;
  int status = finish(r.pid, 30, took);
  INFO(started << " threads at SIGINT, exit after " << took << " s\n" << read_text(r.err));
  CHECK(took < 1.5);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
}

TEST_CASE("an address-space limit too low for 1024 producer threads: a clear message, exit 2",
          "[runtime][faults][limits][no-asan]") {
  BB_REQUIRE_ROOT();
  TempDir dir;
  fs::path bdsl =
      dir.write("up.bdsl", "bench uprobes as \"many\" < prog uprobe-nop; producers 1024; warmup 0s; duration 1s >\n");
  // 1024 stacks of 8 MiB need 8 GiB; 3 GiB lets bpfbench start, compile and load.
  Run r = start(dir, {"run", bdsl.string()}, -1, rlim_t{3} << 30);
  double took = 0;
  int status = finish(r.pid, 60, took);
  std::string err = read_text(r.err);
  INFO(err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(err.find("error: bench 'many' failed: cannot create the thread of producer ") != std::string::npos);
  CHECK(err.find(" of 1024: Resource temporarily unavailable (raise the address-space limit (RLIMIT_AS, "
                 "`ulimit -v`, now 3.0 GiB))") != std::string::npos);
  CHECK_FALSE(has_exception_text(err));
}

TEST_CASE("a process limit too low for 64 producer threads: the thread and RLIMIT_NPROC named, exit 2",
          "[runtime][faults][limits]") {
  BB_REQUIRE_ROOT();
  TestUser u = test_user();
  REQUIRE(u.ok);
  TempDir dir;
  fs::path bdsl =
      dir.write("n.bdsl", "bench trigger as \"many\" < prog rawtp; producers 64; warmup 0s; duration 1s >\n");
  // Root is exempt from RLIMIT_NPROC: an unprivileged user with CAP_BPF and CAP_PERFMON.
  std::vector<std::string> argv = {"/usr/bin/prlimit", "--nproc=30", "--"};
  for (const auto &a :
       as_user(u, {kBin, "run", bdsl.string()}, {"XDG_CACHE_HOME=" + (dir.path / "cache").string()}, "+bpf,+perfmon"))
    argv.push_back(a);
  ProcessResult p = run_process(argv, 60);
  INFO(p.err);
  CHECK(p.exit_code == 2);
  CHECK(p.err.find("error: bench 'many' failed: cannot create the thread of producer ") != std::string::npos);
  CHECK(p.err.find(" of 64: Resource temporarily unavailable (raise the process limit (RLIMIT_NPROC, `ulimit -u`, "
                   "now 30))") != std::string::npos);
  CHECK_FALSE(has_exception_text(p.err));
}
