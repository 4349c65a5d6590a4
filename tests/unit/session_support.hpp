// Test helpers for the session library in-process: a front end made from .bdsl text (with
// its programs compiled), and a RunListener that records what a run tells.
#pragma once

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"
#include "session/inputs.hpp"
#include "session/run_session.hpp"

namespace bpfbench::test {

// `text`'s front end (as `run` loads it: session/inputs.hpp) and, with `compile`, its
// programs; REQUIREs that both went without an error.
struct Loaded {
  Frontend fe;
  CompiledPrograms programs;

  explicit Loaded(const std::string &text, PlanOverrides overrides = {}, bool compile = true) {
    FileArgs in;
    in.file = "<test>";
    in.text = text;
    in.overrides = std::move(overrides);
    const bool ok = run_frontend_for(in, fe);
    std::string diags;
    for (const auto &d : fe.diags.all()) diags += render(d, fe.sources);
    INFO(diags);
    REQUIRE(ok);
    REQUIRE_FALSE(fe.diags.has_errors());
    if (compile) REQUIRE(compile_programs(fe, programs));
  }
};

// Everything a RunSession tells, in order: "setup LABEL ROUND", "round LABEL ROUND",
// "final LABEL", "calibration WHEN", "done"; the final results by label.
struct RunRecorder : RunListener {
  std::vector<std::string> events;
  std::map<std::string, PointResult> finals;
  std::vector<CalibrationPoint> calibrations;
  std::vector<std::string> errors;  // calibration failures and results files not written
  std::map<std::string, int> samples, warmups, started_count;

  void calibrated(const CalibrationPoint &c) override {
    calibrations.push_back(c);
    events.push_back("calibration " + c.when);
  }
  void calibration_failed(const std::string &why) override { errors.push_back(why); }
  void round_starting(const PlanPoint &p, int round) override {
    events.push_back(fmt::format("setup {} {}", p.label, round));
  }
  void started(const PlanPoint &p) override { ++started_count[p.label]; }
  void sample(const PlanPoint &p, int, const Sample &, bool warmup) override {
    ++(warmup ? warmups : samples)[p.label];
  }
  void round_done(const PlanPoint &p, int round, const PointResult &) override {
    events.push_back(fmt::format("round {} {}", p.label, round));
  }
  void point_final(const PlanPoint &p, const PointResult &r, bool) override {
    events.push_back("final " + p.label);
    finals[p.label] = r;
  }
  void points_done() override { events.push_back("done"); }
  void file_error(const std::string &why) override { errors.push_back(why); }

  // The events that start with `kind` ("setup", "final"), in order.
  std::vector<std::string> of(const std::string &kind) const {
    std::vector<std::string> out;
    for (const auto &e : events)
      if (e.rfind(kind + " ", 0) == 0) out.push_back(e.substr(kind.size() + 1));
    return out;
  }
};

}  // namespace bpfbench::test
