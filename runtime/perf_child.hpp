// A helper program (perf) run as a child that dies with us: PR_SET_PDEATHSIG, stdin on
// /dev/null, stdout and stderr into one pipe we read, stop signals unblocked for it, and
// killed and reaped by the destructor on every path (util/limited_child.hpp is the
// same idea for a function; perf must write files and stop on SIGINT, so it gets its own).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {

class PerfChild {
 public:
  PerfChild() = default;
  ~PerfChild();
  PerfChild(const PerfChild &) = delete;
  PerfChild &operator=(const PerfChild &) = delete;

  // Forks and execs argv[0] (searched on PATH). An exec failure shows as exit 127.
  // `pass` are fds the child gets as 3, 4, ... (perf's --control fd:3,4). `cwd_fd`, when
  // not -1, is an open folder the child works in (fchdir): its relative paths name files
  // in that very folder, whatever is renamed on the folder's path meanwhile.
  Result<> start(const std::vector<std::string> &argv, const std::vector<int> &pass = {}, int cwd_fd = -1);
  bool running() const { return pid_ > 0; }
  // Sends `sig`, then waits up to `timeout_ms` for the exit (reading the output all the
  // while); SIGKILL after that. The wait status, or nullopt when it had to be killed.
  std::optional<int> stop(int sig, int timeout_ms);
  // Reads the output until the child exits, at most `max_bytes` (then it is killed) and
  // `timeout_ms`; `stop` (may be null) ends it early. The wait status, or an Error.
  Result<int> wait_all(size_t max_bytes, int timeout_ms, const std::atomic<bool> *stop);
  // What the child wrote to stdout and stderr so far.
  const std::string &output() const { return out_; }
  // Whether it has exited already (not reaped).
  bool exited() const;

 private:
  bool drain(size_t max_bytes);
  int reap(bool kill);
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string out_;
};

// argv run to its end with its output: ("perf", "--version") -> "perf version 6.1".
struct CapturedRun {
  int status = 0;  // wait status
  std::string output;
  bool ok() const;  // exited with 0
};
// `cwd_fd` as for PerfChild::start.
Result<CapturedRun> run_captured(const std::vector<std::string> &argv, size_t max_bytes, int timeout_ms,
                                 const std::atomic<bool> *stop = nullptr, int cwd_fd = -1);

}  // namespace bpfbench
