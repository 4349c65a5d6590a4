// Self-checks (family.json `self_checks`): read and located once with the manifest, resolved
// per point, compared, and written to / read back from the results JSON. No BPF here; the
// runtime tests (test_runtime_self_checks.cpp) run them against the kernel.
#include <catch2/catch.hpp>

#include "compiler/family/manifest_json.hpp"
#include "compiler/family/self_checks.hpp"
#include "util/escape.hpp"
#include "results/results.hpp"
#include "runtime/self_checks.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"
#include "result_support.hpp"

using namespace bpfbench;

namespace {

// A manifest with two count metrics, a ratio, a hook and two programs; `checks` is the
// `self_checks` value. The template defines bench_x and uses the hook.
std::string manifest(const std::string &checks) {
  return R"({ "family": "fam", "description": "d", "template": "prog.bpf.c",
  "hooks": ["body"],
  "programs": [
    { "name": "x", "section": "?raw_tp/sys_enter", "function": "bench_x" },
    { "name": "y", "section": "?raw_tp/sys_enter", "function": "bench_x", "metric_sources": { "hits": "producer" } }
  ],
  "metrics": [
    { "name": "hits", "source": "counter:bb_hits" },
    { "name": "drops", "source": "counter:bb_drops" },
    { "name": "per", "source": "ratio:hits/drops", "unit": "x" }
  ],
  "self_checks": )" +
         checks + "}";
}

struct CheckLoaded {
  std::optional<FamilyManifest> f;
  std::string rendered;
};

CheckLoaded load(const std::string &json) {
  test::TempDir dir;
  dir.write("fam/prog.bpf.c", "{{code_body}}\nint bench_x(void *ctx) { return 0; }\n");
  std::string path = dir.write("fam/family.json", json);
  SourceManager sources;
  Diagnostics diags;
  CheckLoaded out;
  out.f = parse_manifest(path, json, sources, diags);
  out.rendered = render_all(diags, sources);
  // Every message is located in the manifest: strip the temp path for the comparisons.
  for (size_t at; (at = out.rendered.find(path)) != std::string::npos;) out.rendered.replace(at, path.size(), "F");
  return out;
}

// The first line of the rendered diagnostics.
std::string first_line(const std::string &s) { return s.substr(0, s.find('\n')); }

}  // namespace

TEST_CASE("self_checks are read into terms, programs and hooks", "[self_checks][manifest]") {
  CheckLoaded l = load(manifest(R"([{ "name": "all", "expected": ["counter:bb_records"], "observed": ["hits", "drops"],
      "programs": ["x"], "unless_code": ["body"], "doc": "d" }])"));
  INFO(l.rendered);
  REQUIRE(l.f);
  REQUIRE(l.f->self_checks.size() == 1);
  const SelfCheckSpec &c = l.f->self_checks[0];
  CHECK(c.name == "all");
  REQUIRE(c.expected.size() == 1);
  CHECK(c.expected[0].metric.empty());
  CHECK(c.expected[0].source == MetricSource{MetricSourceKind::Counter, "bb_records", "", {}});
  REQUIRE(c.observed.size() == 2);
  CHECK(c.observed[0].metric == "hits");
  CHECK(c.observed[1].text() == "drops");
  CHECK(c.programs == std::vector<std::string>{"x"});
  CHECK(c.unless_code == std::vector<std::string>{"body"});
}

