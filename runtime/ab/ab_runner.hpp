// The `ab` comparison of one matched point, below the CLI: interleaved when both sides can
// share one process (runtime/ab/interleavable.hpp), else whole point runs in ABBA turns
// until the stop rule. session/ab_session.hpp matches the points, the CLI prints; tests
// call this in-process.
#pragma once

#include <functional>
#include <string>

#include "results/ab_report.hpp"
#include "runtime/ab/interleave_run.hpp"
#include "runtime/ab/interleavable.hpp"
#include "runtime/run_point.hpp"
#include "runtime/verifier_log.hpp"

namespace bpfbench {

// How points are compared: interleaved where they can be (auto), or always in turns.
enum class AbMethodChoice { Auto, Turns };

struct AbRunOptions {
  AbMethodChoice method = AbMethodChoice::Auto;
  InterleaveOptions interleave;  // its user_floor_pct is set per point by run_ab_point
  AbStopRule turns;              // the turns' stop rule
  AbTurnValue turn_value = AbTurnValue::Fast;
  RunOptions run;  // verbose, prober: each turn's run_point
  // A one-line status after each round or pair ("[i/n] point elapsed ... B/A ...").
  std::function<void(const std::string &)> progress;
  // Where the verifier's whole log of a refused load is kept (a point's note names the
  // file); null: the note has the first line of the error only.
  VerifierLogFolder *logs = nullptr;
};

// Runs one matched point (i of n, for progress) and returns its report, judged against
// `user_floor_pct` (--threshold, --floor-from). A failed step is the report's note.
AbPointReport run_ab_point(const AbSideInput &a, const AbSideInput &b, const AbRunOptions &o, double user_floor_pct,
                           size_t i, size_t n, StopSource &stop);

}  // namespace bpfbench
