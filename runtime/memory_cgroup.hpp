// The point's own memory cgroup: metric source `cgroup_memory:current|peak`.
//
// A point whose metrics read cgroup memory runs in a memory cgroup of its own, made before
// its object is loaded (a map is charged to the cgroup of the process that creates it, its
// elements to the map's cgroup) and removed when the point ends: the whole process moves in
// and back out, as the kernel bench's htab-mem does. The new cgroup is a child of the
// process's own (/proc/self/cgroup), so the caller's limits still apply to it, in a cgroup
// v1 `memory` hierarchy and in cgroup v2. On v2 a cgroup holding processes cannot give its
// children controllers (the root excepted): there bpfbench moves out of its cgroup into the
// point's while the point runs, which needs it to be the cgroup's only process; else the
// point is skipped and the message says how to give bpfbench a cgroup of its own.
// Its name, bpfbench-<pid>-<start ticks>-<ns>, says whose it is: a run killed outright
// leaves it behind, and the next point's enter() removes it once that process has ended.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {

class MemoryCgroup {
 public:
  MemoryCgroup() = default;
  MemoryCgroup(const MemoryCgroup &) = delete;
  MemoryCgroup &operator=(const MemoryCgroup &) = delete;
  // Moves the process back to where it was and removes the cgroup (best effort: the
  // point's result does not wait on it; a cgroup that cannot be removed stays empty).
  ~MemoryCgroup();

  // Makes the cgroup and moves this process (all its threads) into it. Fails, with why,
  // where there is no memory controller, no right to make cgroups, or no `peak` file
  // when `need_peak`.
  Result<> enter(bool need_peak);
  bool active() const { return !dir_.empty(); }
  // Bytes the cgroup holds now (`current`) or held at most since it was made (`peak`);
  // 0 when the file cannot be read.
  uint64_t read(const std::string &which) const;
  const std::string &dir() const { return dir_; }
  int version() const { return version_; }
  // Moves the process back and removes the cgroup; the destructor does it when not done.
  Result<> leave();

 private:
  Result<> check_delegation() const;
  Result<> give_memory_controller();

  std::string dir_;        // the cgroup made for the point
  std::string home_;       // the cgroup the process was in
  int version_ = 0;        // 1 or 2
  int current_fd_ = -1;    // memory.current | memory.usage_in_bytes
  int peak_fd_ = -1;       // memory.peak | memory.max_usage_in_bytes
  bool vacated_ = false;   // v2: moved into dir_ before home_ could give it the controller
  bool enabled_ = false;   // v2: we turned `memory` on in home_'s subtree_control
};

inline constexpr const char *kCgroupPrefix = "bpfbench-";

// Removes the point cgroups under `parent` that runs killed outright left behind: named
// kCgroupPrefix + a process stamp (util/process_owner.hpp) whose process has ended, or,
// as older versions named them, kCgroupPrefix + "<pid>-<ns>" with no process of that pid
// left. rmdir only: a cgroup that still holds a process (or a child) stays. The paths removed.
std::vector<std::string> remove_ended_cgroups(const std::string &parent);

// Where this process's memory cgroup is: the hierarchy's mount point, the process's
// cgroup path in it and the version (1 or 2); Error when there is no memory controller.
struct MemoryHierarchy {
  std::string mount;  // e.g. /sys/fs/cgroup/memory (v1) or /sys/fs/cgroup (v2)
  std::string path;   // the process's cgroup below `mount`, starting with '/'
  int version = 0;
};
Result<MemoryHierarchy> find_memory_hierarchy();

// Where cgroup v2 is mounted: /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid
// (v1 + v2) system, as /proc/self/mounts says; "" when it is not mounted.
std::string cgroup2_mount();

}  // namespace bpfbench
