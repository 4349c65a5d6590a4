// Runtime tests (root + BPF) of the trigger kinds the kernel bench's later benches need:
// user-space-only counting (count_global, count_local), the rename producer, uprobe.multi
// links, the nop5 target, USDT probes and the kprobe.multi-all load; each point is short (two 250 ms intervals).
#include <catch2/catch.hpp>

#include <sys/prctl.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include <thread>

#include "run_process.hpp"
#include "runtime/kprobe_multi_all.hpp"
#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "runtime/user_producers.hpp"
#include "point_runner.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

using Runner = test::PointRunner;

std::string own_comm() {
  std::ifstream f("/proc/self/comm");
  std::string s;
  std::getline(f, s);
  return s;
}

// A point that runs must count, and a self-check the family has for it must hold; a
// point this kernel cannot run must say which feature is missing.
void check_point_runs_or_skips(Runner &run, const PlanPoint &p, const char *check = nullptr) {
  PointResult r = run.run(p);
  INFO(p.family << "/" << p.program << ": " << to_string(r.status) << " " << r.reason);
  if (!run.supported(p.family, p.program)) {
    REQUIRE(r.status == PointResult::Status::Skipped);
    CHECK(r.reason.find(" not supported by this kernel (") != std::string::npos);
    CHECK(r.samples.empty());
    return;
  }
  REQUIRE(r.status == PointResult::Status::Ok);
  REQUIRE(r.samples.size() == 2);
  for (const auto &s : r.samples) CHECK(s.deltas.at("hits") > 0);
  if (!check) return;
  REQUIRE(r.self_checks.size() == 1);
  INFO(r.self_checks[0].detail);
  CHECK(r.self_checks[0].name == check);
  CHECK(r.self_checks[0].ok);
  CHECK(r.self_checks[0].observed > 0);
}

void check_runs_or_skips(Runner &run, const std::string &family, const std::string &prog, const char *check = nullptr) {
  check_point_runs_or_skips(run, run.point(family, prog), check);
}

}  // namespace

TEST_CASE("count: global and local counting run with two producers", "[runtime][count]") {
  BB_REQUIRE_ROOT();
  Runner run;
  REQUIRE_FALSE(run.fams.diags.has_errors());
  for (const char *prog : {"global", "local"}) {
    DYNAMIC_SECTION(prog) {
      PlanPoint p = run.point("count", prog);
      p.producers = 2;
      PointResult r = run.run(p);
      INFO(to_string(r.status) << " " << r.reason);
      REQUIRE(r.status == PointResult::Status::Ok);
      REQUIRE(r.samples.size() == 2);
      for (const auto &s : r.samples) {
        CHECK(s.deltas.at("hits") > 0);
        // count_global publishes per batch of kCountBatch increments (off the shared line).
        if (std::string(prog) == "global") CHECK(s.deltas.at("hits") % kCountBatch == 0);
      }
    }
  }
}

TEST_CASE("rename: rawtp counts every rename and the names stay", "[runtime][rename]") {
  BB_REQUIRE_ROOT();
  Runner run;
  REQUIRE_FALSE(run.fams.diags.has_errors());
  const std::string before = own_comm();
  check_runs_or_skips(run, "rename", "base");
  check_runs_or_skips(run, "rename", "rawtp", "runs_vs_renames");
  for (const char *prog : {"kprobe", "kretprobe", "fentry", "fexit"}) check_runs_or_skips(run, "rename", prog);
  // The producer writes the names the tasks have: nothing is renamed for good.
  CHECK(own_comm() == before);
}

