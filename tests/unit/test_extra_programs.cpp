// A program's `extra_programs`: all loaded with it; all but the test_run driver attached
// (runtime/run_point.cpp). Which ones (no root), and that they really count (root + BPF).
#include <catch2/catch.hpp>

#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

using Names = std::vector<std::string>;

const ProgramSpec &program_of(const FamilyManifest &f, const std::string &name) {
  const ProgramSpec *p = f.program(name);
  REQUIRE(p);
  return *p;
}

PointResult run(const test::Families &fams, const PlanPoint &p, FeatureProber &prober) {
  std::string err;
  auto obj = test::compile_point(p, fams, err);
  INFO(err);
  REQUIRE(!obj.empty());
  RunOptions opts;
  opts.prober = &prober;
  opts.interval_ns = 250'000'000;
  StopSource stop;
  return run_point(p, fams.get(p.family), obj, opts, stop);
}

}  // namespace

TEST_CASE("extra programs: the test_run driver is run, every other extra is attached", "[manifest][extra]") {
  test::Families fams({test::fixtures_dir()});
  INFO(render_all(fams.diags, SourceManager{}));
  const FamilyManifest &trig = fams.get("trigger");
  // Batched trigger variants: the extra is the driver BPF_PROG_TEST_RUN runs.
  for (const char *v : {"driver", "kprobe", "fentry", "rawtp-kfunc"}) {
    INFO(v);
    CHECK(attached_extra_programs(trig, program_of(trig, v)).empty());
    CHECK_FALSE(test_run_driver(trig, program_of(trig, v)).empty());
  }
  CHECK(test_run_driver(trig, program_of(trig, "kprobe")) == "bench_driver");
  CHECK(test_run_driver(trig, program_of(trig, "kernel-count")) == "bench_kernel_count");  // runs itself
  CHECK(test_run_driver(trig, program_of(trig, "tp")).empty());                            // syscall producer

  const FamilyManifest &rcu = fams.get("rcu_tasks_trace");
  CHECK(attached_extra_programs(rcu, program_of(rcu, "gp-latency")) == Names{"bench_postgp", "bench_churn"});
  CHECK(attached_extra_programs(rcu, program_of(rcu, "churn")).empty());

  const FamilyManifest &fx = fams.get("extra_attach");
  CHECK(attached_extra_programs(fx, program_of(fx, "main")) == Names{"bench_side"});
}

TEST_CASE("extra programs: an attached extra counts next to the program", "[runtime][extra]") {
  BB_REQUIRE_ROOT();
  test::Families fams({test::fixtures_dir()});
  FeatureProber prober;
  const FamilyManifest &fx = fams.get("extra_attach");

  PointResult r = run(fams, test::make_point(fx, "main", 0, 500'000'000), prober);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Ok);
  uint64_t hits = test::sampled_total(r, "hits"), side = test::sampled_total(r, "side");
  CHECK(hits > 0);
  CHECK(side > 0);
  // Both count every getpgid() of bpfbench; reads of the two counters are not atomic
  // together, so allow the few calls that land between them.
  CHECK(double(side) > 0.9 * double(hits));
  CHECK(double(side) < 1.1 * double(hits));

  // An extra that cannot attach fails the point and says which one.
  PointResult bad = run(fams, test::make_point(fx, "bad-extra", 0, 250'000'000), prober);
  CHECK(bad.status == PointResult::Status::Failed);
  CHECK(bad.reason.find("bench_nowhere") != std::string::npos);
  CHECK(bad.reason.rfind("attach: ", 0) == 0);
}

TEST_CASE("extra programs: rcu_tasks_trace gp-latency times grace periods where fentry works", "[runtime][extra]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  FeatureProber prober;
  const FamilyManifest &rcu = fams.get("rcu_tasks_trace");
  PlanPoint p = test::make_point(rcu, "gp-latency", 0, 2'000'000'000);
  for (auto &[n, v] : p.params)
    if (n == "nr_procs") v.i = 10;
  PointResult r = run(fams, p, prober);
  INFO(r.reason);
  if (!prober.check("attach:fentry").available) {
    // This VM's 6.18 kernel: the whole program is skipped with the probe's reason.
    CHECK(r.status == PointResult::Status::Skipped);
    CHECK(r.reason.rfind("fentry not supported by this kernel (", 0) == 0);
    return;
  }
  REQUIRE(r.status == PointResult::Status::Ok);
  CHECK(test::sampled_total(r, "hits") > 0);  // bench_churn, an extra, ran
  CHECK(test::sampled_total(r, "gp") > 0);    // bench_postgp, an extra, ran after bench_pregp
  const MetricSummary *lat = r.summary.find("gp_latency");
  REQUIRE(lat);
  CHECK(lat->unit == "us");
  CHECK(lat->max > 0);
}
