// The point's own memory cgroup: metric source `cgroup_memory:current|peak`.
//
// A point whose metrics read cgroup memory runs in a memory cgroup of its own, made before
// its object is loaded (a map is charged to the cgroup of the process that creates it, its
// elements to the map's cgroup) and removed when the point ends: the whole process moves in
// and back out, as the kernel bench's htab-mem does. cgroup v1 (a `memory` hierarchy: the
// new cgroup is a child of the process's own, so its limits still apply) and cgroup v2 (the
// cgroup2 root, with `+memory` in its subtree_control: a v2 cgroup holding processes cannot
// have children with controllers).
#pragma once

#include <cstdint>
#include <string>

#include "results/error.hpp"

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
  std::string dir_;        // the cgroup made for the point
  std::string home_;       // the cgroup the process was in
  int version_ = 0;        // 1 or 2
  int current_fd_ = -1;    // memory.current | memory.usage_in_bytes
  int peak_fd_ = -1;       // memory.peak | memory.max_usage_in_bytes
};

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
