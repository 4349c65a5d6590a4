// Interleaved ab against the kernel (root + BPF): A and B loaded in one process, a
// dispatcher on the hook or alternating test_run calls, the CI over loads. Invariants that
// hold on a busy machine: what ran, how many loads, a change of several times is called,
// A against itself reads near 1; and which points keep whole turns, and why.
#include <catch2/catch.hpp>

#include "fault_support.hpp"
#include "point_runner.hpp"
#include "runtime/ab/ab_runner.hpp"
#include "runtime/ab/interleavable.hpp"
#include "runtime/ab/interleave_run.hpp"
#include "results/ab_interleaved.hpp"
#include "temp_dir.hpp"

using namespace bpfbench;
using namespace bpfbench::test;

namespace {

// Short interleaved runs: two copies, 10 ms slices, at most 4 s.
AbRunOptions quick_options(FeatureProber &prober) {
  AbRunOptions o;
  o.interleave.copies = 2;
  o.interleave.slice_ns = 10'000'000;
  o.interleave.block_ns = 500'000'000;
  o.interleave.rule.min_time_s = 0.5;
  o.interleave.rule.max_time_s = 4;
  o.run.prober = &prober;
  return o;
}

struct Side {
  PlanPoint point;
  std::vector<uint8_t> object;
  AbSideInput input(const Families &fams) const { return {&point, &fams.get(point.family), &object}; }
};

Side side(PointRunner &pr, const std::string &family, const std::string &prog,
          std::vector<std::pair<std::string, int64_t>> values = {}) {
  Side s{pr.point(family, prog, std::move(values)), {}};
  std::string err;
  s.object = compile_point(s.point, pr.fams, err);
  INFO(err);
  REQUIRE(!s.object.empty());
  return s;
}

}  // namespace

TEST_CASE("runtime ab: a dispatcher on the tracepoint alternates the loads, 128x the bytes compared is called slower",
          "[runtime][ab]") {
  BB_REQUIRE_ROOT();
  PointRunner pr;
  Side a = side(pr, "strncmp", "no-helper", {{"cmp_str_len", 16}});
  Side b = side(pr, "strncmp", "no-helper", {{"cmp_str_len", 2048}});
  InterleavePlan plan = plan_interleave(a.input(pr.fams), b.input(pr.fams));
  REQUIRE(plan.why_not.empty());
  CHECK(plan.dispatch == AbDispatch::Dispatcher);
  CHECK(plan.metric.name == "hits");
  StopSource stop;
  AbPointReport r = run_ab_point(a.input(pr.fams), b.input(pr.fams), quick_options(pr.prober), 0, 0, 1, stop);
  INFO(r.note);
  REQUIRE(r.note.empty());
  CHECK(r.method == AbMethod::Interleaved);
  REQUIRE(r.interleaved);
  CHECK(r.interleaved->dispatch.find("a dispatcher on tp/syscalls/sys_enter_getpgid") == 0);
  CHECK(r.interleaved->copies == 2);
  CHECK(r.stats.n >= 4);  // units: loads, at least the rule's minimum
  // A unit per load and block, less those whose every pair was dropped (the producer got
  // too little CPU in each of its slices: a busy machine).
  CHECK(r.interleaved->stats.units.size() <= 2 * r.interleaved->blocks);
  if (r.interleaved->dropped_pairs == 0) CHECK(r.interleaved->stats.units.size() == 2 * r.interleaved->blocks);
  for (const auto &u : r.interleaved->stats.units) CHECK(u.pairs > 0);
  CHECK(r.stats.ratio < 0.9);  // 128x the compared bytes: far slower, whatever the machine does
  CHECK(r.verdict == Verdict::Slower);
  CHECK(r.stop == AbStop::Decided);
  REQUIRE(r.interleaved->a_facts);
  REQUIRE(r.interleaved->b_facts);
  CHECK(r.interleaved->b_facts->verified_insns > r.interleaved->a_facts->verified_insns);
  // Nothing of the point is left attached or loaded once it returns.
  HeldBpfObjects after = held_bpf_objects();
  CHECK(after.links.empty());
}

TEST_CASE("runtime ab: test_run points alternate the calls, A against itself reads near 1", "[runtime][ab]") {
  BB_REQUIRE_ROOT();
  PointRunner pr;
  Side a = side(pr, "trigger", "kernel-count");
  InterleavePlan plan = plan_interleave(a.input(pr.fams), a.input(pr.fams));
  REQUIRE(plan.why_not.empty());
  CHECK(plan.dispatch == AbDispatch::TestRunCalls);
  StopSource stop;
  AbPointReport r = run_ab_point(a.input(pr.fams), a.input(pr.fams), quick_options(pr.prober), 0, 0, 1, stop);
  INFO(r.note);
  REQUIRE(r.note.empty());
  REQUIRE(r.interleaved);
  CHECK(r.interleaved->dispatch == "BPF_PROG_TEST_RUN calls alternate between the loads");
  CHECK(r.stats.ratio > 0.8);
  CHECK(r.stats.ratio < 1.25);
  // Every unit has both residues (the kernel shows JIT addresses to root) and pairs.
  for (const auto &u : r.interleaved->stats.units) {
    CHECK(u.pairs > 0);
    CHECK(u.a_jit64.has_value());
  }
  // test_run of a raw_tp program reports no duration: the slices are valued by the producer
  // thread's CPU time, and the report says so.
  CHECK_FALSE(r.interleaved->kernel_time);
  CHECK(interleaved_json(*r.interleaved)["value"] == "events per CPU second of the producer threads");
}

