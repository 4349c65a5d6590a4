#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "util/input_file.hpp"

namespace bpfbench {

namespace fs = std::filesystem;

namespace {

std::string parent_of(const std::string &path) {
  std::string parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// A file by identity: device + inode when it exists, else its directory's and its name.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;  // "" when the file exists
  bool operator==(const FileId &o) const { return dev == o.dev && ino == o.ino && name == o.name; }
};

std::optional<FileId> identity(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return FileId{st.st_dev, st.st_ino, ""};
  if (::stat(parent_of(path).c_str(), &st) == 0)
    return FileId{st.st_dev, st.st_ino, fs::path(path).filename().string()};
  return std::nullopt;
}

}  // namespace

Result<void> check_output_target(const std::string &path) {
  if (path.empty()) return Error("empty file name");
  if (fs::path(path).filename().empty()) return Error("names a directory, not a file");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode)) return {};
    if (S_ISDIR(st.st_mode)) return Error("is a directory");
    return Error("is " + describe_file_type(st.st_mode) +
                 "; bpfbench writes only regular files and will not replace it");
  }
  if (errno != ENOENT) return Error(std::strerror(errno));
  std::string parent = parent_of(path);
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Error("the directory '" + parent + "' does not exist");
  return {};
}

Result<void> check_output_paths(const std::vector<OutputRequest> &outputs, const std::vector<std::string> &inputs) {
  std::vector<std::optional<FileId>> ids;
  for (const auto &o : outputs) {
    if (auto ok = check_output_target(o.path); !ok) return Error(o.option + " '" + o.path + "': " + ok.error().message);
    ids.push_back(identity(o.path));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!ids[i]) continue;
    for (const auto &in : inputs)
      if (identity(in) == ids[i])
        return Error(outputs[i].option + " '" + outputs[i].path + "': is an input of this command ('" + in +
                     "'); refusing to overwrite it");
    for (size_t j = 0; j < i; ++j)
      if (ids[j] == ids[i])
        return Error(outputs[j].option + " '" + outputs[j].path + "' and " + outputs[i].option + " '" +
                     outputs[i].path + "' are the same file: each output needs its own");
  }
  return {};
}

TempOutput::TempOutput(std::string target, const std::string &suffix) : target_(std::move(target)) {
  tmp_ = target_ + ".tmp.XXXXXX" + suffix;
  fd_ = ::mkostemps(tmp_.data(), static_cast<int>(suffix.size()), O_CLOEXEC);
  if (fd_ < 0) {
    error_ = "cannot write " + target_ + ": cannot create a temporary file beside it: " + std::strerror(errno);
    tmp_.clear();
    return;
  }
  // mkostemps creates 0600; results are meant to be shared like any file the user writes.
  ::fchmod(fd_, 0644);
}

TempOutput::~TempOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

Result<void> TempOutput::write(const std::string &data) {
  if (fd_ < 0) return Error(error_);
  const char *p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    // EFBIG under RLIMIT_FSIZE (SIGXFSZ is ignored, see cli/main.cpp), ENOSPC on a full disk.
    if (n <= 0) return Error("cannot write " + target_ + ": " + std::strerror(n < 0 ? errno : EIO));
    p += n;
    left -= static_cast<size_t>(n);
  }
  // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
  if (::fsync(fd_) != 0) return Error("cannot write " + target_ + ": " + std::strerror(errno));
  return {};
}

Result<void> TempOutput::commit() {
  if (fd_ < 0) return Error(error_);
  int err = ::close(fd_) != 0 ? errno : 0;
  fd_ = -1;
  if (err != 0) return Error("cannot write " + target_ + ": " + std::strerror(err));
  // Again at the last moment: the checks before the run cannot see a device created since.
  if (auto ok = check_output_target(target_); !ok) return Error("cannot write " + target_ + ": " + ok.error().message);
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0)
    return Error("cannot write " + target_ + ": cannot rename " + tmp_ + " over it: " + std::strerror(errno));
  committed_ = true;
  return {};
}

Result<void> write_file_atomic(const std::string &path, const std::string &data) {
  TempOutput out(path);
  if (!out.error().empty()) return Error(out.error());
  BB_TRY(out.write(data));
  return out.commit();
}

}  // namespace bpfbench
