#include "util/limit_hints.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <vector>

namespace bpfbench {

std::string bytes_text(int64_t b) {
  if (b >= (int64_t{1} << 30)) return fmt::format("{:.1f} GiB", double(b) / double(int64_t{1} << 30));
  return fmt::format("{:.0f} MiB", double(b) / double(int64_t{1} << 20));
}

std::string task_limit_hint() {
  std::vector<std::string> limits;
  rlimit rl{};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    limits.push_back(fmt::format("the address-space limit (RLIMIT_AS, `ulimit -v`, now {})",
                                 bytes_text(static_cast<int64_t>(rl.rlim_cur))));
  // Root is exempt from RLIMIT_NPROC (CAP_SYS_RESOURCE).
  if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    limits.push_back(fmt::format("the process limit (RLIMIT_NPROC, `ulimit -u`, now {})", rl.rlim_cur));
  if (limits.empty())
    return "raise the kernel's task limits (kernel.threads-max, kernel.pid_max) or the cgroup's pids.max";
  std::string out = "raise " + limits[0];
  for (size_t i = 1; i < limits.size(); ++i) out += " or " + limits[i];
  return out;
}

std::string memory_limit_hint() {
  rlimit rl{};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    return fmt::format("raise the address-space limit (RLIMIT_AS, `ulimit -v`, now {})",
                       bytes_text(static_cast<int64_t>(rl.rlim_cur)));
  return "the machine has no memory left: free some or add swap";
}

}  // namespace bpfbench
