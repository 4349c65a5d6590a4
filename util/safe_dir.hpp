// Folders bpfbench writes in while it may run as root: its caches, which must be folders
// only it can change, and the profiles folder of `run --profile`. A folder is checked
// once, held open, and every file in it is named relative to that descriptor (openat,
// renameat, O_NOFOLLOW, O_EXCL): no later rename or symlink on its path redirects a read
// or a write.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {

class SafeDir {
 public:
  // The folder at `path` when only we can change it: the caches. It must be ours (owner
  // = our effective uid) and writable by no one else; every folder the path goes through,
  // and every symlink on the way, must be root's or ours and writable by no one else (a
  // sticky folder like /tmp excepted: others cannot rename what is ours in it).
  // `create`: missing folders are made, mode 0700. Errors name the component and why:
  // "/tmp/bpfbench-cache-0 is owned by uid 65534, not by you (uid 0)". `missing` (may be
  // null) is set when the only problem is that a folder does not exist (without `create`).
  static Result<SafeDir> open_owned(const std::string &path, bool create, bool *missing = nullptr);

  // The folder `name` inside the folder `parent`, which the user chose (opened as given):
  // the profiles folder. Made (mode 0755) when missing; a symlink there is followed only
  // when root or we own it, and what it leads to is checked like open_owned's way; the
  // folder must be root's or ours and writable by no one else unless it is sticky.
  static Result<SafeDir> open_child(const std::string &parent, const std::string &name);

  SafeDir() = default;
  SafeDir(SafeDir &&o) noexcept;
  SafeDir &operator=(SafeDir &&o) noexcept;
  SafeDir(const SafeDir &) = delete;
  SafeDir &operator=(const SafeDir &) = delete;
  ~SafeDir();

  const std::string &path() const { return path_; }  // for messages
  int fd() const { return fd_; }                     // O_RDONLY | O_DIRECTORY

  // The file `name` when it is a regular file (not a symlink: O_NOFOLLOW), ours, writable
  // by no one else and at most `max_bytes`; nullopt when there is no such file; else why
  // not (without the path).
  Result<std::optional<std::string>> read(const std::string &name, uint64_t max_bytes) const;

  // Writes the concatenated `parts` as `name`: a new file made here with O_CREAT | O_EXCL
  // | O_NOFOLLOW under a random name, mode `mode`, renamed over `name` (refused, like
  // move_in, when `name` is a device or a folder). Or why not, with the path ("cannot write
  // /c/k.o: No space left on device"); the new file is gone then.
  Result<void> write(const std::string &name, const std::vector<std::string_view> &parts, mode_t mode) const;

  // Renames `from_name` of folder `from` to `name` here, unless `name` is there as a
  // device or a folder (rename(2) would replace a device node).
  Result<void> move_in(const SafeDir &from, const std::string &from_name, const std::string &name) const;

  // A new folder inside this one for one run's temporary files: mode 0700, named `prefix`
  // and random characters, locked (flock) while this object lives; the destructor removes
  // it and the files in it.
  Result<SafeDir> make_private(const std::string &prefix) const;

  // Removes the folders named `prefix`* here that we own and no process holds locked (what
  // make_private left behind in a run that was killed), with the files in them. Returns
  // how many.
  size_t remove_stale(const std::string &prefix) const;

 private:
  SafeDir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Result<void> check_target(const std::string &name) const;
  void close_all();
  int fd_ = -1;
  std::string path_;
  int parent_fd_ = -1;  // a private folder: where to remove it from
  std::string name_;
};

}  // namespace bpfbench
