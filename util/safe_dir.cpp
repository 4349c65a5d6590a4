#include "util/safe_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <utility>

#include "util/input_file.hpp"

namespace bpfbench {

namespace {

// A descriptor closed on every way out.
struct UniqueFd {
  int fd = -1;
  explicit UniqueFd(int f = -1) : fd(f) {}
  UniqueFd(UniqueFd &&o) noexcept : fd(std::exchange(o.fd, -1)) {}
  UniqueFd &operator=(UniqueFd &&o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~UniqueFd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

constexpr int kMaxSymlinks = 40;  // as the kernel's own path walk (ELOOP)
constexpr int kMaxRetries = 8;    // a name made or removed meanwhile by someone else

std::string errno_str(int e) { return std::strerror(e); }

std::string mode_text(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

bool writable_by_others(const struct stat &st) { return (st.st_mode & (S_IWGRP | S_IWOTH)) != 0; }

// Why a folder on the way may not be trusted: someone other than root or us could rename
// what is in it (or chmod it so they can). A sticky folder (/tmp) is fine: others may add
// names to it, not rename ours; what we step into next is checked in turn.
// `on_the_way`: a folder the path goes through (else the one asked for, open_child's).
Result<void> check_passage(const std::string &shown, const struct stat &st, bool on_the_way = true) {
  const uid_t me = ::geteuid();
  if (st.st_uid != 0 && st.st_uid != me)
    return Error(shown + " is owned by uid " + std::to_string(st.st_uid) +
                 (on_the_way ? " (a folder on the way must be root's or yours)" : ", not by root or you"));
  if (writable_by_others(st) && !(st.st_mode & S_ISVTX))
    return Error(shown + " is writable by others (mode " + mode_text(st.st_mode) + ", not sticky)");
  return {};
}

// Why a folder may not hold our own files, or a file in it may not be read: it is someone
// else's, or others may write it ("is owned by uid 65534, not by you (uid 0)").
Result<void> check_own(const struct stat &st) {
  const uid_t me = ::geteuid();
  if (st.st_uid != me)
    return Error("is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " + std::to_string(me) + ")");
  if (writable_by_others(st)) return Error("is writable by others (mode " + mode_text(st.st_mode) + ")");
  return {};
}

// check_own, the folder named in the message: "<shown> is owned by ...".
Result<void> check_own_folder(const std::string &shown, const struct stat &st) {
  if (auto ok = check_own(st); !ok) return Error(shown + " " + ok.error().message);
  return {};
}

std::deque<std::string> split_path(const std::string &path) {
  std::deque<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i && path.compare(i, j - i, ".") != 0) out.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string random_name(const std::string &prefix) {
  unsigned char bytes[8];
  ssize_t n = ::getrandom(bytes, sizeof bytes, 0);
  static const char kHex[] = "0123456789abcdef";
  std::string s = prefix;
  for (size_t i = 0; i < sizeof bytes; ++i) {
    unsigned v = n == ssize_t(sizeof bytes) ? bytes[i] : static_cast<unsigned>(::getpid() >> (i % 4 * 8));
    s += kHex[v >> 4];
    s += kHex[v & 15];
  }
  return s;
}

// The rules of a walk: where it may create folders, and what the last folder must be.
struct WalkRules {
  mode_t create_mode = 0;  // 0: a missing folder is an error
  bool own = false;        // last folder: ours and writable by no one else (else as on the way)
};

// One walk of folder names, each looked at without following (fstatat with
// AT_SYMLINK_NOFOLLOW), each folder opened with O_NOFOLLOW and checked on the opened
// descriptor, so what was checked is what is used. `stack` holds the folders walked so
// far (the bottom one is where the walk started), `names` how to show them.
class Walk {
 public:
  Walk(UniqueFd start, std::string shown, const WalkRules &rules) : rules_(rules) {
    stack_.push_back(std::move(start));
    names_.push_back(std::move(shown));
  }
  // The last folder, opened O_RDONLY | O_DIRECTORY, or why not.
  Result<UniqueFd> run(std::deque<std::string> todo, bool *missing);

 private:
  std::string shown(const std::string &name) const {
    return names_.back() == "/" ? "/" + name : names_.back() + "/" + name;
  }
  Result<void> step_up();
  Result<void> follow(const std::string &name, const struct stat &st, std::deque<std::string> &todo);
  Result<void> enter(const std::string &name, bool last);

  const WalkRules &rules_;
  std::vector<UniqueFd> stack_;
  std::vector<std::string> names_;
  int links_ = 0;
};

Result<void> Walk::step_up() {
  if (stack_.size() > 1) {
    stack_.pop_back();
    names_.pop_back();
    return {};
  }
  // Above where the walk started: the parent is a folder on the way like any other.
  UniqueFd up(::openat(stack_.back().fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
  struct stat st {};
  const std::string name = names_.back() + "/..";
  if (up.fd < 0 || ::fstat(up.fd, &st) != 0) return Error(name + ": " + errno_str(errno));
  BB_TRY(check_passage(name, st));
  stack_.back() = std::move(up);
  names_.back() = name;
  return {};
}

// A symlink: followed only when root or we made it, its target walked with the same checks.
Result<void> Walk::follow(const std::string &name, const struct stat &st, std::deque<std::string> &todo) {
  const uid_t me = ::geteuid();
  if (st.st_uid != 0 && st.st_uid != me)
    return Error(shown(name) + " is a symlink owned by uid " + std::to_string(st.st_uid) + "; not following it");
  if (++links_ > kMaxSymlinks) return Error(shown(name) + ": " + errno_str(ELOOP));
  char buf[4096];
  ssize_t n = ::readlinkat(stack_.back().fd, name.c_str(), buf, sizeof buf);
  if (n < 0 || n >= ssize_t(sizeof buf)) return Error(shown(name) + ": " + errno_str(n < 0 ? errno : ENAMETOOLONG));
  const std::string target(buf, static_cast<size_t>(n));
  std::deque<std::string> parts = split_path(target);
  todo.insert(todo.begin(), parts.begin(), parts.end());
  if (target.starts_with("/")) {
    UniqueFd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    struct stat rs {};
    if (root.fd < 0 || ::fstat(root.fd, &rs) != 0) return Error("/: " + errno_str(errno));
    BB_TRY(check_passage("/", rs));
    stack_.clear();
    names_.clear();
    stack_.push_back(std::move(root));
    names_.push_back("/");
  }
  return {};
}

// `last`: the folder the walk is for, checked by its own rule at the end.
Result<void> Walk::enter(const std::string &name, bool last) {
  UniqueFd next(::openat(stack_.back().fd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (next.fd < 0 || ::fstat(next.fd, &st) != 0) return Error(shown(name) + ": " + errno_str(errno));
  if (!last) BB_TRY(check_passage(shown(name), st));
  names_.push_back(shown(name));
  stack_.push_back(std::move(next));
  return {};
}

Result<UniqueFd> Walk::run(std::deque<std::string> todo, bool *missing) {
  int retries = 0;
  while (!todo.empty()) {
    std::string name = std::move(todo.front());
    todo.pop_front();
    if (name == "..") {
      BB_TRY(step_up());
      continue;
    }
    struct stat st {};
    if (::fstatat(stack_.back().fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) return Error(shown(name) + ": " + errno_str(errno));
      if (rules_.create_mode == 0) {
        if (missing) *missing = true;
        return Error(shown(name) + " does not exist");
      }
      if (::mkdirat(stack_.back().fd, name.c_str(), rules_.create_mode) != 0 && errno != EEXIST)
        return Error("cannot create " + shown(name) + ": " + errno_str(errno));
      if (++retries > kMaxRetries) return Error(shown(name) + ": keeps changing");
      todo.push_front(name);  // look again: someone else may have made it first
      continue;
    }
    if (S_ISLNK(st.st_mode)) {
      BB_TRY(follow(name, st, todo));
    } else if (S_ISDIR(st.st_mode)) {
      BB_TRY(enter(name, todo.empty()));
      retries = 0;
    } else {
      return Error(shown(name) + " is " + describe_file_type(st.st_mode) + ", not a folder");
    }
  }
  struct stat st {};
  if (::fstat(stack_.back().fd, &st) != 0) return Error(names_.back() + ": " + errno_str(errno));
  BB_TRY(rules_.own ? check_own_folder(names_.back(), st) : check_passage(names_.back(), st, false));
  UniqueFd dir(::openat(stack_.back().fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd < 0) return Error(names_.back() + ": " + errno_str(errno));
  return dir;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The names in folder `fd` (not "." and ".."), those starting with `prefix`.
std::vector<std::string> names_in(int fd, const std::string &prefix) {
  std::vector<std::string> out;
  int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  DIR *d = copy >= 0 ? ::fdopendir(copy) : nullptr;
  if (!d) {
    if (copy >= 0) ::close(copy);
    return out;
  }
  ::rewinddir(d);  // the copy shares its offset with `fd`
  while (const dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != ".." && name.starts_with(prefix)) out.push_back(std::move(name));
  }
  ::closedir(d);
  return out;
}

// Removes the files in folder `fd` (unlinkat removes a name, never what a symlink names);
// a folder in it stays, and so does the folder itself then.
void remove_files_in(int fd) {
  for (const std::string &name : names_in(fd, "")) ::unlinkat(fd, name.c_str(), 0);
}

}  // namespace

Result<SafeDir> SafeDir::open_owned(const std::string &path, bool create, bool *missing) {
  if (missing) *missing = false;
  if (path.empty()) return Error("empty folder name");
  std::string abs = path;
  if (!abs.starts_with("/")) {
    std::vector<char> cwd(4096);
    if (!::getcwd(cwd.data(), cwd.size())) return Error("cannot read the current folder: " + errno_str(errno));
    abs = std::string(cwd.data()) + "/" + path;
  }
  UniqueFd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  struct stat st {};
  if (root.fd < 0 || ::fstat(root.fd, &st) != 0) return Error("/: " + errno_str(errno));
  BB_TRY(check_passage("/", st));
  const WalkRules rules{create ? mode_t{0700} : mode_t{0}, true};
  Walk walk(std::move(root), "/", rules);
  auto opened = walk.run(split_path(abs), missing);
  if (!opened) return opened.error();
  return SafeDir(opened->release(), path);
}

Result<SafeDir> SafeDir::open_child(const std::string &parent, const std::string &name) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    return Error("'" + name + "' is not a plain folder name");
  // The user's own choice (like the --json path beside it): opened as given.
  UniqueFd p(::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (p.fd < 0) return Error(parent + ": " + errno_str(errno));
  const WalkRules rules{0755, false};
  Walk walk(std::move(p), parent, rules);
  auto opened = walk.run({name}, nullptr);
  if (!opened) return opened.error();
  return SafeDir(opened->release(), parent == "/" ? "/" + name : parent + "/" + name);
}

SafeDir::SafeDir(SafeDir &&o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      path_(std::move(o.path_)),
      parent_fd_(std::exchange(o.parent_fd_, -1)),
      name_(std::move(o.name_)) {}

SafeDir &SafeDir::operator=(SafeDir &&o) noexcept {
  if (this != &o) {
    close_all();
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
    parent_fd_ = std::exchange(o.parent_fd_, -1);
    name_ = std::move(o.name_);
  }
  return *this;
}

SafeDir::~SafeDir() { close_all(); }

void SafeDir::close_all() {
  if (parent_fd_ >= 0 && fd_ >= 0) {  // a private folder: its files, then itself
    remove_files_in(fd_);
    ::unlinkat(parent_fd_, name_.c_str(), AT_REMOVEDIR);
  }
  for (int *fd : {&fd_, &parent_fd_})
    if (*fd >= 0) ::close(std::exchange(*fd, -1));
}

Result<std::optional<std::string>> SafeDir::read(const std::string &name, uint64_t max_bytes) const {
  struct stat st {};
  // Looked at before it is opened: a device is never opened (opening some has effects).
  if (::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) return Error(errno_str(errno));
    return std::optional<std::string>();
  }
  if (!S_ISREG(st.st_mode))
    return Error(S_ISDIR(st.st_mode) ? "is a directory"
                                     : "is " + describe_file_type(st.st_mode) + ", not a regular file");
  UniqueFd f(::openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0)
    return Error(errno == ELOOP ? "is a symbolic link, not a regular file" : errno_str(errno));
  if (S_ISREG(st.st_mode)) BB_TRY(check_own(st));
  auto in = read_input_fd(f.fd, max_bytes);
  if (!in) return in.error();
  return std::optional<std::string>(std::move(in->data));
}

Result<void> SafeDir::check_target(const std::string &name) const {
  struct stat st {};
  if (::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    return Error(errno_str(errno));
  }
  // rename(2) replaces a name, never what a symlink names, nor what a FIFO or socket leads to;
  // a device node it would replace is refused (as for outputs: util/atomic_file.hpp).
  if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISDIR(st.st_mode)) return {};
  return Error("is " + describe_file_type(st.st_mode) + "; bpfbench writes only regular files and will not replace it");
}

Result<void> SafeDir::write(const std::string &name, const std::vector<std::string_view> &parts, mode_t mode) const {
  const std::string path = path_ + "/" + name;
  if (auto ok = check_target(name); !ok) return Error("cannot write " + path + ": " + ok.error().message);
  std::string tmp;
  UniqueFd f;
  for (int i = 0; i < kMaxRetries && f.fd < 0; ++i) {
    tmp = random_name(name + ".tmp.");
    f = UniqueFd(::openat(fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (f.fd < 0 && errno != EEXIST) break;
  }
  if (f.fd < 0) return Error("cannot write in " + path_ + ": " + errno_str(errno));
  bool ok = ::fchmod(f.fd, mode) == 0;
  for (std::string_view part : parts) ok = ok && write_all(f.fd, part);
  ok = ok && ::close(f.release()) == 0;
  ok = ok && ::renameat(fd_, tmp.c_str(), fd_, name.c_str()) == 0;
  if (ok) return {};
  const int err = errno;
  ::unlinkat(fd_, tmp.c_str(), 0);
  return Error("cannot write " + path + ": " + errno_str(err));
}

Result<void> SafeDir::move_in(const SafeDir &from, const std::string &from_name, const std::string &name) const {
  const std::string path = path_ + "/" + name;
  if (auto ok = check_target(name); !ok) return Error("cannot write " + path + ": " + ok.error().message);
  if (::renameat(from.fd_, from_name.c_str(), fd_, name.c_str()) != 0)
    return Error("cannot rename " + from.path_ + "/" + from_name + " to " + path + ": " + errno_str(errno));
  return {};
}

Result<SafeDir> SafeDir::make_private(const std::string &prefix) const {
  for (int i = 0; i < kMaxRetries; ++i) {
    const std::string name = random_name(prefix);
    if (::mkdirat(fd_, name.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      return Error("cannot create a folder in " + path_ + ": " + errno_str(errno));
    }
    UniqueFd d(::openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    // Another run's remove_stale may take a folder between its mkdir and our lock: when it
    // holds the lock, or has removed the folder before we locked it, take another name.
    struct stat st {};
    if (d.fd < 0 || ::flock(d.fd, LOCK_EX | LOCK_NB) != 0 || ::fstat(d.fd, &st) != 0 || st.st_nlink == 0) continue;
    BB_TRY(check_own_folder(path_ + "/" + name, st));
    SafeDir out(d.release(), path_ + "/" + name);
    out.parent_fd_ = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    out.name_ = name;
    if (out.parent_fd_ < 0) return Error("cannot keep " + path_ + " open: " + errno_str(errno));
    return out;
  }
  return Error("cannot create a folder in " + path_ + ": every name was taken");
}

size_t SafeDir::remove_stale(const std::string &prefix) const {
  size_t removed = 0;
  for (const std::string &name : names_in(fd_, prefix)) {
    UniqueFd d(::openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    // Ours only; a folder some run still holds locked is that run's.
    if (d.fd < 0 || ::fstat(d.fd, &st) != 0 || st.st_uid != ::geteuid() || ::flock(d.fd, LOCK_EX | LOCK_NB) != 0)
      continue;
    remove_files_in(d.fd);
    if (::unlinkat(fd_, name.c_str(), AT_REMOVEDIR) == 0) ++removed;
  }
  return removed;
}

}  // namespace bpfbench