// comm main writes the main thread's name (the kernel bench's way), comm own the producer
// thread's. Each writes the name its task had when the producer started, so a name set
// while it runs is undone in the task it writes and stays in the other.
TEST_CASE("rename: comm main renames the main thread, comm own the producer's thread", "[rename]") {
  const std::string before = own_comm();
  for (bool main : {true, false}) {
    DYNAMIC_SECTION((main ? "main" : "own")) {
      ProducerConfig cfg;
      cfg.kind = ProducerKind::Rename;
      cfg.rename_main = main;
      auto producer = make_user_producer(cfg);
      REQUIRE(producer);
      ProducerSlot slot;
      std::atomic<bool> stop{false};
      std::string err, thread_name;  // read after the join
      std::atomic<bool> ended{false};
      std::thread t([&] {
        pthread_setname_np(pthread_self(), "bb-renamer");
        err = test::error_of(producer->run(0, slot, stop));
        std::ifstream f("/proc/thread-self/comm");
        std::getline(f, thread_name);
        ended = true;
      });
      auto wait_for = [&](uint64_t n) {  // a count, not a time; 20 s bounds a hang
        test::wait_until([&] { return slot.ops.load() >= n || ended; }, std::chrono::seconds(20),
                         std::chrono::milliseconds(1));
      };
      wait_for(1000);
      prctl(PR_SET_NAME, "bb-moved", 0, 0, 0);
      wait_for(slot.ops.load() + 1000);
      stop = true;
      t.join();
      const std::string after = own_comm();
      prctl(PR_SET_NAME, before.c_str(), 0, 0, 0);
      REQUIRE(err.empty());
      CHECK(thread_name == "bb-renamer");
      CHECK(after == (main ? before : std::string("bb-moved")));
    }
  }
  CHECK(own_comm() == before);
}

TEST_CASE("uprobes: the multi and nop5 and USDT programs count every call", "[runtime][uprobes]") {
  BB_REQUIRE_ROOT();
  Runner run;
  REQUIRE_FALSE(run.fams.diags.has_errors());
  for (const auto &prog : run.fams.get("uprobes").programs) {
    const std::string &n = prog.name;
    if (n.find("multi") == std::string::npos && n.find("nop5") == std::string::npos && n.find("usdt") != 0) continue;
    DYNAMIC_SECTION(n) { check_runs_or_skips(run, "uprobes", n, "hits_vs_producer"); }
  }
}

// op_count atomic: the syscall, uprobe-target and rename producers count with a locked add,
// as the kernel bench's trig-syscall-count, trig-usermode-count and rename loops do. Its count must
// still be exact: the programs' own count of the same calls agrees to the call.
TEST_CASE("op_count atomic: the producers' locked count agrees with the programs'",
          "[runtime][trigger][uprobes][rename]") {
  BB_REQUIRE_ROOT();
  Runner run;
  const std::pair<const char *, const char *> cases[] = {{"trigger", "tp"},          {"uprobes", "uprobe-nop"},
                                                         {"rename", "rawtp"},        {"trigger", "base"},
                                                         {"uprobes", "uprobe-base"}, {"rename", "base"}};
  for (const auto &[family, prog] : cases) {
    DYNAMIC_SECTION(family << "/" << prog) {
      PlanPoint p = run.point(family, prog);
      test::set_param(p, "op_count", test::word("atomic"));
      // base and uprobe-base count in user space only: nothing to check them against.
      const bool checked = std::string(prog) != "base" && std::string(prog) != "uprobe-base";
      const char *check = std::string(family) == "rename" ? "runs_vs_renames" : "hits_vs_producer";
      check_point_runs_or_skips(run, p, checked ? check : nullptr);
    }
  }
}

TEST_CASE("trigger: the kprobe.multi-all programs run or say why not", "[runtime][trigger]") {
  BB_REQUIRE_ROOT();
  Runner run;
  for (const char *prog : {"kprobe-multi-all", "kretprobe-multi-all"}) DYNAMIC_SECTION(prog) {
      check_runs_or_skips(run, "trigger", prog);
    }
}

