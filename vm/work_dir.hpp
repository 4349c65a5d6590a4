// The work folder of one guest run, /tmp/bpfbench-vm-<pid>-<start ticks>-XXXXXX, locked by
// the run while it lives; and the sweep that removes the folders of runs killed before
// they could remove their own (a SIGKILL runs no destructor).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench::vm {

inline constexpr const char *kWorkDirPrefix = "bpfbench-vm-";

class WorkDir {
 public:
  // Makes the folder under `parent` (mkdtemp: mode 0700, a fresh name) and holds an
  // exclusive flock on its `lock` file until destroyed; or why it could not.
  static Result<std::unique_ptr<WorkDir>> create(const std::string &parent);
  ~WorkDir();  // removes the folder, then lets go of the lock
  WorkDir(const WorkDir &) = delete;
  WorkDir &operator=(const WorkDir &) = delete;
  const std::string &path() const { return path_; }

 private:
  WorkDir(std::string path, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd) {}
  std::string path_;
  int lock_fd_ = -1;
};

// Removes the work folders under `parent` that are provably ours and provably left over:
// a real folder (not a symlink) named kWorkDirPrefix + a process stamp, owned by this user
// and closed to others, whose process has ended (util/process_owner.hpp) and whose
// lock nobody holds (a run in another pid namespace holds it). Anything else is left
// alone, another live run's folder above all. The paths removed.
std::vector<std::string> remove_ended_work_dirs(const std::string &parent = "/tmp");

}  // namespace bpfbench::vm
