#include "compiler/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace bpfbench {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

// "is a FIFO, not a regular file"; "" for a regular file.
std::string refusal(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "is a directory";
  return "is " + describe_file_type(mode) + ", not a regular file";
}

// Closes the fd on every path out of read_input_file.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string describe_file_type(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::string format_byte_limit(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string input_file_problem(const std::string &path) {
  if (path.empty()) return "empty file name";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno_text(errno);
  return refusal(st.st_mode);
}

std::optional<InputFile> read_input_file(const std::string &path, uint64_t max_bytes, std::string &error) {
  auto too_large = [&] {
    error = "is larger than the " + format_byte_limit(max_bytes) + " limit";
    return std::nullopt;
  };
  if (path.empty()) {
    error = "empty file name";
    return std::nullopt;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = errno_text(errno);
    return std::nullopt;
  }
  if (std::string why = refusal(st.st_mode); !why.empty()) {
    error = why;
    return std::nullopt;
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large();
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) {
    error = errno_text(errno);
    return std::nullopt;
  }
  return read_input_fd(f.fd, max_bytes, error);
}

std::optional<InputFile> read_input_fd(int fd, uint64_t max_bytes, std::string &error) {
  auto too_large = [&] {
    error = "is larger than the " + format_byte_limit(max_bytes) + " limit";
    return std::nullopt;
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = errno_text(errno);
    return std::nullopt;
  }
  if (std::string why = refusal(st.st_mode); !why.empty()) {  // swapped since the stat
    error = why;
    return std::nullopt;
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large();
  InputFile in;
  in.dev = st.st_dev;
  in.ino = st.st_ino;
  in.data.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno_text(errno);
      return std::nullopt;
    }
    if (n == 0) break;
    // A file growing while read (or a /proc file of "size 0") stops at the limit.
    if (in.data.size() + static_cast<size_t>(n) > max_bytes) return too_large();
    in.data.append(buf, static_cast<size_t>(n));
  }
  return in;
}

}  // namespace bpfbench
