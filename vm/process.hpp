// Child processes for the VM pieces: run a tool to completion, or spawn one and watch it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <string>
#include <vector>

namespace bpfbench::vm {

struct SpawnOptions {
  std::string stdin_path;  // "" = /dev/null
  off_t stdin_offset = 0;  // read stdin from this byte on (extract a payload from a file)
  int stdout_fd = -1;      // -1 = /dev/null
  int stderr_fd = -1;
  std::string cwd;                 // "" = inherit
  // A process group of its own, led by the child: terminal ^C reaches us, not the child
  // (we stop it cleanly), and kill_process_group() reaches what it started too.
  bool new_process_group = false;
};

// fork + execvp with the signal mask reset (callers may block SIGINT/SIGTERM for the
// SignalWatcher). The child is SIGKILLed when the calling thread dies (PR_SET_PDEATHSIG:
// spawn only from a thread that waits for the child), so bpfbench killed outright leaves
// no child running. Returns the pid, or -errno when the program could not be started
// (ENOENT: not installed).
pid_t spawn_process(const std::vector<std::string> &argv, const SpawnOptions &opts);

struct ProcResult {
  bool started = false;  // false: the program is missing (error says which)
  int exit_code = -1;    // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  std::string out, err;
  std::string error;  // "xz: not found" and the like
  bool ok() const { return started && exit_code == 0; }
};

struct RunOptions {
  std::string stdin_path;
  off_t stdin_offset = 0;
  std::string cwd;
  double timeout_s = 0;                     // 0 = none
  const std::atomic<bool> *stop = nullptr;  // kills the child when set
};

// SIGKILL to the process group `pid` leads (SpawnOptions::new_process_group) and to `pid`.
void kill_process_group(pid_t pid);

// Runs to completion in a process group of its own, capturing stdout and stderr; a stop
// or the timeout kills the group.
ProcResult run_command(const std::vector<std::string> &argv, const RunOptions &opts = {});

// Last `max_lines` lines of `text` (console tails in error messages).
std::string tail_lines(const std::string &text, size_t max_lines);

}  // namespace bpfbench::vm