TEST_CASE("bad self_checks are errors at their place in family.json", "[self_checks][manifest]") {
  auto err = [](const std::string &checks) { return first_line(load(manifest(checks)).rendered); };
  CHECK(err(R"([{ "name": "c", "expected": ["producer"], "observed": ["hitz"] }])") ==
        "F:12:73-78: error: self_check 'c': 'hitz' is neither a metric of the family (hits, drops, per) nor a count "
        "source (producer, consumer or counter:<var>)");
  CHECK(err(R"([{ "name": "c", "expected": ["producer"], "observed": ["per"] }])") ==
        "F:12:73-77: error: self_check 'c': metric 'per' of program 'x' comes from 'ratio:hits/drops', not a count "
        "of events (producer, consumer or counter:<var>)");
  CHECK(err(R"([{ "name": "c", "expected": ["kthread_stime:x"], "observed": ["hits"] }])") ==
        "F:12:47-63: error: self_check 'c': 'kthread_stime:x' is neither a metric of the family (hits, drops, per) "
        "nor a count source (producer, consumer or counter:<var>)");
  CHECK(err(R"([{ "name": "c", "expected": [], "observed": ["hits"] }])") ==
        "F:12:46: error: self_check 'c': 'expected' must list at least one metric or source");
  CHECK(err(R"([{ "name": "c", "expected": ["producer"], "observed": ["hits"], "programs": ["z"] }])") ==
        "F:12:95-97: error: self_check 'c': unknown program 'z' (expected x or y)");
  CHECK(err(R"([{ "name": "c", "expected": ["producer"], "observed": ["hits"], "unless_code": ["globals"] }])") ==
        "F:12:98-106: error: self_check 'c': unknown hook 'globals' (expected body)");
  CHECK(err(R"([{ "name": "c", "expected": ["producer"] }])") ==
        "F:12:19: error: self_check 'c': missing required key 'observed'");
  CHECK(err(R"([{ "name": "c", "expected": ["producer"], "observed": ["hits"], "equal": 1 }])") ==
        "F:12:82-88: error: self_check 'c': unknown key 'equal'");
  CHECK(err(R"([{ "name": "c", "expected": ["producer"], "observed": ["hits"] },
                { "name": "c", "expected": ["producer"], "observed": ["drops"] }])") ==
        "F:13:19-24: error: duplicate self-check 'c'");
}

TEST_CASE("a self-check applies per program, not with its hooks filled, never to a count itself",
          "[self_checks][manifest]") {
  CheckLoaded l =
      load(manifest(R"([{ "name": "c", "expected": ["producer"], "observed": ["hits"], "unless_code": ["body"] }])"));
  REQUIRE(l.f);
  PlanPoint p;
  // x counts hits in BPF: checked against the producer.
  auto x = self_checks_for(*l.f, *l.f->program("x"), p);
  REQUIRE(x.size() == 1);
  CHECK(x[0].expected == std::vector<MetricSource>{MetricSource{MetricSourceKind::Producer, "", "", {}}});
  CHECK(x[0].observed == std::vector<MetricSource>{MetricSource{MetricSourceKind::Counter, "bb_hits", "", {}}});
  // y reports its producer as hits: producer == producer would say nothing.
  CHECK(self_checks_for(*l.f, *l.f->program("y"), p).empty());
  // Inline body code may skip counting (`return;`): not checked.
  p.code.push_back(PlanCode{"body", "return;", {}, {}});
  CHECK(self_checks_for(*l.f, *l.f->program("x"), p).empty());
}

TEST_CASE("the shipped families check their double counts", "[self_checks][manifest]") {
  test::Families fams;
  REQUIRE_FALSE(fams.diags.has_errors());
  PlanPoint p;
  auto names = [&](const std::string &family, const std::string &prog) {
    const FamilyManifest &f = fams.get(family);
    std::vector<std::string> out;
    for (const auto &c : self_checks_for(f, *f.program(prog), p)) out.push_back(c.spec->name);
    return out;
  };
  using V = std::vector<std::string>;
  for (const char *prog : {"tp", "rawtp", "kernel-count"}) CHECK(names("trigger", prog) == V{"hits_vs_producer"});
  for (const char *prog : {"base", "driver", "kprobe", "fentry", "tp-kfunc"}) CHECK(names("trigger", prog).empty());
  for (const char *prog : {"uprobe-nop", "uprobe-push", "uprobe-ret", "uretprobe-nop", "uprobe-nop5",
                           "uprobe-multi-nop", "uretprobe-multi-ret", "usdt-nop", "usdt-nop5"})
    CHECK(names("uprobes", prog) == V{"hits_vs_producer"});
  CHECK(names("rename", "rawtp") == V{"runs_vs_renames"});
  for (const char *prog : {"base", "kprobe", "fexit"})
    CHECK(names("rename", prog) == (std::string(prog) == "base" ? V{} : V{"runs_vs_renames"}));
  CHECK(names("uprobes", "uprobe-base").empty());
  for (const char *prog : {"reserve_commit", "output", "perfbuf"})
    CHECK(names("ringbuf", prog) == V{"records_accounted"});
  // `when: pid_filter == true`: unfiltered programs count other processes' events too.
  p.params.emplace_back("pid_filter", test::num(0));
  CHECK(names("trigger", "tp").empty());
  CHECK(names("uprobes", "uprobe-nop").empty());
  test::set_param(p, "pid_filter", test::num(1));
  CHECK(names("trigger", "tp") == V{"hits_vs_producer"});
}

