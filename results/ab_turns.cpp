#include "results/ab_turns.hpp"

#include <chrono>

namespace bpfbench {

namespace {

std::vector<size_t> live_points(const std::vector<AbPointReport *> &reps) {
  std::vector<size_t> live;
  for (size_t i = 0; i < reps.size(); ++i)
    if (reps[i]->stop == AbStop::Continue && reps[i]->note.empty()) live.push_back(i);
  return live;
}

}  // namespace

bool run_abba_turns(std::vector<AbPointReport *> reps, const AbTurnLoop &loop) {
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
  for (size_t turn = 0; !loop.stopped(); ++turn) {
    const std::vector<size_t> live = live_points(reps);
    if (live.empty()) break;
    const AbSide side = abba_side(turn);
    if (!loop.run_turn(turn, side, live)) {
      ok = false;
      break;
    }
    if (loop.stopped()) break;  // an interrupted turn is no value
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // After a pair, each point that completed it (a point whose turn made no value has a
    // note and no stop state: its note says why it ended).
    if (turn % 2 == 1)
      for (size_t i : live)
        if (reps[i]->a.size() == (turn + 1) / 2) reps[i]->stop = ab_stop_state(reps[i]->stats, loop.rule, elapsed);
    if (loop.after_turn) loop.after_turn(turn, side, live, elapsed);
  }
  if (loop.stopped())
    for (size_t i : live_points(reps)) reps[i]->note = "interrupted";
  return ok;
}

}  // namespace bpfbench
