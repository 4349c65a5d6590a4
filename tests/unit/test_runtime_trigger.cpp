// Runtime tests (root + BPF): every trigger variant this kernel supports produces hits;
// the rest skip with a reason.
#include <catch2/catch.hpp>

#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

TEST_CASE("trigger variants run or skip with a reason", "[runtime][trigger]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  REQUIRE_FALSE(fams.diags.has_errors());
  const FamilyManifest &f = fams.get("trigger");
  FeatureProber prober;
  RunOptions opts;
  opts.prober = &prober;

  for (const auto &prog : f.programs) {
    DYNAMIC_SECTION("program " << prog.name) {
      PlanPoint p = test::make_point(f, prog.name, 1'000'000'000, 2'000'000'000);
      std::string err;
      auto obj = test::compile_point(p, fams, err);
      INFO(err);
      REQUIRE(!obj.empty());
      StopSource stop;
      PointResult r = run_point(p, f, obj, opts, stop);
      INFO(prog.name << ": " << to_string(r.status) << " " << r.reason);
      // Whether it can run here is the probes' call; what the point does must agree.
      bool supported = true;
      for (const auto &req : prog.requires_features) supported &= prober.check(req).available;
      if (!supported) {
        REQUIRE(r.status == PointResult::Status::Skipped);
        CHECK(r.reason.find(" not supported by this kernel (") != std::string::npos);
        CHECK(r.samples.empty());
        continue;
      }
      REQUIRE(r.status == PointResult::Status::Ok);
      CHECK(r.warmup.size() == 1);
      REQUIRE(r.samples.size() == 2);
      for (const auto &s : r.samples) CHECK(s.deltas.at("hits") > 0);
      const MetricSummary *hits = r.summary.find("hits");
      REQUIRE(hits);
      CHECK(hits->mean > 0);
      CHECK(hits->n == 2);
    }
  }
}

TEST_CASE("trigger: the kernel's missing features skip with their reason", "[runtime][trigger]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  const FamilyManifest &f = fams.get("trigger");
  FeatureProber prober;
  RunOptions opts;
  opts.prober = &prober;
  for (const char *name : {"fentry", "kprobe"}) {
    const std::string req = std::string("attach:") + name;
    FeatureStatus st = prober.check(req);
    if (st.available) {
      WARN(name << " works on this kernel: nothing to check");
      continue;
    }
    PlanPoint p = test::make_point(f, name);
    StopSource stop;
    // Skipping happens before the object is even opened.
    PointResult r = run_point(p, f, {}, opts, stop);
    CHECK(r.status == PointResult::Status::Skipped);
    CHECK(r.reason == std::string(name) + " not supported by this kernel (" + st.reason + ")");
  }
}

TEST_CASE("trigger: samples are exact and batch_iters scales driver ops", "[runtime][trigger]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  const FamilyManifest &f = fams.get("trigger");
  PlanPoint p = test::make_point(f, "driver", 1'000'000'000, 2'000'000'000);
  for (auto &[n, v] : p.params)
    if (n == "batch_iters") v.i = 7;
  std::string err;
  auto obj = test::compile_point(p, fams, err);
  INFO(err);
  REQUIRE(!obj.empty());
  StopSource stop;
  PointResult r = run_point(p, f, obj, RunOptions{}, stop);
  REQUIRE(r.status == PointResult::Status::Ok);
  CHECK(r.warmup.size() == 1);
  REQUIRE(r.samples.size() == 2);
  for (const auto &s : r.samples) CHECK(s.deltas.at("hits") % 7 == 0);
  CHECK(r.summary.find("hits")->n == 2);
}
