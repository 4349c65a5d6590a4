#include "runtime/memory_cgroup.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace bpfbench {

namespace {

bool has_token(const std::string &list, char sep, const std::string &want) {
  std::istringstream in(list);
  for (std::string t; std::getline(in, t, sep);)
    if (t == want) return true;
  return false;
}

// The process's cgroup path in its v1 memory hierarchy or in the v2 one (/proc/self/cgroup).
std::string own_cgroup_path(bool v2) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string ctrls = line.substr(a + 1, b - a - 1);
    if (v2 ? (line.compare(0, a, "0") == 0 && ctrls.empty()) : has_token(ctrls, ',', "memory"))
      return line.substr(b + 1);
  }
  return "";
}

// Writes `text` to a cgroup control file in one write().
Result<> write_control(const std::string &path, const std::string &text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Error("cannot open " + path + ": " + errno_text(errno));
  ssize_t n = write(fd, text.data(), text.size());
  int e = errno;
  close(fd);
  if (n != ssize_t(text.size())) return Error("cannot write '" + text + "' to " + path + ": " + errno_text(e));
  return {};
}

bool file_holds_token(const std::string &path, const std::string &token) {
  std::ifstream in(path);
  std::string all;
  std::getline(in, all);
  return has_token(all, ' ', token);
}

// The mount point of the first /proc/self/mounts entry `want` accepts (type, options).
template <class Want>
std::string find_mount(Want want) {
  std::ifstream mounts("/proc/self/mounts");
  for (std::string dev, dir, type, opts, rest; mounts >> dev >> dir >> type >> opts && std::getline(mounts, rest);)
    if (want(type, opts)) return dir;
  return "";
}

}  // namespace

std::string cgroup2_mount() {
  return find_mount([](const std::string &type, const std::string &) { return type == "cgroup2"; });
}

Result<MemoryHierarchy> find_memory_hierarchy() {
  std::string v1 = find_mount(
      [](const std::string &type, const std::string &opts) { return type == "cgroup" && has_token(opts, ',', "memory"); });
  if (!v1.empty()) return MemoryHierarchy{v1, own_cgroup_path(false), 1};
  const std::string v2_mount = cgroup2_mount();
  if (v2_mount.empty()) return Error("no cgroup file system with a memory controller is mounted");
  if (!file_holds_token(v2_mount + "/cgroup.controllers", "memory"))
    return Error("the cgroup v2 hierarchy at " + v2_mount + " has no memory controller (cgroup.controllers)");
  return MemoryHierarchy{v2_mount, own_cgroup_path(true), 2};
}

Result<> MemoryCgroup::enter(bool need_peak) {
  auto h = find_memory_hierarchy();
  if (!h) return h.error();
  if (h->path.empty() || h->path[0] != '/') return Error("cannot tell this process's memory cgroup (/proc/self/cgroup)");
  version_ = h->version;
  home_ = h->mount + (h->path == "/" ? "" : h->path);
  // v2: only a cgroup without processes may give its children controllers, so the point's
  // cgroup is a child of the root (the kernel bench's place too).
  const std::string parent = version_ == 1 ? home_ : h->mount;
  if (version_ == 2 && !file_holds_token(parent + "/cgroup.subtree_control", "memory"))
    BB_TRY(write_control(parent + "/cgroup.subtree_control", "+memory"));
  auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  std::string dir = parent + "/bpfbench-" + std::to_string(getpid()) + "-" + std::to_string(stamp);
  if (mkdir(dir.c_str(), 0755) != 0) return Error("cannot make the memory cgroup " + dir + ": " + errno_text(errno));
  dir_ = dir;
  const char *cur = version_ == 1 ? "/memory.usage_in_bytes" : "/memory.current";
  const char *peak = version_ == 1 ? "/memory.max_usage_in_bytes" : "/memory.peak";
  current_fd_ = open((dir_ + cur).c_str(), O_RDONLY | O_CLOEXEC);
  peak_fd_ = open((dir_ + peak).c_str(), O_RDONLY | O_CLOEXEC);
  if (current_fd_ < 0) return Error("cannot open " + dir_ + cur + ": " + errno_text(errno));
  if (need_peak && peak_fd_ < 0)
    return Error(std::string("this kernel's memory cgroup has no ") + (peak + 1) + " (" + errno_text(errno) + ")");
  return write_control(dir_ + "/cgroup.procs", std::to_string(getpid()));
}

uint64_t MemoryCgroup::read(const std::string &which) const {
  int fd = which == "peak" ? peak_fd_ : current_fd_;
  if (fd < 0) return 0;
  char buf[32];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  return strtoull(buf, nullptr, 10);
}

Result<> MemoryCgroup::leave() {
  if (dir_.empty()) return {};
  for (int *fd : {&current_fd_, &peak_fd_})
    if (*fd >= 0) close(std::exchange(*fd, -1));
  std::string dir = std::exchange(dir_, "");
  Result<> back = write_control(home_ + "/cgroup.procs", std::to_string(getpid()));
  // The moved-out threads leave the cgroup's task list a moment later: retry for ~1 s.
  for (int i = 0; i < 100; ++i) {
    if (rmdir(dir.c_str()) == 0 || errno == ENOENT) return back;
    if (errno != EBUSY) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!back) return back;
  return Error("cannot remove the memory cgroup " + dir + ": " + errno_text(errno));
}

MemoryCgroup::~MemoryCgroup() { (void)leave(); }

}  // namespace bpfbench
