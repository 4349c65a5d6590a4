// `bpfbench run` end to end (root + real kernel): output, signals, failures (more in test_faults.cpp).
#include <catch2/catch.hpp>

#include <bpf/bpf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "test_paths.hpp"
#include "run_process.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using bpfbench::test::run_process;
using Catch::Detail::Approx;

namespace {

using bpfbench::test::kBin;
using bpfbench::test::kSrc;

std::set<uint32_t> live_prog_ids() {
  std::set<uint32_t> ids;
  uint32_t id = 0;
  while (bpf_prog_get_next_id(id, &id) == 0) ids.insert(id);
  return ids;
}

std::set<uint32_t> live_link_ids() {
  std::set<uint32_t> ids;
  uint32_t id = 0;
  while (bpf_link_get_next_id(id, &id) == 0) ids.insert(id);
  return ids;
}

// The kernel frees programs after an RCU grace period: wait briefly for them to go.
bool returns_to(const std::set<uint32_t> &before, std::set<uint32_t> (*now)()) {
  for (int i = 0; i < 50; ++i) {
    auto cur = now();
    bool extra = false;
    for (auto id : cur) extra |= !before.count(id);
    if (!extra) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

struct RunBdsl {
  fs::path path;
  explicit RunBdsl(const std::string &text) {
    char tmpl[] = "/tmp/bpfbench-run-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    path = fs::path(tmpl) / "t.bdsl";
    std::ofstream(path) << text;
    fs::permissions(tmpl, fs::perms::all);
    fs::permissions(path, fs::perms::all);
  }
  ~RunBdsl() { fs::remove_all(path.parent_path()); }
};

// Runs bpfbench with `args` (stdout captured, stderr dropped), sends SIGINT after
// `delay_ms`, reaps it. `stop_s`: from the signal to the exit.
struct Interrupted {
  int status = 0;
  double stop_s = 0;
  std::string out;
};
Interrupted run_and_interrupt(const std::vector<std::string> &args, int delay_ms) {
  std::vector<char *> argv{const_cast<char *>(kBin.c_str())};
  for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  int out[2];
  REQUIRE(pipe(out) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    execv(kBin.c_str(), argv.data());
    _exit(127);
  }
  close(out[1]);
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  Interrupted r;
  auto t0 = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  waitpid(pid, &r.status, 0);
  r.stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<size_t>(n));
  close(out[0]);
  return r;
}

}  // namespace

TEST_CASE("run prints the kernel bench's lines and a suite table", "[runtime][cli]") {
  BB_REQUIRE_ROOT();
  RunBdsl f("suite \"S\" < bench trigger as \"{prog}\" < prog [base, rawtp]; warmup 1s; duration 2s > >\n");
  auto r = run_process({kBin, "run", f.path.string()}, 60);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::regex iter(
      R"(Iter +\d+ \( *-?\d+\.\d{3}us\): hits +\d+\.\d{3}M/s \( *\d+\.\d{3}M/prod\)\n)");
  std::regex summary(R"(Summary: hits +(\d+\.\d{3}) ± +\d+\.\d{3}M/s)");
  auto iters = std::distance(std::sregex_iterator(r.out.begin(), r.out.end(), iter), std::sregex_iterator());
  CHECK(iters == 6);  // 2 points x (1 warmup + 2 measured)
  std::smatch m;
  std::string rest = r.out;
  int summaries = 0;
  while (std::regex_search(rest, m, summary)) {
    CHECK(std::stod(m[1]) > 0);
    ++summaries;
    rest = m.suffix();
  }
  CHECK(summaries == 2);
  CHECK(r.out.find("==== S ====") != std::string::npos);
  CHECK(std::regex_search(r.out, std::regex(R"(\nrawtp +: +\d+\.\d{3} ± +\d+\.\d{3}M/s)")));
}

TEST_CASE("SIGINT mid-run: prompt exit 130, partial results printed, nothing left in the kernel",
          "[runtime][cli][signals]") {
  BB_REQUIRE_ROOT();
  RunBdsl f("bench trigger as \"{prog}\" < prog [rawtp, tp]; warmup 0s; duration 30s >\n");
  auto progs_before = live_prog_ids();
  auto links_before = live_link_ids();
  Interrupted r = run_and_interrupt({"run", f.path.string()}, 3500);  // compile + 2-3 samples
  const std::string &text = r.out;
  INFO(text);
  REQUIRE(WIFEXITED(r.status));
  CHECK(WEXITSTATUS(r.status) == 130);
  CHECK(r.stop_s < 2.0);
  CHECK(text.find("Summary: hits") != std::string::npos);           // what was measured is kept
  CHECK(text.find("Benchmark 'tp' started") == std::string::npos);  // no further points
  CHECK(returns_to(progs_before, live_prog_ids));
  CHECK(returns_to(links_before, live_link_ids));
}

TEST_CASE("a verifier rejection names the bench and its .bdsl location, with the log, exit 2", "[runtime][cli]") {
  BB_REQUIRE_ROOT();
  RunBdsl f("# a family made to fail the verifier\nbench verifier_reject as \"rej\" < warmup 0s; duration 1s >\n");
  auto r = run_process({"/usr/bin/env", "-C", f.path.parent_path().string(), kBin, "run", "--templates",
                        kSrc + "/tests/fixtures/families", f.path.string()},
                       60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(f.path.string() + ":2:1: error: bench 'rej': the verifier refused program 'bench_reject': ") !=
        std::string::npos);
  // The instruction it stopped at, in the template, and its source line, which names the access.
  CHECK(r.err.find(kSrc + "/tests/fixtures/families/verifier_reject/prog.bpf.c:") != std::string::npos);
  CHECK(r.err.find("__sync_fetch_and_add(&bb_hits[cpu * 4096].value, 1);") != std::string::npos);
  CHECK(r.err.find("bpfbench-verifier-logs/rej.bench_reject.log") != std::string::npos);
}

// The rounds' order, results file and statistics: test_session_run.cpp; here, how they read.
TEST_CASE("run --rounds: a banner per round, the summary over rounds, the suite table once at the end",
          "[runtime][cli][rounds]") {
  BB_REQUIRE_ROOT();
  RunBdsl f("suite \"S\" < bench trigger as \"{prog}\" < prog [base, rawtp]; warmup 0s; duration 1s > >\n");
  auto r = run_process({kBin, "run", f.path.string(), "--rounds", "3", "--interval", "250ms"}, 90);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Round-robin: base, rawtp, base, rawtp, base, rawtp.
  std::regex banner(R"(Setting up benchmark '(\w+)' \(round (\d)\))");
  std::vector<std::string> order;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), banner); it != std::sregex_iterator(); ++it)
    order.push_back((*it)[1].str() + (*it)[2].str());
  CHECK(order == std::vector<std::string>{"base1", "rawtp1", "base2", "rawtp2", "base3", "rawtp3"});
  CHECK(std::regex_search(
      r.out,
      std::regex(
          R"(rawtp +: Summary: hits +\d+\.\d{3} .*\[3 rounds, 12 samples, hits CI ±\d+\.\d{2}% over rounds\])")));
  size_t table = r.out.find("==== S ====");
  CHECK(table != std::string::npos);
  CHECK(r.out.find("==== S ====", table + 1) == std::string::npos);  // once, at the end
  CHECK(r.out.find("Setting up", table) == std::string::npos);
}

