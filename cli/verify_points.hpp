// The points a command is about to load, verified first (runtime/verify_point.hpp): every
// refusal printed at its point's place in the .bdsl, the verifier's whole log in a file.
// `check --verify` stops there; `run` and `ab` measure nothing when a point is refused.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/pipeline.hpp"
#include "runtime/stop.hpp"

namespace bpfbench::cli {

// One variant's points: its front end and compiled objects; `side` names it in messages
// ("" for check and run, "A" / "B" for ab).
struct VerifySide {
  const Frontend *fe = nullptr;
  const CompiledPrograms *programs = nullptr;
  std::vector<const PlanPoint *> points;
  std::string side;
};

struct VerifyTally {
  size_t verified = 0;     // every program loaded
  size_t refused = 0;      // a program or map could not be loaded
  size_t skipped = 0;      // a kernel feature is missing (the run skips them too)
  size_t no_programs = 0;  // points that load no BPF program
  bool interrupted = false;
};

// "3 points verified[, 1 not loaded (a kernel feature it requires is missing here)][, 1
// loads no BPF program]".
std::string tally_text(const VerifyTally &t);

// Every point of every side, in order (a stop request ends it between points); each
// refusal is printed to stderr as it is found. Logs go to bpfbench-verifier-logs/ in the
// current folder.
VerifyTally verify_points(const std::vector<VerifySide> &sides, const StopSource &stop);

// `run` and `ab` before their first measurement: nullopt when every point may run (or a
// stop request ended the loads: the command ends as it does on a stop); else the exit
// code, after the refusals and one closing line.
std::optional<int> verify_before_measuring(const std::vector<VerifySide> &sides, const StopSource &stop);

// All points of `fe`'s plan (run's and check's side).
VerifySide plan_side(const Frontend &fe, const CompiledPrograms &programs);

}  // namespace bpfbench::cli
