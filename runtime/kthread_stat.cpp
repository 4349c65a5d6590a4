#include "runtime/kthread_stat.hpp"

#include <dirent.h>

#include <fstream>
#include <sstream>

namespace bpfbench {

std::optional<pid_t> find_process_by_comm(const std::string &comm) {
  DIR *d = opendir("/proc");
  if (!d) return std::nullopt;
  std::optional<pid_t> found;
  while (dirent *e = readdir(d)) {
    char *end = nullptr;
    long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/comm");
    std::string c;
    if (std::getline(in, c) && c == comm) {
      found = static_cast<pid_t>(pid);
      break;
    }
  }
  closedir(d);
  return found;
}

std::optional<uint64_t> read_stime_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  // comm (field 2) may hold spaces: fields after it start behind the last ')'.
  size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(close + 1));
  std::string field;
  // Fields 3..14 (state .. utime), then 15 = stime.
  for (int i = 3; i <= 14; ++i)
    if (!(rest >> field)) return std::nullopt;
  uint64_t stime = 0;
  if (!(rest >> stime)) return std::nullopt;
  return stime;
}

Result<> KthreadStime::init(const std::string &comm) {
  auto pid = find_process_by_comm(comm);
  if (!pid) return Error("no kernel thread '" + comm + "' on this kernel");
  pid_ = *pid;
  last_ = read_stime_ticks(pid_).value_or(0);
  return {};
}

Result<> KthreadStime::init_pid(pid_t pid) {
  auto ticks = read_stime_ticks(pid);
  if (!ticks)
    return Error("cannot read /proc/" + std::to_string(pid) + "/stat (no process " + std::to_string(pid) + ")");
  pid_ = pid;
  last_ = *ticks;
  return {};
}

uint64_t KthreadStime::take() {
  if (pid_ < 0) return 0;
  auto now = read_stime_ticks(pid_);
  if (!now) return 0;
  uint64_t d = *now >= last_ ? *now - last_ : 0;
  last_ = *now;
  return d;
}

}  // namespace bpfbench
