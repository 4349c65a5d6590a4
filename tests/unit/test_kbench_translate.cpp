// `bpfbench bench`'s translation in-process (session/kbench.hpp): the kernel bench's names
// and options as .bdsl text of the shipped families, what it refuses in its own words, the
// part a missing kernel feature leaves, and how the runs print.
#include <catch2/catch.hpp>

#include <algorithm>

#include "session/kbench.hpp"
#include "session_support.hpp"

using namespace bpfbench;

namespace {

KbenchArgs kbench_args(const std::string &name, std::vector<std::pair<std::string, std::string>> options = {}) {
  KbenchArgs a;
  a.name = name;
  a.options = std::move(options);
  return a;
}

// What the kernel bench requires of -c and -p for `n` (sockmap: -c 2 -p 1 -a), the
// options it cannot run without, and a machine-sized --nr_maps.
KbenchArgs runnable(const KbenchName &n) {
  KbenchArgs a = kbench_args(n.name);
  a.consumers = n.consumers;
  a.affinity = n.options == KbenchOptions::Sockmap;
  if (n.options == KbenchOptions::LpmTrie) a.options.emplace_back("--nr_entries", "1000");
  // The default 1000 maps of the hashmap control are 4194304000 entries at their max_entries,
  // more than the resource check lets through here without --allow-large.
  if (n.options == KbenchOptions::LocalStorage) a.options.emplace_back("--nr_maps", "1");
  if (n.scenario_param) a.options.emplace_back("--scenario", "tcp-v4-lru-hit");
  return a;
}

}  // namespace

TEST_CASE("kbench: a misspelt benchmark name gets a did-you-mean, nothing close gets no guess", "[kbench][session]") {
  CHECK(kbench_bdsl(kbench_args("trig-rawpt")).error ==
        "benchmark 'trig-rawpt' not found; did you mean 'trig-rawtp'? (bpfbench bench --list names them)");
  CHECK(kbench_bdsl(kbench_args("frobnicate")).error ==
        "benchmark 'frobnicate' not found (bpfbench bench --list names them)");
  CHECK(kbench_runs(kbench_args("frobnicate"), kbench_bdsl(kbench_args("frobnicate"))).empty());
}

TEST_CASE("kbench: what the kernel bench refuses is refused in its words", "[kbench][session]") {
  struct Case {
    KbenchArgs args;
    std::string error;
  };
  KbenchArgs rename = kbench_args("rename-base");
  rename.producers = 2;
  KbenchArgs b2b = kbench_args("rb-libbpf", {{"--rb-b2b", ""}});
  b2b.consumers = 1;
  b2b.producers = 2;
  KbenchArgs rb_no_consumer = kbench_args("rb-libbpf");
  KbenchArgs trig_consumer = kbench_args("trig-rawtp");
  trig_consumer.consumers = 1;
  KbenchArgs procs = kbench_args("local-storage-tasks-trace", {{"--nr_procs", "0"}});
  KbenchArgs timing_consumer = kbench_args("bpf-nop");
  timing_consumer.consumers = 1;
  const std::vector<Case> cases{
      {rename, "benchmark doesn't support multi-producer!"},
      {b2b, "back-to-back mode makes sense only for single-producer case!"},
      {rb_no_consumer, "rb-libbpf benchmark needs one consumer!"},
      {trig_consumer, "benchmark doesn't support consumer!"},
      {timing_consumer, "benchmark doesn't support consumers"},
      {kbench_args("sockmap"), "argument '-c 2 -p 1 -a' is necessary"},
      {kbench_args("lpm-trie-lookup"), "Missing --nr_entries parameter"},
      {kbench_args("xdp-lb"), "--scenario is required. Use --list-scenarios to see options."},
      {procs, "invalid nr_procs"},
      {kbench_args("trig-rawtp", {{"--nr_maps", "10"}}), "--nr_maps does not apply to benchmark 'trig-rawtp'"},
      {kbench_args("pb-libbpf", {{"--rb-use-output", ""}}),
       "--rb-use-output applies to the rb-* benchmarks, not 'pb-libbpf'"},
      {kbench_args("trig-rawtp", {{"--frob", "1"}}), "unknown benchmark option --frob"},
  };
  for (const auto &c : cases) {
    KbenchText t = kbench_bdsl(c.args);
    INFO(c.args.name << ": " << c.error);
    CHECK(t.error == c.error);
    CHECK(t.text.empty());
  }
}

TEST_CASE("kbench: every benchmark name is a plan of the shipped families", "[kbench][session]") {
  for (const KbenchName &n : kbench_names()) {
    KbenchText t = kbench_bdsl(runnable(n));
    INFO(n.name << "\n" << t.error << t.text);
    REQUIRE(t.error.empty());
    test::Loaded l(t.text, {}, false);
    REQUIRE(l.fe.plan->points.size() == 1);
    const PlanPoint &p = l.fe.plan->points[0];
    CHECK(p.label == n.name);
    CHECK(p.family == n.family);
    CHECK(p.producers == 1);
  }
}

