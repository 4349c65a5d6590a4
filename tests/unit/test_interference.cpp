// What runs beside a point (results/interference.hpp): the arithmetic over two synthetic
// process snapshots, the one-line note, the JSON and its reading, compare's noisy mark and
// ab's per-turn note (no root); then for real (root + BPF): a program not ours on the
// point's tracepoint, and a busy process and a second bpfbench beside `bpfbench run`.
#include <catch2/catch.hpp>

#include <bpf/bpf.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "metric_support.hpp"
#include "point_runner.hpp"
#include "results/ab_report.hpp"
#include "results/compare.hpp"
#include "results/results.hpp"
#include "run_process.hpp"
#include "runtime/foreign_links.hpp"
#include "runtime/process_watch.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "result_support.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

ThreadSnap thread(uint64_t ticks, int cpu, int pinned = -1, uint64_t start = 5) { return {ticks, start, cpu, pinned}; }

ProcSnap proc(const char *comm, pid_t ppid, uint64_t ticks, std::map<pid_t, ThreadSnap> threads, uint64_t start = 5,
              bool bpfbench = false, bool kthread = false) {
  ProcSnap p;
  p.comm = comm;
  p.ppid = ppid;
  p.ticks = ticks;
  p.start_ticks = start;
  p.threads = std::move(threads);
  p.bpfbench = bpfbench;
  p.kthread = kthread;
  return p;
}

