// The points a command is about to load, verified first (runtime/verify_point.hpp): each
// refusal told with its point's place in the .bdsl, the verifier's whole log kept in a file.
// `check --verify` stops there; `run` and `ab` measure nothing when a point is refused
// (cli/verify_report.hpp prints the refusals and the closing line).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/pipeline.hpp"
#include "runtime/stop.hpp"
#include "runtime/verify_point.hpp"

namespace bpfbench {

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

// A point the kernel refused: where it is, what failed, where its log was kept.
struct Refusal {
  const PlanPoint *point = nullptr;
  const PointCheck *check = nullptr;
  RefusalPlace where;  // location, label, side, the source file the verifier named
  KeptLog kept;        // the whole log's file (or why it could not be written); none for a refusal `same_as`
  // PointCheck::same_as: the label and side of the earlier point refused the same way
  // (nullopt when that point is not known).
  std::optional<std::pair<std::string, std::string>> same_as;
};

// Every point of every side, in order (a stop request ends it between points); each
// refusal is handed to `refused` as it is found. Logs go to bpfbench-verifier-logs/ in
// `logs_parent` (the current folder).
VerifyTally verify_points(const std::vector<VerifySide> &sides, const StopSource &stop,
                          const std::function<void(const Refusal &)> &refused, const std::string &logs_parent = ".");

// All points of `fe`'s plan (run's and check's side).
VerifySide plan_side(const Frontend &fe, const CompiledPrograms &programs);

}  // namespace bpfbench