TEST_CASE("kbench: -w, -d and -p become the point's, -d N measuring N + 1 intervals as the kernel bench does",
          "[kbench][session]") {
  KbenchArgs a = kbench_args("trig-rawtp", {{"--trig-batch-iters", "50"}});
  a.warmup_s = 2;
  a.duration_s = 3;
  a.producers = 2;
  KbenchText t = kbench_bdsl(a);
  REQUIRE(t.error.empty());
  CHECK(t.text == "bench trigger as \"trig-rawtp\" < prog rawtp-kfunc; batch_iters 50; warmup 2s; duration 4s; "
                  "producers 2; report hits; >\n");
  test::Loaded l(t.text, {}, false);
  const PlanPoint &p = l.fe.plan->points.at(0);
  CHECK(p.warmup_ns == 2'000'000'000);
  CHECK(p.duration_ns == 4'000'000'000);
  CHECK(p.producers == 2);
  // The CPU sets given pin the threads (the kernel bench's --prod-affinity implies -a).
  a.prod_cpus = "0";
  CHECK(kbench_bdsl(a).text.find(" affinity; prod_affinity \"0\";") != std::string::npos);
}

TEST_CASE("kbench: a benchmark whose measurement needs a missing feature runs the part that does not",
          "[kbench][session]") {
  KbenchArgs a = kbench_args("local-storage-tasks-trace");
  KbenchText with = kbench_bdsl(a, [](const std::string &) { return true; });
  REQUIRE(with.error.empty());
  CHECK(with.fallback_text.empty());
  CHECK(kbench_runs(a, with).size() == 1);
  std::vector<std::string> asked;
  KbenchText without = kbench_bdsl(a, [&asked](const std::string &req) {
    asked.push_back(req);
    return false;
  });
  CHECK(asked == std::vector<std::string>{"attach:fentry"});
  REQUIRE(without.error.empty());
  CHECK(without.text.find("as \"local-storage-tasks-trace grace periods\"") != std::string::npos);
  CHECK(without.fallback_text.find(
            "as \"local-storage-tasks-trace task storage churn\" < prog churn; nr_procs 1000;") != std::string::npos);
  std::vector<RunArgs> runs = kbench_runs(a, without);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].kernel_report == KernelReport::TasksTrace);
  CHECK(runs[1].kernel_report == KernelReport::TasksTraceChurn);
  CHECK(*runs[1].in.text == without.fallback_text);
  for (const auto &r : runs) test::Loaded l(*r.in.text, {}, false);
}

TEST_CASE("kbench: the runs print as the kernel bench does: its report, no calibration, -q and --machine-readable",
          "[kbench][session]") {
  KbenchArgs a = kbench_args("xdp-lb", {{"--scenario", "tcp-v4-lru-hit"}});
  std::vector<RunArgs> runs = kbench_runs(a, kbench_bdsl(a));
  REQUIRE(runs.size() == 1);
  const RunArgs &r = runs[0];
  CHECK(r.in.file == "<bench xdp-lb>");
  CHECK(r.kernel_report == KernelReport::BatchTiming);
  CHECK(r.kernel_title_param == "scenario");
  CHECK(r.calibration_ns == 0);
  CHECK_FALSE(r.prog_stats);
  CHECK(r.setup_lines);
  CHECK_FALSE(r.machine_readable);
  a.options.emplace_back("--machine-readable", "");
  RunArgs m = kbench_runs(a, kbench_bdsl(a)).at(0);
  CHECK(m.machine_readable);
  CHECK_FALSE(m.setup_lines);  // the RESULT line alone
  // -q drops the set-up lines; only local-storage-tasks-trace's also drops its Iter lines.
  KbenchArgs q = kbench_args("trig-rawtp");
  q.quiet = true;
  RunArgs rq = kbench_runs(q, kbench_bdsl(q)).at(0);
  CHECK_FALSE(rq.setup_lines);
  CHECK_FALSE(rq.quiet);
  KbenchArgs tq = kbench_args("local-storage-tasks-trace");
  tq.quiet = true;
  CHECK(kbench_runs(tq, kbench_bdsl(tq, [](const std::string &) { return true; })).at(0).quiet);
}

TEST_CASE("kbench: --scenario is checked against the family's choices, each option row belongs to a benchmark",
          "[kbench][session]") {
  const KbenchName *n = find_kbench_name("xdp-lb");
  REQUIRE(n);
  FamilyRegistry reg;
  std::string error;
  const ParamSpec *spec = kbench_scenario_spec(*n, reg, error);
  INFO(error);
  REQUIRE(spec);
  CHECK(std::find(spec->choices.begin(), spec->choices.end(), "tcp-v4-lru-hit") != spec->choices.end());
  CHECK(kbench_unknown_scenario(kbench_args("xdp-lb", {{"--scenario", "tcp-v4-lru-hit"}}), *spec).empty());
  CHECK(kbench_unknown_scenario(kbench_args("xdp-lb", {{"--scenario", "tcp-v4-lru-hti"}}), *spec) ==
        "unknown scenario: 'tcp-v4-lru-hti' (use --list-scenarios to see options; did you mean 'tcp-v4-lru-hit'?)");
  CHECK(kbench_scenario_spec(*find_kbench_name("trig-rawtp"), reg, error) == nullptr);
  for (const KbenchOption &o : kbench_options()) {
    INFO(o.name);
    CHECK(std::any_of(kbench_names().begin(), kbench_names().end(),
                      [&](const KbenchName &k) { return k.options == o.applies_to; }));
    if (o.words) CHECK(kbench_option_words(o).size() >= 2);
  }
}
