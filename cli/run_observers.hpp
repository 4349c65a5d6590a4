// `run --profile[=folded]` and `run --hw-counters`: probed once before the run, with one
// message when the machine cannot (the run then goes on without them).
#pragma once

#include <optional>
#include <string>

#include "cli/run_commands.hpp"
#include "compiler/pipeline.hpp"
#include "runtime/profiler.hpp"

namespace bpfbench::cli {

struct RunObservers {
  std::optional<ProfileOptions> profile;  // set when --profile and perf runs here
  bool hw_counters = false;               // --hw-counters and a PMU here
};

// Where the profiles folder `profiles/` is: the folder of the --json file (else of --csv,
// --markdown, else the current directory).
std::string profiles_parent(const RunArgs &a);

// Probes perf and the PMU as asked, opens or creates the profiles folder (not through
// another user's symlink, not another user's folder: runtime/profiler.hpp) and this run's
// private folder in it, and checks every point's profile files like the other outputs
// (check_output_paths). False after printing why when a path is bad (exit 2); a missing
// perf or PMU is a warning and the run goes on.
bool prepare_observers(const RunArgs &a, const Frontend &fe, RunObservers &out);

}  // namespace bpfbench::cli
