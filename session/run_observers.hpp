// `run --profile[=folded]` and `run --hw-counters`: probed once before the run, with one
// message when the machine cannot (the run then goes on without them).
#pragma once

#include <optional>
#include <string>

#include <vector>

#include "compiler/pipeline.hpp"
#include "util/error.hpp"
#include "runtime/profiler.hpp"
#include "session/run_args.hpp"

namespace bpfbench {

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
// (check_output_paths). A missing perf or PMU is a note or warning in `said` ("note: …",
// "warning: …", in order) and the run goes on without them; a bad path is the error (exit 2),
// after what `said` holds.
Result<RunObservers> prepare_observers(const RunArgs &a, const Frontend &fe, std::vector<std::string> &said);

}  // namespace bpfbench
