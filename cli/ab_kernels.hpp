// `bpfbench ab FILE --a-kernel K1 --b-kernel K2`: turns in qemu guests of the two kernels
// (vm/guest_run.hpp), one guest run per turn over every matched point.
#pragma once

#include <string>
#include <vector>

#include "cli/ab.hpp"
#include "results/ab_report.hpp"
#include "runtime/stop.hpp"

namespace bpfbench::cli {

// Runs the turns of `reps` (suite and label set, one per matched point of a.files[0]) in
// ABBA order, A on a.a_kernel and B on a.b_kernel, until each point's stop rule holds or
// it has no value (its note says why). `timing_note` is set when the guests are emulated
// (TCG): every point then gets that note, so it shows its ratios but no verdict. False
// (message printed) when a kernel cannot be had or a guest run fails.
bool run_kernel_turns(const AbArgs &a, StopSource &stop, std::vector<AbPointReport> &reps, std::string &timing_note);

}  // namespace bpfbench::cli
