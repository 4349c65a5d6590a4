#include "runtime/memory_cgroup.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "util/process_owner.hpp"

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

constexpr const char *kOwnCgroupHint =
    "run bpfbench in a cgroup of its own with the memory controller delegated to it, e.g. "
    "`systemd-run --scope -p Delegate=yes bpfbench run ...`";

// Writes `text` to a cgroup control file in one write(); 0 or the errno.
int write_control_errno(const std::string &path, const std::string &text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = write(fd, text.data(), text.size());
  int e = n == ssize_t(text.size()) ? 0 : n < 0 ? errno : EIO;
  close(fd);
  return e;
}

Result<> write_control(const std::string &path, const std::string &text) {
  if (int e = write_control_errno(path, text); e != 0)
    return Error("cannot write '" + text + "' to " + path + ": " + errno_text(e));
  return {};
}

// "pid 812 (bash), pid 901 (sleep)": the processes of a v2 cgroup other than this one.
std::string other_processes(const std::string &cgroup) {
  std::ifstream procs(cgroup + "/cgroup.procs");
  std::string out;
  int shown = 0;
  for (pid_t pid = 0; procs >> pid;) {
    if (pid == getpid()) continue;
    if (++shown > 4) return out + ", ...";
    std::ifstream comm_file("/proc/" + std::to_string(pid) + "/comm");
    std::string comm;
    std::getline(comm_file, comm);
    out += (out.empty() ? "" : ", ") + ("pid " + std::to_string(pid)) + (comm.empty() ? "" : " (" + comm + ")");
  }
  return out.empty() ? "processes that left since" : out;
}

// Whether a point cgroup named `name` (kCgroupPrefix + the rest) was made by a process that
// has ended: see remove_ended_cgroups().
bool made_by_ended_process(const std::string &name) {
  const std::string_view rest = std::string_view(name).substr(std::strlen(kCgroupPrefix));
  std::vector<std::string_view> parts;
  for (size_t at = 0; at <= rest.size();) {
    size_t dash = std::min(rest.find('-', at), rest.size());
    parts.push_back(rest.substr(at, dash - at));
    at = dash + 1;
  }
  for (auto p : parts)
    if (p.empty() || p.find_first_not_of("0123456789") != std::string_view::npos) return false;
  if (parts.size() == 3) return stamp_owner_ended(*parse_stamp(rest));
  if (parts.size() != 2) return false;
  // An older version's name, "<pid>-<ns>": ended for certain only when the pid is free.
  auto old = parse_stamp(rest);
  return old && !process_start_ticks(old->pid);
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
  // The point's cgroup is a child of the process's own, so the caller's limits still apply
  // to it; beside it, what killed runs left behind goes first.
  remove_ended_cgroups(home_);
  auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  std::string dir = home_ + "/" + kCgroupPrefix + own_stamp() + "-" + std::to_string(stamp);
  if (version_ == 2) BB_TRY(check_delegation());
  if (mkdir(dir.c_str(), 0755) != 0) return Error("cannot make the memory cgroup " + dir + ": " + errno_text(errno));
  dir_ = dir;
  if (version_ == 2) BB_TRY(give_memory_controller());
  const char *cur = version_ == 1 ? "/memory.usage_in_bytes" : "/memory.current";
  const char *peak = version_ == 1 ? "/memory.max_usage_in_bytes" : "/memory.peak";
  current_fd_ = open((dir_ + cur).c_str(), O_RDONLY | O_CLOEXEC);
  peak_fd_ = open((dir_ + peak).c_str(), O_RDONLY | O_CLOEXEC);
  if (current_fd_ < 0) return Error("cannot open " + dir_ + cur + ": " + errno_text(errno));
  if (need_peak && peak_fd_ < 0)
    return Error(std::string("this kernel's memory cgroup has no ") + (peak + 1) + " (" + errno_text(errno) + ")");
  if (vacated_) return {};  // in it already
  return write_control(dir_ + "/cgroup.procs", std::to_string(getpid()));
}

// v2: the memory controller reaches a child only through the parent's subtree_control,
// which the parent's own parent must have delegated (its cgroup.controllers lists it).
Result<> MemoryCgroup::check_delegation() const {
  if (!file_holds_token(home_ + "/cgroup.controllers", "memory"))
    return Error("the memory controller is not delegated to this process's cgroup " + home_ +
                 " (its cgroup.controllers has no memory); " + kOwnCgroupHint);
  return {};
}

// v2: turns the memory controller on for the children of the process's cgroup. A cgroup
// other than the root may do that only while it holds no process ("no internal
// processes"): then this process moves into the point's cgroup first, and back when the
// point ends, which only works when it is the cgroup's only process.
Result<> MemoryCgroup::give_memory_controller() {
  const std::string control = home_ + "/cgroup.subtree_control";
  if (file_holds_token(control, "memory")) return {};
  int e = write_control_errno(control, "+memory");
  if (e == EBUSY) {
    BB_TRY(write_control(dir_ + "/cgroup.procs", std::to_string(getpid())));
    vacated_ = true;
    e = write_control_errno(control, "+memory");
    if (e == EBUSY) {
      std::string others = other_processes(home_);
      (void)leave();
      return Error("cgroup v2 gives a cgroup's children a memory controller only when the cgroup holds no "
                   "process, and this process's cgroup " +
                   home_ + " holds others too (" + others + "); " + kOwnCgroupHint);
    }
  }
  if (e != 0) return Error("cannot write '+memory' to " + control + ": " + errno_text(e));
  enabled_ = vacated_;  // turned off again on leave(): the process goes back into home_
  return {};
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
  // A cgroup with a controller on for its children takes no process back: off first.
  if (std::exchange(enabled_, false)) (void)write_control(home_ + "/cgroup.subtree_control", "-memory");
  vacated_ = false;
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

std::vector<std::string> remove_ended_cgroups(const std::string &parent) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kCgroupPrefix, 0) != 0 || !e.is_directory(ec) || e.is_symlink(ec)) continue;
    if (made_by_ended_process(name) && rmdir(e.path().c_str()) == 0) removed.push_back(e.path().string());
  }
  return removed;
}

}  // namespace bpfbench
