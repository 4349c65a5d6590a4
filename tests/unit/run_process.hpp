// Test helper: run a command, capture stdout/stderr and the exit code (or signal).
#pragma once

#include <string>
#include <vector>

namespace bpfbench::test {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out, err;
};

// Runs argv[0] with the given args (no shell); stdin is /dev/null. `timeout_s` kills it.
ProcessResult run_process(const std::vector<std::string> &argv, int timeout_s = 60);

}  // namespace bpfbench::test
