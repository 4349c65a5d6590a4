// One runner of short real points for the runtime tests (root + BPF): loads the families,
// builds a point with some int params set, compiles it in-process and runs it through
// run_point. Points default to no warmup and two 250 ms intervals.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "runtime/stop.hpp"
#include "test_runtime_support.hpp"

namespace bpfbench::test {

struct PointRunner {
  static constexpr int64_t kInterval = 250'000'000;

  Families fams;
  FeatureProber prober;
  RunOptions opts;

  // Points of two `interval_ns` intervals, families from bpf_templates/ and `extra_dirs`.
  explicit PointRunner(std::vector<std::string> extra_dirs = {}, int64_t interval_ns = kInterval)
      : fams(std::move(extra_dirs)) {
    opts.prober = &prober;
    opts.interval_ns = interval_ns;
  }

  // `family`'s program `prog` with its defaults, the int params in `values` set.
  PlanPoint point(const std::string &family, const std::string &prog,
                  std::vector<std::pair<std::string, int64_t>> values = {}) {
    PlanPoint p = make_point(fams.get(family), prog, 0, 2 * opts.interval_ns);
    for (const auto &[n, v] : values) set_param(p, n, num(v));
    return p;
  }

  // Whether every feature the program requires is there on this kernel.
  bool supported(const std::string &family, const std::string &prog) {
    for (const auto &req : fams.get(family).program(prog)->requires_features)
      if (!prober.check(req).available) return false;
    return true;
  }

  PointResult run(const PlanPoint &p, StopSource &stop) {
    std::string err;
    auto obj = compile_point(p, fams, err);
    INFO(err);
    REQUIRE(!obj.empty());
    return run_point(p, fams.get(p.family), obj, opts, stop);
  }
  PointResult run(const PlanPoint &p) {
    StopSource stop;
    return run(p, stop);
  }
};

// A point that needs a kernel feature either ran or was skipped with the reason (then a
// WARN, and false).
inline bool ran_or_skipped(const PointResult &r) {
  INFO(r.reason);
  if (r.status == PointResult::Status::Skipped) {
    CHECK(r.reason.find("not supported by this kernel (") != std::string::npos);
    WARN("skipped: " << r.reason);
    return false;
  }
  REQUIRE(r.status == PointResult::Status::Ok);
  return true;
}

}  // namespace bpfbench::test
