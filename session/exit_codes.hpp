// The process exit codes the commands return; the session decides them (a run's tally, a
// refused point), the CLI returns them from main.
#pragma once

namespace bpfbench {

// 0 success, 1 a run that partly failed, 2 bad input or unusable environment, 130/143
// interrupted by SIGINT/SIGTERM (runtime/stop.hpp: exit_code_for).
constexpr int kExitOk = 0;
constexpr int kExitPartial = 1;
constexpr int kExitBadInput = 2;

}  // namespace bpfbench