TEST_CASE("a self-check compares its two sums and names both counts", "[self_checks]") {
  SelfCheckSpec spec;
  spec.name = "records";
  spec.expected = {SelfCheckTerm{"", MetricSource{MetricSourceKind::Counter, "bb_records", "", {}}}};
  spec.observed = {SelfCheckTerm{"hits", {}}, SelfCheckTerm{"drops", {}}};
  ResolvedSelfCheck c{&spec,
                      {MetricSource{MetricSourceKind::Counter, "bb_records", "", {}}},
                      {MetricSource{MetricSourceKind::Consumer, "", "", {}},
                       MetricSource{MetricSourceKind::Counter, "bb_drops", "", {}}}};
  SourceTotals t{{"counter:bb_records", 1000}, {"consumer", 600}, {"counter:bb_drops", 400}};
  SelfCheck ok = evaluate_self_check(c, t);
  CHECK(ok.ok);
  CHECK(ok.expected == 1000);
  CHECK(ok.observed == 1000);
  CHECK(ok.detail == "expected counter:bb_records 1000; observed hits (consumer) 600 + drops (counter:bb_drops) 400; "
                     "over the whole run, read after every thread stopped");
  t["consumer"] = 599;  // one record lost: no slack
  SelfCheck bad = evaluate_self_check(c, t);
  CHECK_FALSE(bad.ok);
  CHECK(self_check_failure(bad) ==
        "self-check 'records' failed: expected 1000, observed 999 (expected counter:bb_records 1000; observed hits "
        "(consumer) 599 + drops (counter:bb_drops) 400; over the whole run, read after every thread stopped)");
}

TEST_CASE("self_checks go into the results JSON and are read back", "[self_checks][results]") {
  PlanPoint p;
  p.label = "a";
  PointResult r;
  r.self_checks = {SelfCheck{"hits_vs_producer", 12, 12, true, "d1"}, SelfCheck{"prefill", 5, 4, false, "d2"}};
  ResultsDoc doc;
  doc.points.push_back(point_result_to_json(p, r, "", 1, 1'000'000'000));
  auto rs = results_from_text(json_text(doc.to_json()), "a.json");
  INFO(test::error_text(rs));
  REQUIRE(rs);
  REQUIRE(rs->points.size() == 1);
  const auto &back = rs->points[0].self_checks;
  REQUIRE(back.size() == 2);
  CHECK(back[0].name == "hits_vs_producer");
  CHECK(back[0].expected == 12);
  CHECK(back[0].observed == 12);
  CHECK(back[0].ok);
  CHECK(back[0].detail == "d1");
  CHECK_FALSE(back[1].ok);
  CHECK(back[1].observed == 4);

  nlohmann::json j = nlohmann::json::parse(json_text(doc.to_json()));
  j["points"][0]["self_checks"][1]["ok"] = "no";
  CHECK(test::expect_error(results_from_text(json_text(j), "b.json")) ==
        "b.json: points[0].self_checks[1].ok: expected true or false, got a string");
  j["points"][0]["self_checks"][1].erase("ok");
  j["points"][0]["self_checks"][0].erase("observed");
  CHECK(test::expect_error(results_from_text(json_text(j), "b.json")) ==
        "b.json: points[0].self_checks[0].observed: missing");
  j["points"][0].erase("self_checks");  // files of older versions have none
  rs = results_from_text(json_text(j), "b.json");
  REQUIRE(rs);
  CHECK(rs->points[0].self_checks.empty());
}
