// Runtime tests (root + BPF) of the run-time stats and verifier facts: counters against
// bpftool, prog_ns that follows the work per run, the stats off by default, the sysctl untouched.
#include <catch2/catch.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/bpf_object.hpp"
#include "runtime/prog_stats.hpp"
#include "runtime/run_point.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

const char *kBpftool = "/usr/sbin/bpftool";

PointResult run_trigger(const test::Families &fams, const std::string &prog, bool stats, int64_t batch = 0,
                        int64_t interval_ns = 1'000'000'000) {
  const FamilyManifest &f = fams.get("trigger");
  PlanPoint p = test::make_point(f, prog, 0, 1'000'000'000);
  p.interval_ns = interval_ns;
  if (batch > 0) test::set_param(p, "batch_iters", test::num(batch));
  std::string err;
  auto obj = test::compile_point(p, fams, err);
  INFO(err);
  REQUIRE(!obj.empty());
  RunOptions opts;
  opts.prog_stats = stats;
  StopSource stop;
  return run_point(p, f, obj, opts, stop);
}

}  // namespace

TEST_CASE("prog stats: run_cnt agrees with bpftool prog show", "[runtime][prog_stats]") {
  BB_REQUIRE_ROOT();
  if (access(kBpftool, X_OK) != 0) {
    WARN("skipped: no " << kBpftool);
    return;
  }
  REQUIRE(ensure_tracefs());
  test::Families fams;
  const FamilyManifest &f = fams.get("trigger");
  PlanPoint p = test::make_point(f, "tp");
  std::string err;
  auto elf = test::compile_point(p, fams, err);
  INFO(err);
  REQUIRE(!elf.empty());
  BpfObject obj;
  REQUIRE(obj.open(elf, "bb_trigger"));
  REQUIRE(obj.set_rodata("bb_tgid", getpid(), true));
  REQUIRE(obj.set_autoload_only({"bench_tp"}));
  REQUIRE(obj.load());
  REQUIRE(obj.attach("bench_tp", AttachSpec{}));
  const bool sysctl_before = read_bpf_stats_sysctl().value_or(false);
  BpfStatsSwitch on;
  REQUIRE(on.on());
  for (int i = 0; i < 1000; ++i) syscall(__NR_getpgid, -1);
  auto before = read_prog_counters(obj.program_fd("bench_tp"));
  REQUIRE(before);
  test::ProcessResult show = test::run_process({kBpftool, "prog", "show", "id", std::to_string(before->id), "--json"});
  auto after = read_prog_counters(obj.program_fd("bench_tp"));
  REQUIRE(after);
  INFO(show.out << show.err);
  REQUIRE(show.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(show.out);
  CHECK(before->run_cnt >= 1000);  // every getpgid in the system runs it: ours at least
  CHECK(before->run_time_ns > 0);
  REQUIRE(j.contains("run_cnt"));
  CHECK(j["run_cnt"].get<uint64_t>() >= before->run_cnt);
  CHECK(j["run_cnt"].get<uint64_t>() <= after->run_cnt);
  on.off();
  CHECK(read_bpf_stats_sysctl().value_or(false) == sysctl_before);
}

TEST_CASE("prog stats: metrics, facts and the sysctl as found", "[runtime][prog_stats]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  const std::optional<bool> sysctl_before = read_bpf_stats_sysctl();
  PointResult r = run_trigger(fams, "tp", true);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Ok);
  CHECK(read_bpf_stats_sysctl() == sysctl_before);
  CHECK(r.prog_stats.enabled);
  const MetricSummary *ns = r.summary.find("prog_ns"), *runs = r.summary.find("prog_runs");
  REQUIRE(ns);
  REQUIRE(runs);
  CHECK(ns->mean > 0);
  CHECK(ns->mean < 100'000);  // a counting tracepoint program: far below 100 us
  // The program runs for every getpgid in the system; it counts ours only.
  CHECK(test::sampled_total(r, kProgRunsKey) >= test::sampled_total(r, "hits"));
  CHECK(r.summary.find("prog_time_share")->mean > 0);
  CHECK(std::find(r.report.begin(), r.report.end(), "prog_ns") != r.report.end());
  REQUIRE(r.prog_stats.programs.size() == 1);
  CHECK(r.prog_stats.programs[0].role == "measured");
  CHECK(r.prog_stats.programs[0].run_cnt == test::sampled_total(r, kProgRunsKey));
  REQUIRE(r.prog_facts.size() == 1);
  const ProgFacts &facts = r.prog_facts[0];
  CHECK(facts.name == "bench_tp");
  CHECK(facts.verified_insns > 0);
  CHECK(facts.xlated_len > 0);
  CHECK(facts.jited_len > 0);
  // Root on a JIT kernel: the address is shown to us, and only its residue is kept.
  REQUIRE(facts.jit_offset64.has_value());
  CHECK(*facts.jit_offset64 < 64);
  CHECK(facts.peak_states.has_value());
  CHECK(facts.verification_time_us.has_value());

  PointResult off = run_trigger(fams, "tp", false);
  REQUIRE(off.status == PointResult::Status::Ok);
  CHECK_FALSE(off.prog_stats.enabled);
  CHECK(off.prog_stats.note.find("--prog-stats") != std::string::npos);
  CHECK(off.prog_stats.programs.empty());
  CHECK_FALSE(off.summary.find("prog_ns"));
  CHECK(std::find(off.report.begin(), off.report.end(), "prog_ns") == off.report.end());
  for (const auto &s : off.samples) CHECK_FALSE(s.deltas.count(kProgRunsKey));
  CHECK(off.prog_facts.size() == 1);  // facts come from the load, not from the stats
  CHECK(read_bpf_stats_sysctl() == sysctl_before);
}

TEST_CASE("prog stats: twice the loop per run is about twice prog_ns", "[runtime][prog_stats]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  // Two loads of each, alternating, sampled every 100 ms, and the lowest prog_ns of any
  // interval of either load: the same program's cost per run differs by up to ~50 % from
  // one load to the next on this VM (545 -> 1792 ns failed a single-load comparison in
  // CI; docs/ab.md, "Measured"), and a vCPU's slow spells of 0.3-1.5 s covered both loads'
  // means once (2857 -> 3473 ns, 1.22x, under ASan); the fastest interval is the work's
  // cost while the machine let it run, as ab's fast turn value (docs/ab.md).
  constexpr int64_t kInterval = 100'000'000;
  PointResult one = run_trigger(fams, "kernel-count", true, 250, kInterval);
  PointResult two = run_trigger(fams, "kernel-count", true, 500, kInterval);
  PointResult one_again = run_trigger(fams, "kernel-count", true, 250, kInterval);
  PointResult two_again = run_trigger(fams, "kernel-count", true, 500, kInterval);
  INFO(one.reason << " / " << two.reason << " / " << one_again.reason << " / " << two_again.reason);
  double a = 0, b = 0;
  for (auto [r, low] :
       {std::pair(&one, &a), std::pair(&one_again, &a), std::pair(&two, &b), std::pair(&two_again, &b)}) {
    REQUIRE(r->status == PointResult::Status::Ok);
    const MetricSummary *m = r->summary.find("prog_ns");
    REQUIRE(m);
    REQUIRE(m->values.size() >= 5);
    const double fastest = *std::min_element(m->values.begin(), m->values.end());
    REQUIRE(fastest > 0);
    *low = *low == 0 ? fastest : std::min(*low, fastest);
  }
  INFO("prog_ns " << a << " -> " << b);
  // An invariant of the work, not a speed: wide enough for a loaded machine.
  CHECK(b / a > 1.3);
  CHECK(b / a < 3.0);
  // The driver counts itself: each run is batch_iters hits.
  for (const auto *r : {&one, &two}) {
    double runs = double(test::sampled_total(*r, kProgRunsKey)), hits = double(test::sampled_total(*r, "hits"));
    double batch = r == &one ? 250 : 500;
    CHECK(hits == Approx(runs * batch).epsilon(0.02));
  }
}

// The local_storage family's kernel_loop: the kernel bench loop's shape (its map_idx % 3 and
// its rodata flag loads, which its verifier keeps) is in the loaded program only when asked
// for, and the program with it still counts its gets.
TEST_CASE("local_storage kernel_loop runs the kernel bench's loop shape, and only then", "[runtime][families][cli]") {
  BB_REQUIRE_ROOT();
  if (access(kBpftool, X_OK) != 0) {
    WARN("skipped: no " << kBpftool);
    return;
  }
  test::TempDir dir;
  const std::string file = dir.write("k.bdsl",
                                     "defaults < warmup 200ms; duration 1s; >\n"
                                     "bench local_storage as \"plain\" < prog seq_get; nr_maps 1; >\n"
                                     "bench local_storage as \"kernel\" < prog seq_get; nr_maps 1; kernel_loop true; >\n"
                                     "bench local_storage as \"kernel-hash\" < prog hashmap; nr_maps 1;\n"
                                     "  hashmap_size 1024; kernel_loop true; >\n");
  auto xlated = [&](const char *label) {
    test::ProcessResult x = test::run_process({BPFBENCH_BINARY, "emit", file, "--only", label, "--dump=xlated"});
    INFO(x.out << x.err);
    REQUIRE(x.exit_code == 0);
    return x.out;
  };
  const std::string plain = xlated("plain"), kernel = xlated("kernel"), kernel_hash = xlated("kernel-hash");
  CHECK(plain.find("%= 3") == std::string::npos);
  CHECK(plain.find("bb_kl_zero") == std::string::npos);
  for (const std::string *x : {&kernel, &kernel_hash}) {
    CHECK(x->find("%= 3") != std::string::npos);
    // The map-kind test before the outer lookup and again before the get, as the kernel's.
    CHECK(x->find("; if (hash != !!bb_kl_zero)") != x->rfind("; if (hash != !!bb_kl_zero)"));
  }
  test::ProcessResult r = test::run_process({BPFBENCH_BINARY, "run", "-q", "--only", "kernel*", "--json",
                                             (dir.path / "r.json").string(), file});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(std::ifstream(dir.path / "r.json"));
  REQUIRE(j["points"].size() == 2);
  for (const auto &p : j["points"]) CHECK(p["stats"]["hits"]["mean"].get<double>() > 0);
}

TEST_CASE("emit --dump xlated and jited dump the loaded program", "[runtime][prog_stats][cli]") {
  BB_REQUIRE_ROOT();
  if (access(kBpftool, X_OK) != 0) {
    WARN("skipped: no " << kBpftool);
    return;
  }
  const std::string file = std::string(BPFBENCH_SOURCE_DIR) + "/examples/trigger.bdsl";
  test::ProcessResult x = test::run_process({BPFBENCH_BINARY, "emit", file, "--only", "tp", "--dump=xlated"});
  INFO(x.out << x.err);
  REQUIRE(x.exit_code == 0);
  CHECK(x.out.rfind("// ==== point 1 'tp' in suite \"", 0) == 0);  // the point, then the program
  CHECK(x.out.find("\n// bench_tp (id ") != std::string::npos);
  CHECK(x.out.find("exit") != std::string::npos);  // the program's last instruction
  test::ProcessResult j = test::run_process({BPFBENCH_BINARY, "emit", file, "--only", "tp", "--dump=jited"});
  INFO(j.out << j.err);
  REQUIRE(j.exit_code == 0);
  // Debian's bpftool has no disassembler: then the JITed bytes themselves.
  CHECK((j.out.find("bpftool prog dump jited") != std::string::npos || j.out.find("JITed bytes") != std::string::npos));
  CHECK(j.out.find("     0:") != std::string::npos);
  // Loading is emit's business only.
  test::ProcessResult plan = test::run_process({BPFBENCH_BINARY, "plan", file, "--dump=xlated"});
  CHECK(plan.exit_code == 2);
  CHECK(plan.err.find("--dump: xlated not in {ast,plan,c}") != std::string::npos);
}

TEST_CASE("plan --facts loads every point's programs and gives the facts run records", "[runtime][prog_stats][cli]") {
  BB_REQUIRE_ROOT();
  const std::string file = std::string(BPFBENCH_SOURCE_DIR) + "/examples/trigger.bdsl";
  test::ProcessResult plan =
      test::run_process({BPFBENCH_BINARY, "plan", file, "--only", "tp", "--only", "base", "--json", "--facts"});
  INFO(plan.out << plan.err);
  REQUIRE(plan.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(plan.out);
  REQUIRE(j["points"].size() == 2);
  const nlohmann::json *tp = nullptr;
  for (const auto &p : j["points"]) {
    REQUIRE(p.contains("prog_facts"));
    if (p["label"] == "base") CHECK(p["prog_facts"].empty());  // no BPF program
    if (p["label"] == "tp") tp = &p;
  }
  REQUIRE(tp);
  REQUIRE((*tp)["prog_facts"].size() == 1);
  const nlohmann::json &f = (*tp)["prog_facts"][0];
  CHECK(f["name"] == "bench_tp");
  CHECK(f["verified_insns"].get<int64_t>() > 0);
  CHECK(f["jited_len"].get<int64_t>() > 0);
  CHECK(f["jit_offset64"].is_number());
  CHECK(f["peak_states"].is_number());  // the verifier's stats line was read

  // The same program loaded by run: the verifier saw the same instructions.
  test::TempDir dir;
  const std::string out = (dir.path / "run.json").string();
  test::ProcessResult run =
      test::run_process({BPFBENCH_BINARY, "run", file, "--only", "tp", "-w1s", "-d1s", "-q", "--json", out});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  std::ifstream in(out);
  nlohmann::json r = nlohmann::json::parse(in);
  const nlohmann::json &rf = r["points"][0]["prog_facts"][0];
  CHECK(rf["name"] == f["name"]);
  CHECK(rf["verified_insns"] == f["verified_insns"]);
  CHECK(rf["xlated_len"] == f["xlated_len"]);
  CHECK(rf["jited_len"] == f["jited_len"]);

  // Text: one line per program under its point.
  test::ProcessResult text = test::run_process({BPFBENCH_BINARY, "plan", file, "--only", "tp", "--facts"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("        prog bench_tp (id ") != std::string::npos);
}
