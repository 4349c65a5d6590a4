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

std::string output_target_problem(const std::string &path) {
  if (path.empty()) return "empty file name";
  if (fs::path(path).filename().empty()) return "names a directory, not a file";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode)) return "";
    if (S_ISDIR(st.st_mode)) return "is a directory";
    return "is " + describe_file_type(st.st_mode) + "; bpfbench writes only regular files and will not replace it";
  }
  if (errno != ENOENT) return std::strerror(errno);
  std::string parent = parent_of(path);
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "the directory '" + parent + "' does not exist";
  return "";
}

std::string check_output_paths(const std::vector<OutputRequest> &outputs, const std::vector<std::string> &inputs) {
  std::vector<std::optional<FileId>> ids;
  for (const auto &o : outputs) {
    if (std::string why = output_target_problem(o.path); !why.empty()) return o.option + " '" + o.path + "': " + why;
    ids.push_back(identity(o.path));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!ids[i]) continue;
    for (const auto &in : inputs)
      if (identity(in) == ids[i])
        return outputs[i].option + " '" + outputs[i].path + "': is an input of this command ('" + in +
               "'); refusing to overwrite it";
    for (size_t j = 0; j < i; ++j)
      if (ids[j] == ids[i])
        return outputs[j].option + " '" + outputs[j].path + "' and " + outputs[i].option + " '" + outputs[i].path +
               "' are the same file: each output needs its own";
  }
  return "";
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

std::string TempOutput::write(const std::string &data) {
  if (fd_ < 0) return error_;
  const char *p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    // EFBIG under RLIMIT_FSIZE (SIGXFSZ is ignored, see cli/main.cpp), ENOSPC on a full disk.
    if (n <= 0) return "cannot write " + target_ + ": " + std::strerror(n < 0 ? errno : EIO);
    p += n;
    left -= static_cast<size_t>(n);
  }
  // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
  if (::fsync(fd_) != 0) return "cannot write " + target_ + ": " + std::strerror(errno);
  return "";
}

std::string TempOutput::commit() {
  if (fd_ < 0) return error_;
  int err = ::close(fd_) != 0 ? errno : 0;
  fd_ = -1;
  if (err != 0) return "cannot write " + target_ + ": " + std::strerror(err);
  // Again at the last moment: the checks before the run cannot see a device created since.
  if (std::string why = output_target_problem(target_); !why.empty()) return "cannot write " + target_ + ": " + why;
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0)
    return "cannot write " + target_ + ": cannot rename " + tmp_ + " over it: " + std::strerror(errno);
  committed_ = true;
  return "";
}

std::string write_file_atomic(const std::string &path, const std::string &data) {
  TempOutput out(path);
  if (!out.error().empty()) return out.error();
  if (std::string why = out.write(data); !why.empty()) return why;
  return out.commit();
}

}  // namespace bpfbench
