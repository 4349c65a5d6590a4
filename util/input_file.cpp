#include "util/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <utility>

namespace bpfbench {

namespace {

std::string strerror_text(int e) { return std::strerror(e); }

// Nothing for a regular file, else why not: "is a FIFO, not a regular file".
Result<void> regular_file(mode_t mode) {
  if (S_ISREG(mode)) return {};
  if (S_ISDIR(mode)) return Error("is a directory");
  return Error("is " + describe_file_type(mode) + ", not a regular file");
}

Error too_large(uint64_t max_bytes) { return Error("is larger than the " + format_byte_limit(max_bytes) + " limit"); }

// Owns a descriptor: closed on every path out.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd &&o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd &operator=(Fd &&o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads the open regular file `fd` (`st` its fstat) up to `max_bytes`.
Result<InputFile> read_open_file(int fd, const struct stat &st, uint64_t max_bytes) {
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large(max_bytes);
  InputFile in;
  in.dev = st.st_dev;
  in.ino = st.st_ino;
  in.data.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error(strerror_text(errno));
    if (n == 0) break;
    // A file growing while read (or a /proc file of "size 0") stops at the limit.
    if (in.data.size() + static_cast<size_t>(n) > max_bytes) return too_large(max_bytes);
    in.data.append(buf, static_cast<size_t>(n));
  }
  return in;
}

// Symlinks a walk follows at most: the kernel's own limit (ELOOP past it). Folders it
// holds open at once at most (each an fd): deeper is "File name too long".
constexpr int kMaxLinks = 40;
constexpr size_t kMaxDepth = 256;

// Text from the folder's author (a link target) as a message shows it: control characters
// become '?', at most 200 bytes.
std::string shown(const std::string &s) {
  std::string out = s.substr(0, 200);
  for (char &c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s.size() > out.size() ? out + "..." : out;
}

std::string join_path(const std::vector<std::string> &parts, const std::string &last) {
  std::string out;
  for (const auto &p : parts) out += p + "/";
  return out + last;
}

// Opens the canonical folder `root` from "/" without following a symlink anywhere.
Result<Fd> open_folder(const std::string &root) {
  if (root.empty() || root[0] != '/') return Error("the folder '" + shown(root) + "' is not an absolute path");
  Fd cur{::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)};
  for (const auto &c : path_components(root)) {
    Fd next{c == ".." ? -1 : ::openat(cur.fd, c.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
    if (next.fd < 0) {
      int e = c == ".." ? EINVAL : errno;
      return Error(e == ENOTDIR || e == ELOOP || e == EINVAL
                       ? "the folder '" + shown(root) +
                             "' is no longer a folder without symbolic links (it changed after it was read)"
                       : "the folder '" + shown(root) + "': " + strerror_text(e));
    }
    cur = std::move(next);
  }
  return cur;
}

// The target of the symlink open as `link` (O_PATH | O_NOFOLLOW).
Result<std::string> link_target(const Fd &link) {
  char buf[PATH_MAX];
  ssize_t n = ::readlinkat(link.fd, "", buf, sizeof buf);
  if (n < 0 || static_cast<size_t>(n) >= sizeof buf) return Error(strerror_text(n < 0 ? errno : ENAMETOOLONG));
  return std::string(buf, static_cast<size_t>(n));
}

// Walks `name` below the open folder `root_fd`: each component opened O_NOFOLLOW from the
// folder reached so far, symlinks expanded in place while they stay inside. On success
// `dirs.back()` holds the file's folder and `file` its name there.
class FolderWalk {
 public:
  FolderWalk(Fd root_fd, const std::string &root) : root_(root) { dirs_.push_back(std::move(root_fd)); }

  // The O_PATH descriptor of the file `name` names (and its stat), or why not.
  Result<Fd> walk(const std::string &name, struct stat &st) {
    std::vector<std::string> first = path_components(name);
    std::deque<std::string> rest(first.begin(), first.end());
    int links = 0;
    while (!rest.empty()) {
      std::string c = std::move(rest.front());
      rest.pop_front();
      if (c == "..") {  // from a link's target: back over a folder this walk opened
        if (dirs_.size() == 1) return Error(last_link_ + ", which leads out of the folder '" + shown(root_) + "'");
        dirs_.pop_back();
        names_.pop_back();
        continue;
      }
      Fd fd{::openat(dirs_.back().fd, c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC)};
      if (fd.fd < 0 || ::fstat(fd.fd, &st) != 0) return Error(strerror_text(errno));
      if (S_ISLNK(st.st_mode)) {
        auto target = link_target(fd);
        if (!target) return target.error();
        last_link_ = "'" + shown(join_path(names_, c)) + "' is a symbolic link to '" + shown(*target) + "'";
        if (++links > kMaxLinks) return Error(strerror_text(ELOOP));
        if (target->empty() || (*target)[0] == '/')
          return Error(last_link_ + "; only relative links that stay inside the folder '" + shown(root_) +
                       "' are followed");
        std::vector<std::string> more = path_components(*target);
        rest.insert(rest.begin(), more.begin(), more.end());
        continue;
      }
      if (rest.empty()) {
        file_ = c;
        return fd;
      }
      if (!S_ISDIR(st.st_mode) || dirs_.size() >= kMaxDepth)
        return Error(strerror_text(S_ISDIR(st.st_mode) ? ENAMETOOLONG : ENOTDIR));
      dirs_.push_back(std::move(fd));
      names_.push_back(c);
    }
    return Error("is a directory");  // the name (or a link's target) ends at a folder
  }

  const Fd &dir() const { return dirs_.back(); }
  const std::string &file() const { return file_; }

 private:
  std::string root_;
  std::vector<Fd> dirs_;            // the folders opened, the root first
  std::vector<std::string> names_;  // their names below the root, for messages
  std::string last_link_, file_;
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

Result<void> check_input_file(const std::string &path) {
  if (path.empty()) return Error("empty file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error(strerror_text(errno));
  return regular_file(st.st_mode);
}

std::vector<std::string> path_components(const std::string &path) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= path.size();) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    std::string c = path.substr(start, slash - start);
    if (!c.empty() && c != ".") out.push_back(std::move(c));
    start = slash + 1;
  }
  return out;
}

Result<void> check_inside_name(const std::string &name) {
  if (name.empty()) return Error("is empty");
  if (name[0] == '/') return Error("is an absolute path");
  for (const auto &c : path_components(name))
    if (c == "..") return Error("names '..'");
  return {};
}

Result<std::string> canonical_folder(const std::string &path) {
  struct stat st {};
  if (path.empty()) return Error("empty file name");
  if (::stat(path.c_str(), &st) != 0) return Error(strerror_text(errno));
  if (!S_ISDIR(st.st_mode)) return Error("is not a directory (it is " + describe_file_type(st.st_mode) + ")");
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  if (!real) return Error(strerror_text(errno));
  return std::string(real.get());
}

Result<InputFile> read_input_file_in(const std::string &folder, const std::string &name, uint64_t max_bytes) {
  if (auto ok = check_inside_name(name); !ok) return name.empty() ? Error("empty file name") : ok.error();
  auto root = open_folder(folder);
  if (!root) return root.error();
  FolderWalk w(std::move(*root), folder);
  struct stat st {};
  auto path_fd = w.walk(name, st);
  if (!path_fd) return path_fd.error();
  // Looked at through the O_PATH descriptor: a device is refused without an open.
  BB_TRY(regular_file(st.st_mode));
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large(max_bytes);
  Fd f{::openat(w.dir().fd, w.file().c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)};
  struct stat now {};
  if (f.fd < 0 || ::fstat(f.fd, &now) != 0) return Error(strerror_text(errno));
  if (now.st_dev != st.st_dev || now.st_ino != st.st_ino || !S_ISREG(now.st_mode))  // swapped since
    return Error("changed while it was opened");
  return read_open_file(f.fd, now, max_bytes);
}

namespace {

// What both openers check before an open: a name, a regular file (a FIFO or a device is
// never opened), at most `max_bytes` (`st`: its stat).
Result<void> may_open(const std::string &path, uint64_t max_bytes, struct stat &st) {
  if (path.empty()) return Error("empty file name");
  if (::stat(path.c_str(), &st) != 0) return Error(strerror_text(errno));
  BB_TRY(regular_file(st.st_mode));
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large(max_bytes);
  return {};
}

}  // namespace

Result<InputStream> open_input_stream(const std::string &path, uint64_t max_bytes, const std::atomic<bool> *stop) {
  struct stat st {};
  BB_TRY(may_open(path, max_bytes, st));
  InputStream in(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), max_bytes, stop);
  if (in.fd_ < 0 || ::fstat(in.fd_, &st) != 0) return Error(strerror_text(errno));
  BB_TRY(regular_file(st.st_mode));  // swapped since the stat
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large(max_bytes);
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
      error_ = strerror_text(errno);
      return -1;
    }
    // A file growing while read (or a /proc file of "size 0") stops at the limit.
    read_ += static_cast<uint64_t>(got);
    if (read_ > max_) {
      error_ = too_large(max_).message;
      return -1;
    }
    return got;
  }
}

bool InputStream::seek(uint64_t offset) {
  if (!error_.empty()) return false;
  if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) {
    error_ = strerror_text(errno);
    return false;
  }
  read_ = offset;
  return true;
}

Result<InputFile> read_input_file(const std::string &path, uint64_t max_bytes) {
  struct stat st {};
  BB_TRY(may_open(path, max_bytes, st));
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) return Error(strerror_text(errno));
  return read_input_fd(f.fd, max_bytes);
}

Result<InputFile> read_input_fd(int fd, uint64_t max_bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error(strerror_text(errno));
  BB_TRY(regular_file(st.st_mode));  // swapped since the stat
  return read_open_file(fd, st, max_bytes);
}

}  // namespace bpfbench
