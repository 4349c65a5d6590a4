// `bpfbench ab FILE --a-kernel K1 --b-kernel K2`: turns in qemu guests of the two kernels
// (vm/guest_run.hpp), one guest run per turn over every matched point.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "results/ab_report.hpp"
#include "runtime/stop.hpp"
#include "session/ab_args.hpp"

namespace bpfbench {

// What the guest turns need of the process that runs them, and where they say things.
struct GuestTurnsIo {
  std::string program;                            // the bpfbench binary each guest runs (the CLI: itself)
  std::function<void(const std::string &)> say;   // a progress or error line ("error: …")
  std::function<void(const std::string &)> dump;  // a failed guest's console tail or stderr, as it is
};

// The guest's command for one turn over `labels`: `run FILE -q --calibration off --json
// JSON --only LABEL...` with the ab command's harness overrides and template folders.
std::vector<std::string> guest_turn_argv(const AbArgs &a, const std::string &program,
                                         const std::vector<std::string> &labels, const std::string &json);

// Runs the turns of `reps` (suite and label set, one per matched point of a.files[0]) in
// ABBA order, A on a.a_kernel and B on a.b_kernel, until each point's stop rule holds or
// it has no value (its note says why). `timing_note` is set when the guests are emulated
// (TCG): every point then gets that note, so it shows its ratios but no verdict. False
// (said) when a kernel cannot be had or a guest run fails.
bool run_kernel_turns(const AbArgs &a, const GuestTurnsIo &io, StopSource &stop, std::vector<AbPointReport> &reps,
                      std::string &timing_note);

}  // namespace bpfbench
