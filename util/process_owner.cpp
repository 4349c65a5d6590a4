#include "util/process_owner.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iterator>

namespace bpfbench {

void die_with_parent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(126);
}

namespace {

// Field 22 of a /proc/<pid>/stat line and its state (field 3).
std::optional<uint64_t> start_ticks_of(pid_t pid, char *state) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text(std::istreambuf_iterator<char>(in), {});
  // The comm may hold spaces and parentheses: the fields start after the last ')'.
  size_t at = text.rfind(')');
  if (at == std::string::npos || at + 2 >= text.size()) return std::nullopt;
  // Field 3 (state) starts two characters after it; field 22 is 19 fields further.
  at += 2;
  if (state) *state = text[at];
  for (int field = 3; field < 22; ++field) {
    at = text.find(' ', at);
    if (at == std::string::npos) return std::nullopt;
    ++at;
  }
  uint64_t ticks = 0;
  auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), ticks);
  if (ec != std::errc()) return std::nullopt;
  return ticks;
}

}  // namespace

std::optional<uint64_t> process_start_ticks(pid_t pid) { return start_ticks_of(pid, nullptr); }

std::string own_stamp() {
  const pid_t pid = ::getpid();
  return std::to_string(pid) + "-" + std::to_string(process_start_ticks(pid).value_or(0));
}

std::optional<ProcessStamp> parse_stamp(std::string_view text) {
  ProcessStamp s;
  const char *p = text.data(), *end = text.data() + text.size();
  auto pid = std::from_chars(p, end, s.pid);
  if (pid.ec != std::errc() || s.pid <= 0 || pid.ptr == end || *pid.ptr != '-') return std::nullopt;
  auto start = std::from_chars(pid.ptr + 1, end, s.start_ticks);
  if (start.ec != std::errc() || (start.ptr != end && *start.ptr != '-')) return std::nullopt;
  return s;
}

bool stamp_owner_ended(const ProcessStamp &stamp) {
  // A zombie has ended too: it holds no cgroup, no file, no lock any more.
  char state = '?';
  std::optional<uint64_t> now = start_ticks_of(stamp.pid, &state);
  return !now || *now != stamp.start_ticks || state == 'Z' || state == 'X';
}

}  // namespace bpfbench
