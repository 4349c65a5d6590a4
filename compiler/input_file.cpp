#include "compiler/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace bpfbench {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

// "is a FIFO, not a regular file"; "" for a regular file.
std::string refusal(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "is a directory";
  return "is " + describe_file_type(mode) + ", not a regular file";
}

std::string too_large(uint64_t max_bytes) { return "is larger than the " + format_byte_limit(max_bytes) + " limit"; }

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

std::optional<InputStream> open_input_stream(const std::string &path, uint64_t max_bytes, std::string &error,
                                             const std::atomic<bool> *stop) {
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
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    error = too_large(max_bytes);
    return std::nullopt;
  }
  InputStream in(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), max_bytes, stop);
  if (in.fd_ < 0 || ::fstat(in.fd_, &st) != 0) {
    error = errno_text(errno);
    return std::nullopt;
  }
  if (std::string why = refusal(st.st_mode); !why.empty()) {  // swapped since the stat
    error = why;
    return std::nullopt;
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    error = too_large(max_bytes);
    return std::nullopt;
  }
  in.dev_ = st.st_dev;
  in.ino_ = st.st_ino;
  in.size_ = static_cast<uint64_t>(st.st_size);
  return in;
}

InputStream::InputStream(InputStream &&o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      max_(o.max_),
      read_(o.read_),
      stop_(o.stop_),
      dev_(o.dev_),
      ino_(o.ino_),
      size_(o.size_),
      error_(std::move(o.error_)) {}

InputStream::~InputStream() {
  if (fd_ >= 0) ::close(fd_);
}

ssize_t InputStream::read(char *buf, size_t n) {
  if (!error_.empty()) return -1;
  if (stop_ && stop_->load()) {
    error_ = "interrupted";
    return -1;
  }
  for (;;) {
    ssize_t got = ::read(fd_, buf, n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      error_ = errno_text(errno);
      return -1;
    }
    // A file growing while read (or a /proc file of "size 0") stops at the limit.
    read_ += static_cast<uint64_t>(got);
    if (read_ > max_) {
      error_ = too_large(max_);
      return -1;
    }
    return got;
  }
}

bool InputStream::seek(uint64_t offset) {
  if (!error_.empty()) return false;
  if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) {
    error_ = errno_text(errno);
    return false;
  }
  read_ = offset;
  return true;
}

std::optional<InputFile> read_input_file(const std::string &path, uint64_t max_bytes, std::string &error) {
  auto stream = open_input_stream(path, max_bytes, error);
  if (!stream) return std::nullopt;
  InputFile in;
  in.dev = stream->dev();
  in.ino = stream->ino();
  in.data.reserve(static_cast<size_t>(stream->size()));
  char buf[65536];
  for (;;) {
    ssize_t n = stream->read(buf, sizeof buf);
    if (n < 0) {
      error = stream->error();
      return std::nullopt;
    }
    if (n == 0) break;
    in.data.append(buf, static_cast<size_t>(n));
  }
  return in;
}

}  // namespace bpfbench