// One producer thread's runs take at most the slice's wall time, so events per second of
// the kernel-reported duration are at least the events per wall second (less a call at
// each edge of the window), and a slice with events has a duration.
TEST_CASE("runtime ab: a test_run slice's value is per second of the kernel's duration of the runs",
          "[runtime][ab]") {
  BB_REQUIRE_ROOT();
  PointRunner pr;
  Side a = side(pr, "crypto", "encrypt");
  InterleavePlan plan = plan_interleave(a.input(pr.fams), a.input(pr.fams));
  INFO(plan.why_not);
  REQUIRE(plan.why_not.empty());
  CHECK(plan.dispatch == AbDispatch::TestRunCalls);
  REQUIRE(a.point.producers == 1);
  StopSource stop;
  AbRunOptions o = quick_options(pr.prober);
  o.interleave.rule.max_time_s = 1;
  auto ran = run_interleaved(a.input(pr.fams), a.input(pr.fams), plan, o.interleave, stop);
  INFO((ran ? "" : ran.error().message));
  REQUIRE(ran);
  CHECK(ran->kernel_time);  // a tc program: the kernel times its test_run
  REQUIRE(!ran->pairs.empty());
  size_t at_least_wall = 0;
  for (const AbSlicePair &p : ran->pairs) {
    CHECK(p.a > 0);
    CHECK(p.b > 0);
    at_least_wall += p.a >= 0.95 * p.a_wall && p.b >= 0.95 * p.b_wall;
  }
  CHECK(at_least_wall == ran->pairs.size());
}

TEST_CASE("runtime ab: a stop request ends an interleaved point as interrupted", "[runtime][ab]") {
  BB_REQUIRE_ROOT();
  PointRunner pr;
  Side a = side(pr, "trigger", "kernel-count");
  StopSource stop;
  AbRunOptions o = quick_options(pr.prober);
  o.interleave.rule.max_time_s = 60;
  o.interleave.rule.precision_pct = 0.0001;  // never reached
  o.progress = [&stop](const std::string &) { stop.request_stop(); };
  AbPointReport r = run_ab_point(a.input(pr.fams), a.input(pr.fams), o, 0, 0, 1, stop);
  CHECK(r.note == "interrupted");
  CHECK(r.verdict == Verdict::NotComparable);
}

TEST_CASE("ab: points that cannot share a process keep whole turns, and say why", "[ab][interleaved]") {
  Families fams;
  auto input = [&](const PlanPoint &p) { return AbSideInput{&p, &fams.get(p.family), nullptr}; };
  PlanPoint rb = make_point(fams.get("ringbuf"), "reserve_commit");
  CHECK(plan_interleave(input(rb), input(rb)).why_not == "A: it has a consumer (ringbuf) of its own buffer");
  PlanPoint base = make_point(fams.get("trigger"), "base");
  CHECK(plan_interleave(input(base), input(base)).why_not == "A: it loads no BPF program: nothing to alternate");
  PlanPoint tp = make_point(fams.get("trigger"), "tp"), raw = make_point(fams.get("trigger"), "rawtp");
  CHECK(plan_interleave(input(tp), input(raw)).why_not == "A and B attach to different hooks");
  PlanPoint tp2 = tp;
  tp2.producers = 2;
  CHECK(plan_interleave(input(tp), input(tp2)).why_not == "A and B have different producer counts");
  PlanPoint self = tp;
  set_param(self, "getpgid_arg", word("invalid"));
  CHECK(plan_interleave(input(tp), input(self)).why_not == "A and B differ in a producer setting (its params)");
  PlanPoint usdt = make_point(fams.get("uprobes"), "usdt-nop");
  CHECK(plan_interleave(input(usdt), input(usdt)).why_not.find("the producer is usdt_nop") != std::string::npos);
  CHECK(plan_interleave(input(tp), input(tp)).why_not.empty());
}

TEST_CASE("runtime ab: a turn the verifier refuses is one line in the table, its log in a file",
          "[runtime][ab][verify]") {
  BB_REQUIRE_ROOT();
  PointRunner pr({fixtures_dir()});
  Side a = side(pr, "trigger", "rawtp");
  Side b = side(pr, "verifier_reject", "reject");
  b.point.label = a.point.label;
  TempDir dir;
  VerifierLogFolder logs(dir.path.string());
  AbRunOptions o = quick_options(pr.prober);
  o.logs = &logs;
  StopSource stop;
  AbPointReport r = run_ab_point(a.input(pr.fams), b.input(pr.fams), o, 0, 0, 1, stop);
  INFO(r.note);
  CHECK(r.method == AbMethod::Turns);  // two families: whole turns, A's first
  const std::string log = (dir.path / "bpfbench-verifier-logs" / (a.point.label + ".B.bench_reject.log")).string();
  CHECK(r.note == "failed in B: load: libbpf: prog 'bench_reject': BPF program load failed: Permission denied "
                  "(EACCES) (verifier log: " +
                      log + ")");
  CHECK(read_text(log).find("invalid access to map value") != std::string::npos);
  AbReport rep;
  rep.points.push_back(r);
  const std::string table = ab_to_text(rep);
  INFO(table);
  CHECK(table.find("processed ") == std::string::npos);  // no verifier log in the report
  CHECK(table.find("(verifier log: " + log + ")") != std::string::npos);
}