TEST_CASE("kprobe.multi-all takes vmlinux functions once without the skip list", "[kprobe_multi_all]") {
  const std::string text = "do_sys_open\nrcu_note_context_switch\nbpf_get_numa_node_id\ndo_sys_open\n"
                           "arch_cpu_idle\nxfs_foo [xfs]\n__ftrace_invalid_address___123\nvfs_read\n";
  CHECK(kprobe_multi_all_functions(text) == std::vector<std::string>{"do_sys_open", "vfs_read"});
  CHECK(is_kprobe_multi_all_section("?kprobe.multi/*"));
  CHECK(is_kprobe_multi_all_section("kretprobe.multi/*"));
  CHECK_FALSE(is_kprobe_multi_all_section("?kprobe.multi/bpf_get_numa_node_id"));
}

// What bench refuses (rename with -p2, ...): test_kbench_translate.cpp.
TEST_CASE("bench runs the new kernel-bench names", "[runtime][cli][kbench]") {
  BB_REQUIRE_ROOT();
  using test::run_process;
  for (const char *name : {"count-local", "rename-rawtp", "trig-uprobe-multi-nop", "trig-usdt-nop5"}) {
    DYNAMIC_SECTION(name) {
      auto r = run_process({BPFBENCH_BINARY, "bench", "-q", "-w0", "-d1", name}, 60);
      INFO(r.out << r.err);
      CHECK(r.exit_code == 0);
      const bool skipped = r.out.find(std::string(name) + ": skipped: ") != std::string::npos;
      if (!skipped) CHECK(r.out.find("Summary: hits ") != std::string::npos);
    }
  }
}

// The kernel bench's -d N measures N + 1 intervals after the warmup (bench.c stops after
// iteration warmup + N); with fewer, a comparison of the two tools' fastest second or of
// their Iter lines is one interval short on bpfbench's side.
TEST_CASE("bench -w1 -d2 prints Iter 0 to 3, as the kernel bench does", "[runtime][cli][kbench]") {
  BB_REQUIRE_ROOT();
  auto r = test::run_process({BPFBENCH_BINARY, "bench", "-q", "-w1", "-d2", "count-local"}, 60);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<int> iters;
  const std::regex iter("^Iter +([0-9]+) \\(");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (std::smatch m; std::regex_search(line, m, iter)) iters.push_back(std::stoi(m[1]));
  CHECK(iters == std::vector<int>{0, 1, 2, 3});
  CHECK(r.out.find("Summary: hits ") != std::string::npos);
}

TEST_CASE("bpf_nop timed: an empty timed loop, and bench bpf-nop's line", "[runtime][batch_timing][kbench]") {
  BB_REQUIRE_ROOT();
  Runner r;
  PlanPoint p = r.point("bpf_nop", "timed", {{"batch_iters", 100000}});
  PointResult res = r.run(p);
  INFO(res.reason);
  REQUIRE(res.status == PointResult::Status::Ok);
  REQUIRE(res.batch_timing);
  CHECK(res.batch_timing->batch_iters == 100000u);
  REQUIRE(!res.batch_timing->per_op_ns.empty());
  CHECK(res.batch_timing->per_op_ns.front() > 0);
  CHECK(res.batch_timing->per_op_ns.back() < 1000);  // an empty iteration is ns, not µs
  // A call is 100000 timed iterations and one untimed: the producer counts all of them.
  CHECK(test::sampled_total(res, "hits") % 100001 == 0);
  CHECK(test::sampled_total(res, "hits") > 0);
  auto b = test::run_process({BPFBENCH_BINARY, "bench", "-w0", "bpf-nop"}, 120);
  INFO(b.out << b.err);
  REQUIRE(b.exit_code == 0);
  CHECK(std::regex_search(b.out, std::regex("\nbpf-nop: median [0-9]+\\.[0-9]{2} ns/op, stddev [0-9]+\\.[0-9]{2}, "
                                            "p99 [0-9]+\\.[0-9]{2} \\([0-9]+ samples\\)\n$")));
}
