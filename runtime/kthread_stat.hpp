// CPU time of a kernel thread from /proc (metric source "kthread_stime:<comm>").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "util/error.hpp"

namespace bpfbench {

// The pid of the first process whose /proc/<pid>/comm is `comm`, if any.
std::optional<pid_t> find_process_by_comm(const std::string &comm);

// Field 15 (stime, in clock ticks) of /proc/<pid>/stat.
std::optional<uint64_t> read_stime_ticks(pid_t pid);

// Per-interval deltas of a kthread's stime; 0 when the thread is gone.
class KthreadStime {
 public:
  // Fails when the thread cannot be watched.
  Result<> init(const std::string &comm);
  // The same for the process `pid` (the kernel bench's --kthread_pid): whatever it runs.
  Result<> init_pid(pid_t pid);
  uint64_t take();

 private:
  pid_t pid_ = -1;
  uint64_t last_ = 0;
};

}  // namespace bpfbench