const OtherProcess *find_pid(const std::vector<OtherProcess> &v, int pid) {
  for (const auto &p : v)
    if (p.pid == pid) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("interference: a /proc stat line whose comm holds spaces and parentheses", "[interference]") {
  std::vector<std::string> f(53, "0");
  f[3] = "R";
  f[4] = "17";
  f[9] = "4194560";
  f[14] = "150";
  f[15] = "50";
  f[22] = "98765";
  f[39] = "1";
  std::string line = "4242 (a b) c)) " + f[3];
  for (size_t i = 4; i < f.size(); ++i) line += " " + f[i];
  auto s = parse_stat_line(line + "\n");
  REQUIRE(s);
  CHECK(s->comm == "a b) c)");
  CHECK(s->ppid == 17);
  CHECK(s->ticks == 200);
  CHECK(s->start_ticks == 98765);
  CHECK(s->cpu == 1);
  CHECK_FALSE(parse_stat_line("4242 (x) R 1 2 3"));
  CHECK_FALSE(parse_stat_line(""));
}

TEST_CASE("interference: other processes' time per measured CPU, our family and kernel threads left out",
          "[interference]") {
  ProcSnapshot before, after;
  before.now_ticks = 1000;
  after.now_ticks = 1100;  // 100 ticks: a share in ticks is a share in %
  const pid_t self = 100;
  before.procs[1] = proc("init", 0, 0, {{1, thread(0, 0)}});
  after.procs[1] = proc("init", 0, 50, {{1, thread(50, 0)}});  // an ancestor
  before.procs[self] = proc("bpfbench", 1, 0, {{self, thread(0, 0)}}, 5, true);
  after.procs[self] = proc("bpfbench", 1, 99, {{self, thread(99, 0)}}, 5, true);
  after.procs[101] = proc("bpfbench", self, 80, {{101, thread(80, 0)}}, 1010, true);  // our child
  // Another bpfbench: two threads, one pinned to CPU 0, one that last ran there.
  before.procs[200] = proc("bpfbench", 50, 10, {{200, thread(10, 1)}, {201, thread(0, 1, 0)}}, 5, true);
  after.procs[200] = proc("bpfbench", 50, 100, {{200, thread(60, 0)}, {201, thread(40, 1, 0)}}, 5, true);
  // A process pinned to CPU 1; a kernel thread on CPU 0; a small one on CPU 0.
  before.procs[300] = proc("stress", 50, 0, {{300, thread(0, 1, 1)}});
  after.procs[300] = proc("stress", 50, 87, {{300, thread(87, 1, 1)}});
  before.procs[2] = proc("kworker/0:1", 0, 0, {}, 1, false, true);
  after.procs[2] = proc("kworker/0:1", 0, 100, {}, 1, false, true);
  before.procs[500] = proc("light", 50, 0, {{500, thread(0, 0)}});
  after.procs[500] = proc("light", 50, 3, {{500, thread(3, 0)}});
  // Started after the first snapshot (all its time counts), and a pid reused by such a one.
  after.procs[400] = proc("new", 50, 5, {{400, thread(5, 1, -1, 1050)}}, 1050);
  before.procs[700] = proc("old", 50, 500, {{700, thread(500, 1)}}, 10);
  after.procs[700] = proc("reuse", 50, 2, {{700, thread(2, 1, -1, 1060)}}, 1060);
  // A bpfbench that ended meanwhile; a CPU nobody measures; one at exactly the threshold.
  before.procs[600] = proc("bpfbench", 50, 7, {{600, thread(7, 0)}}, 5, true);
  after.procs[800] = proc("elsewhere", 50, 90, {{800, thread(90, 2, 2)}});
  before.procs[900] = proc("tenpct", 50, 0, {{900, thread(0, 3, 3)}});
  after.procs[900] = proc("tenpct", 50, 10, {{900, thread(10, 3, 3)}});

  // A bpfbench that is exiting at the second snapshot (its exe link is gone), its main
  // thread renamed (`comm main`): the first snapshot tells.
  before.procs[250] = proc("main", 50, 0, {{250, thread(0, 2)}}, 5, true);
  after.procs[250] = proc("main", 50, 4, {{250, thread(4, 2)}}, 5, false);

  ProcessShares s = process_shares(before, after, {0, 1, 3}, self);
  REQUIRE(s.bpfbench.size() == 3);
  REQUIRE(find_pid(s.bpfbench, 250));
  CHECK(find_pid(s.bpfbench, 250)->cpu_pct == Approx(4));
  REQUIRE(find_pid(s.bpfbench, 200));
  CHECK(find_pid(s.bpfbench, 200)->cpu_pct == Approx(90));
  REQUIRE(find_pid(s.bpfbench, 600));
  CHECK(std::isnan(find_pid(s.bpfbench, 600)->cpu_pct));  // ended: how much is not known
  CHECK_FALSE(find_pid(s.bpfbench, 101));                 // our own child
  REQUIRE(s.busy_cpus.size() == 2);                       // CPU 3's 10 % is not beyond 10 %
  const BusyCpu &c0 = s.busy_cpus[0], &c1 = s.busy_cpus[1];
  CHECK(c0.cpu == 0);
  CHECK(c0.other_pct == Approx(93));  // bpfbench 200's 90 + light's 3; not init, not the kworker
  REQUIRE(c0.top.size() == 2);
  CHECK(c0.top[0].pid == 200);
  CHECK(c0.top[0].cpu_pct == Approx(90));
  CHECK(c1.cpu == 1);
  CHECK(c1.other_pct == Approx(94));  // stress 87 + new 5 + the reused pid's 2
  CHECK(c1.top[0].comm == "stress");
  CHECK(find_pid(c1.top, 700));
  CHECK(find_pid(c1.top, 700)->cpu_pct == Approx(2));
}

TEST_CASE("interference: a CPU's other share is its busy time less ours and kernel threads', a run's children "
          "are that run",
          "[interference]") {
  ProcSnapshot before, after;
  before.now_ticks = 1000;
  after.now_ticks = 1100;
  before.cpu_busy = {{0, 5000}, {1, 7000}};
  after.cpu_busy = {{0, 5095}, {1, 7030}};
  const pid_t self = 100;
  // Ours: 10 ticks on the main thread (CPU 1), 50 of a harness thread that ended (CPU 0,
  // the measured one).
  before.procs[self] = proc("bpfbench", 1, 0, {{self, thread(0, 1)}}, 5, true);
  after.procs[self] = proc("bpfbench", 1, 60, {{self, thread(10, 1)}}, 5, true);
  before.procs[2] = proc("ksoftirqd/0", 0, 0, {{2, thread(0, 0)}}, 1, false, true);
  after.procs[2] = proc("ksoftirqd/0", 0, 15, {{2, thread(15, 0)}}, 1, false, true);
  before.procs[300] = proc("make", 50, 0, {{300, thread(0, 0)}});
  after.procs[300] = proc("make", 50, 20, {{300, thread(20, 0)}});
  // Another run and its forked children (one ended meanwhile): one bpfbench, pid 400.
  before.procs[400] = proc("bpfbench", 50, 0, {{400, thread(0, 1)}}, 5, true);
  after.procs[400] = proc("bpfbench", 50, 5, {{400, thread(5, 1)}}, 5, true);
  before.procs[401] = proc("bpfbench", 400, 0, {{401, thread(0, 1)}}, 5, true);
  after.procs[401] = proc("bpfbench", 400, 7, {{401, thread(7, 1)}}, 5, true);
  before.procs[402] = proc("bpfbench", 400, 3, {{402, thread(3, 1)}}, 5, true);

  ProcessShares s = process_shares(before, after, {0}, self);
  REQUIRE(s.bpfbench.size() == 1);
  CHECK(s.bpfbench[0].pid == 400);
  CHECK(s.bpfbench[0].cpu_pct == Approx(12));
  REQUIRE(s.busy_cpus.size() == 1);
  CHECK(s.busy_cpus[0].cpu == 0);
  CHECK(s.busy_cpus[0].other_pct == Approx(30));  // 95 busy - 50 ours - 15 ksoftirqd
  REQUIRE(s.busy_cpus[0].top.size() == 1);
  CHECK(s.busy_cpus[0].top[0].comm == "make");
  // Without /proc/stat's line for the CPU: the other processes' ticks placed there (20).
  after.cpu_busy.clear();
  s = process_shares(before, after, {0}, self);
  REQUIRE(s.busy_cpus.size() == 1);
  CHECK(s.busy_cpus[0].other_pct == Approx(20));
}

TEST_CASE("interference: the note, merging rounds, JSON, compare's noisy mark and ab's turn note",
          "[interference][compare]") {
  Interference i;
  i.wall_s = 3;
  i.cpus = {0};
  i.hooks = {"tracepoint sys_enter"};
  i.bpfbench = {{1234, "bpfbench", 97.4}};
  i.busy_cpus = {{0, 87.2, {{1234, "bpfbench", 85.0}, {77, "stress", 2.2}}}};
  i.programs = {{"tracepoint sys_enter", 41, 812, "snoop", {77}}};
  const std::string note = interference_note(i);
  CHECK(note ==
        "another bpfbench (pid 1234, 97 % of a CPU) ran during this point; other processes used 87 % of CPU 0 "
        "(bpfbench 85 %, stress 2 %); BPF program 'snoop' (id 812, pid 77) is attached to tracepoint sys_enter too");
  CHECK(interference_note(Interference{}).empty());
  CHECK_FALSE(Interference{}.found());

  Interference later;
  later.wall_s = 2;
  later.cpus = {1, 0};
  later.bpfbench = {{1234, "bpfbench", 99.0}, {99, "bpfbench", NAN}};
  later.busy_cpus = {{0, 50, {}}, {1, 30, {}}};
  later.programs = i.programs;
  Interference m = merge_interference(i, later);
  CHECK(m.wall_s == Approx(5));
  CHECK(m.cpus == std::vector<int>{0, 1});
  REQUIRE(m.bpfbench.size() == 2);
  CHECK(m.bpfbench[0].cpu_pct == Approx(99));
  REQUIRE(m.busy_cpus.size() == 2);
  CHECK(m.busy_cpus[0].other_pct == Approx(87.2));  // the busier round's share
  CHECK(m.programs.size() == 1);                    // the same link once
  CHECK(interference_note(m).find("pid 99, ended during it") != std::string::npos);

  // Written with the point, read back as its note; compare calls the point noisy.
  auto set = [&](const std::optional<Interference> &with, double mean) {
    PlanPoint p;
    p.suite = "S";
    p.family = "trigger";
    p.program = "rawtp";
    p.label = "rawtp";
    p.report = {"hits"};
    PointResult r = test::synthetic_hits(mean, 0.002, 7);
    r.interference = with;
    ResultsDoc doc;
    doc.file = "x.bdsl";
    doc.points.push_back(point_result_to_json(p, r, "sha", 11.0, 1'000'000'000));
    CHECK(doc.points[0].contains("interference") == with.has_value());
    auto rs = results_from_text(doc.to_json().dump(), "x.json");
    INFO(test::error_text(rs));
    REQUIRE(rs);
    return *rs;
  };
  ResultSet a = set(Interference{}, 2.43), b = set(i, 0.95);
  CHECK(a.points.at(0).interference.empty());
  CHECK(b.points.at(0).interference == note);
  CompareReport c = compare_results(a, b, CompareOptions{});
  REQUIRE(c.points.size() == 1);
  CHECK(c.points[0].verdict == Verdict::Noisy);  // not "slower": B shared its CPU
  CHECK(compare_to_text(c).find("during B: another bpfbench (pid 1234") != std::string::npos);
  CHECK(compare_results(a, set(std::nullopt, 0.95), CompareOptions{}).points.at(0).verdict == Verdict::Slower);

  // A file whose mark says "found" without saying what is refused, with the path.
  {
    PlanPoint p;
    p.label = "x";
    PointResult r;
    ResultsDoc doc;
    doc.file = "x.bdsl";
    doc.points.push_back(point_result_to_json(p, r, "sha", 1.0, 1'000'000'000));
    doc.points[0]["interference"] = {{"found", true}, {"note", ""}};
    std::string err = test::expect_error(results_from_text(doc.to_json().dump(), "x.json"));
    CHECK(err == "x.json: points[0].interference.note: expected what was found");
  }

  // ab: one line per turn that had any, in its text and JSON.
  AbPointReport rep;
  rep.note_interference(0, AbSide::A, Interference{});
  rep.note_interference(2, AbSide::B, i);
  REQUIRE(rep.interference.size() == 1);
  CHECK(rep.interference[0] == "turn 3 (B): " + note);
  AbReport ab;
  ab.points.push_back(rep);
  CHECK(ab_to_text(ab).find("  turn 3 (B): another bpfbench (pid 1234") != std::string::npos);
  CHECK(ab_to_json(ab)["points"][0]["interference"][0] == "turn 3 (B): " + note);
}

TEST_CASE("interference: a raw sys_enter program is on a syscall tracepoint's way", "[interference]") {
  CHECK(hooks_overlap("tracepoint sys_enter", "tracepoint sys_enter"));
  CHECK(hooks_overlap("tracepoint sys_enter_getpgid", "tracepoint sys_enter"));
  CHECK(hooks_overlap("tracepoint sys_exit_getpgid", "tracepoint sys_exit"));
  CHECK_FALSE(hooks_overlap("tracepoint sys_enter", "tracepoint sys_enter_getpgid"));
  CHECK_FALSE(hooks_overlap("tracepoint sys_enter_getpgid", "tracepoint sys_exit"));
  CHECK_FALSE(hooks_overlap("kprobe f", "kprobe g"));
  CHECK_FALSE(hooks_overlap("", ""));
}

namespace {

// A raw_tp program on sys_enter, loaded and attached here and then held only by a child
// (so the link is in no fd of this process): another tool's program on that hook.
struct ForeignRawTp {
  pid_t holder = -1;
  ForeignRawTp() {
    bpf_insn insns[2] = {};
    insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;  // r0 = 0
    insns[0].dst_reg = BPF_REG_0;
    insns[1].code = BPF_JMP | BPF_EXIT;
    int prog = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "bb_foreign_tp", "GPL", insns, 2, nullptr);
    REQUIRE(prog >= 0);
    int link = bpf_raw_tracepoint_open("sys_enter", prog);
    REQUIRE(link >= 0);
    int ready[2];
    REQUIRE(pipe(ready) == 0);
    const pid_t parent = getpid();
    holder = fork();
    if (holder == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      (void)!write(ready[1], "x", 1);
      for (;;) pause();
    }
    close(ready[1]);
    char c;
    (void)!read(ready[0], &c, 1);
    close(ready[0]);
    close(link);
    close(prog);
  }
  ~ForeignRawTp() {
    kill(holder, SIGKILL);
    waitpid(holder, nullptr, 0);
  }
};

}  // namespace

TEST_CASE("interference: a program not ours on the point's tracepoint is named with its process",
          "[runtime][interference]") {
  BB_REQUIRE_ROOT();
  ForeignRawTp foreign;
  test::PointRunner r;
  // rawtp attaches to sys_enter itself; tp to sys_enter_getpgid, which sys_enter feeds.
  for (auto [prog, hook] :
       {std::pair{"rawtp", "tracepoint sys_enter"}, std::pair{"tp", "tracepoint sys_enter_getpgid"}}) {
    INFO(prog);
    PointResult res = r.run(r.point("trigger", prog));
    REQUIRE(res.status == PointResult::Status::Ok);
    REQUIRE(res.interference);
    const Interference &i = *res.interference;
    CHECK(std::find(i.hooks.begin(), i.hooks.end(), hook) != i.hooks.end());
    const ForeignProgram *found = nullptr;
    for (const auto &p : i.programs)
      if (p.name == "bb_foreign_tp") found = &p;
    REQUIRE(found);
    CHECK(found->hook == "tracepoint sys_enter");
    CHECK(found->pids == std::vector<int>{foreign.holder});
    CHECK(interference_note(i).find("BPF program 'bb_foreign_tp' (id " + std::to_string(found->prog_id) + ", pid " +
                                    std::to_string(foreign.holder) + ") is attached to tracepoint sys_enter too") !=
          std::string::npos);
    // Our own program's link is not foreign (another run on the machine may hold a
    // bench_rawtp of its own: only this process's is ours).
    for (const auto &p : i.programs) CHECK(std::find(p.pids.begin(), p.pids.end(), getpid()) == p.pids.end());
  }
}

namespace {

// `bpfbench args...` started with stdout and stderr in files.
pid_t start_bpfbench(const std::vector<std::string> &args, const std::string &out, const std::string &err) {
  std::vector<std::string> argv = {test::kBin};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (o < 0 || e < 0 || in < 0) _exit(126);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char *> v;
    for (auto &a : argv) v.push_back(a.data());
    v.push_back(nullptr);
    execv(v[0], v.data());
    _exit(127);
  }
  return pid;
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("interference: two runs at once and a busy process on their CPU are named, in text and JSON",
          "[runtime][interference]") {
  BB_REQUIRE_ROOT();
  test::TempDir t;
  const std::string bdsl = t.write("t.bdsl", "bench trigger as \"t\" < prog base; warmup 0; duration 2s; "
                                             "prod_affinity \"0\"; >\n");
  // Pinned to CPU 0, the producers' CPU, spinning until killed.
  const pid_t parent = getpid();
  pid_t busy = fork();
  if (busy == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    prctl(PR_SET_NAME, "bb_busy");
    // Above the machine's other load (a shared test machine builds beside the tests), so
    // it is among the three named on CPU 0.
    setpriority(PRIO_PROCESS, 0, -5);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    sched_setaffinity(0, sizeof set, &set);
    for (;;) asm volatile("" ::: "memory");
  }
  REQUIRE(busy > 0);
  pid_t runs[2];
  for (int k = 0; k < 2; ++k) {
    const std::string base = (t.path / std::to_string(k)).string();
    runs[k] =
        start_bpfbench({"run", bdsl, "--calibration", "off", "--json", base + ".json"}, base + ".out", base + ".err");
  }
  int status[2];
  for (int k = 0; k < 2; ++k) waitpid(runs[k], &status[k], 0);
  kill(busy, SIGKILL);
  waitpid(busy, nullptr, 0);
  for (int k = 0; k < 2; ++k) {
    const std::string base = (t.path / std::to_string(k)).string(), other = std::to_string(runs[1 - k]);
    const std::string err = slurp(base + ".err");
    INFO("run " << k << " (pid " << runs[k] << ", the other " << other << ") stderr:\n" << err);
    CHECK(WIFEXITED(status[k]));
    CHECK(WEXITSTATUS(status[k]) == 0);
    // One line: `bpfbench: warning: t: another bpfbench (pid N, ...) ran during this point; ...`
    // (other bpfbench processes on the machine may be named too).
    const size_t warned = err.find("bpfbench: warning: t: ");
    REQUIRE(warned != std::string::npos);
    CHECK(err.find("pid " + other + ",", warned) != std::string::npos);
    CHECK(err.find("of CPU 0") != std::string::npos);
    auto j = nlohmann::json::parse(slurp(base + ".json"), nullptr, false);
    REQUIRE(j.is_object());
    const auto &in = j["points"][0]["interference"];
    INFO(in.dump(2));
    CHECK(in["found"] == true);
    bool named = false, busy_named = false;
    for (const auto &p : in["bpfbench"]) named |= p["pid"] == runs[1 - k];
    for (const auto &c : in["busy_cpus"])
      if (c["cpu"] == 0)
        for (const auto &p : c["top"]) busy_named |= p["pid"] == busy && p["comm"] == "bb_busy";
    CHECK(named);
    CHECK(busy_named);
  }
}
