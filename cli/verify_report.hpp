// The refusals of the points verified before measuring (session/verify_points.hpp), printed
// at their points' places in the .bdsl, and the closing line of `run` and `ab`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "session/verify_points.hpp"

namespace bpfbench::cli {

// "3 points verified[, 1 not loaded (a kernel feature it requires is missing here)][, 1
// loads no BPF program]".
std::string tally_text(const VerifyTally &t);

// verify_points with each refusal printed to stderr as it is found.
VerifyTally verify_and_print(const std::vector<VerifySide> &sides, const StopSource &stop);

// `run` and `ab` before their first measurement: nullopt when every point may run (or a
// stop request ended the loads: the command ends as it does on a stop); else the exit
// code, after the refusals and one closing line.
std::optional<int> verify_before_measuring(const std::vector<VerifySide> &sides, const StopSource &stop);

}  // namespace bpfbench::cli
