// The one ABBA turn loop of `ab`: host turns (whole point runs, one point at a time:
// runtime/ab/ab_runner.cpp) and guest turns (one guest boot per turn runs every point still
// live: session/ab_kernels.cpp) differ only in what a turn is; which side goes next, which points
// are still live, the stop rule after each pair and what an interruption leaves are here.
#pragma once

#include <functional>
#include <vector>

#include "results/ab_report.hpp"

namespace bpfbench {

struct AbTurnLoop {
  AbStopRule rule;
  // Runs turn `turn` (0-based) on `side` for the points `live` (indexes into the reports):
  // records each one's value (AbPointReport::add_turn) or its note. False: the turn failed as
  // a whole (the callee said why) and the loop ends.
  std::function<bool(size_t turn, AbSide side, const std::vector<size_t> &live)> run_turn;
  // After each turn, with the seconds since the loop started; after an odd turn (a complete
  // pair) the live points' stop states are already updated.
  std::function<void(size_t turn, AbSide side, const std::vector<size_t> &live, double elapsed_s)> after_turn;
  std::function<bool()> stopped;  // a stop request (SIGINT): the loop ends after the turn
};

// Turns A B B A ... until no point is live (each stopped by the rule or given a note). A
// point is live while its stop state is Continue and it has no note. Points still live when
// a stop was requested get the note "interrupted". False when a turn failed as a whole.
bool run_abba_turns(std::vector<AbPointReport *> reps, const AbTurnLoop &loop);

}  // namespace bpfbench
