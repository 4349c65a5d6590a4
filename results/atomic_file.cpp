#include "results/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace bpfbench {

std::string write_file_atomic(const std::string &path, const std::string &data) {
  // Same directory as the target: rename(2) is only atomic within one filesystem.
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  // Messages name `path`, the file the user asked for, not the temporary one.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot write " + path + ": cannot create " + tmp + ": " + std::strerror(errno);
  const char *p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = "cannot write " + path + ": " + std::strerror(n < 0 ? errno : EIO);
      ::close(fd);
      ::unlink(tmp.c_str());
      return why;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
  // Close even when fsync fails (no fd leak); report the first error.
  int err = ::fsync(fd) != 0 ? errno : 0;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    std::string why = "cannot write " + path + ": " + std::strerror(err);
    ::unlink(tmp.c_str());
    return why;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = "cannot write " + path + ": cannot rename " + tmp + " over it: " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return why;
  }
  return "";
}

}  // namespace bpfbench
