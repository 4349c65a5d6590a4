// A function run in a forked child under resource limits, its output collected over a
// pipe, the child killed and reaped on every way the call ends (docs/security.md).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace bpfbench {

// 0 = no limit of that kind.
struct ChildLimits {
  // RLIMIT_AS: the address space the child may add to what it inherits at fork (the
  // parent's libraries and heap are mapped in the child too, so the limit is relative).
  uint64_t memory_bytes = 0;
  unsigned cpu_seconds = 0;   // RLIMIT_CPU (SIGXCPU, then SIGKILL a second later)
  unsigned wall_seconds = 0;  // enforced by the parent: SIGKILL after this long
};

struct ChildEnd {
  enum class How {
    Exited,       // `code` = exit status; `output` = what it wrote
    Signaled,     // `code` = the signal (a crash)
    MemoryLimit,  // ran out of memory under its RLIMIT_AS
    CpuLimit,
    WallLimit,
    Stopped,     // the stop flag was set: killed, not waited for
    NotStarted,  // `error` says why (pipe, fork)
  };
  How how = How::NotStarted;
  int code = 0;
  std::string output;
  std::string error;
  uint64_t address_space_limit = 0;     // the RLIMIT_AS the child got (0 = none)
  bool inherited_memory_limit = false;  // ...which was bpfbench's own, lower than ours
  unsigned cpu_limit = 0;               // the RLIMIT_CPU the child got, in seconds (0 = none)
  bool inherited_cpu_limit = false;     // ...which was bpfbench's own
  double cpu_s = 0;                     // user + system time of the child
  long max_rss_kb = 0;                  // its peak resident set
};

// The exit status a child uses when an allocation fails (operator new, or a library's
// out-of-memory hook that calls child_out_of_memory()).
inline constexpr int kChildOutOfMemoryExit = 72;
[[noreturn]] void child_out_of_memory();

// Forks. In the child: SIGKILL when the forking thread dies (PR_SET_PDEATHSIG, checked
// against a parent that died before it was set), stdin/stdout/stderr on /dev/null, every
// other fd closed but the pipe, no core dumps, no file writes (RLIMIT_FSIZE 0), the
// limits; then `body(fd)` writes its result to `fd` and must _exit. The parent reads up
// to `max_output` bytes, polling `stop` (may be null) every 50 ms, and kills the child
// on a stop, at the wall-clock limit or when the output is too long. Never leaves the
// child running or unreaped, also when this call throws.
ChildEnd run_limited_child(const std::function<void(int fd)> &body, const ChildLimits &limits,
                           const std::atomic<bool> *stop, size_t max_output);

}  // namespace bpfbench