TEST_CASE("SIGINT between rounds keeps the rounds measured, in the text and the JSON",
          "[runtime][cli][rounds][signals]") {
  BB_REQUIRE_ROOT();
  RunBdsl f("bench trigger as \"base\" < prog base; warmup 0s; duration 1s >\n");
  std::string json = (f.path.parent_path() / "r.json").string();
  Interrupted r = run_and_interrupt({"run", f.path.string(), "--rounds", "20", "--json", json}, 3500);
  const std::string &text = r.out;
  INFO(text);
  REQUIRE(WIFEXITED(r.status));
  CHECK(WEXITSTATUS(r.status) == 130);
  std::smatch m;
  REQUIRE(std::regex_search(text, m,
                            std::regex(R"(base +: Summary: hits .*\[(\d+) rounds?, (\d+) samples.*\(interrupted\))")));
  int rounds = std::stoi(m[1]);
  CHECK(rounds >= 1);
  CHECK(rounds < 20);
  std::ifstream in(json);
  auto j = nlohmann::json::parse(in);
  CHECK(j["complete"] == false);
  CHECK(j["interrupted"] == true);
  REQUIRE(j["points"].size() == 1);
  CHECK(j["points"][0]["rounds"].get<int>() == rounds);                               // the same rounds as the text
  CHECK(j["points"][0]["samples"].size() == j["points"][0]["rounds"].get<size_t>());  // 1 s rounds of 1 s samples
}
