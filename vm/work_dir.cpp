#include "vm/work_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "util/process_owner.hpp"

namespace bpfbench::vm {

namespace fs = std::filesystem;

namespace {

constexpr const char *kLockFile = "lock";

// Whether nobody holds the folder's lock (or it has none: its run ended between mkdtemp
// and taking it). `dir_fd` is the folder, opened without following a symlink.
bool lock_is_free(int dir_fd) {
  int fd = ::openat(dir_fd, kLockFile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno == ENOENT;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);  // closing drops the lock we may just have taken
  return free;
}

// A folder of ours that a run ended without removing: see remove_ended_work_dirs().
bool is_ended_work_dir(const std::string &parent, const std::string &name) {
  if (name.rfind(kWorkDirPrefix, 0) != 0) return false;
  auto stamp = parse_stamp(std::string_view(name).substr(std::strlen(kWorkDirPrefix)));
  if (!stamp || !stamp_owner_ended(*stamp)) return false;
  const std::string path = parent + "/" + name;
  int dir_fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0) return false;
  struct stat st {};
  const bool ours = ::fstat(dir_fd, &st) == 0 && st.st_uid == ::geteuid() && (st.st_mode & 077) == 0;
  const bool ended = ours && lock_is_free(dir_fd);
  ::close(dir_fd);
  return ended;
}

}  // namespace

Result<std::unique_ptr<WorkDir>> WorkDir::create(const std::string &parent) {
  std::string tmpl = parent + "/" + kWorkDirPrefix + own_stamp() + "-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return Error("cannot create a work folder in " + parent + ": " + std::strerror(errno));
  int fd = ::open((tmpl + "/" + kLockFile).c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 || ::flock(fd, LOCK_EX) != 0) {
    Error e("cannot lock the work folder " + tmpl + ": " + std::strerror(errno));
    if (fd >= 0) ::close(fd);
    std::error_code ec;
    fs::remove_all(tmpl, ec);
    return e;
  }
  return std::unique_ptr<WorkDir>(new WorkDir(std::move(tmpl), fd));
}

WorkDir::~WorkDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::vector<std::string> remove_ended_work_dirs(const std::string &parent) {
  std::vector<std::string> removed;
  DIR *d = ::opendir(parent.c_str());
  if (!d) return removed;
  std::vector<std::string> names;
  while (dirent *e = ::readdir(d))
    if (std::strncmp(e->d_name, kWorkDirPrefix, std::strlen(kWorkDirPrefix)) == 0) names.emplace_back(e->d_name);
  ::closedir(d);
  for (const auto &name : names) {
    if (!is_ended_work_dir(parent, name)) continue;
    // Ours (owner and mode checked): nobody else can put a symlink or a file inside it,
    // and /tmp's sticky bit keeps others from renaming it away under us.
    std::error_code ec;
    if (fs::remove_all(parent + "/" + name, ec) > 0 && !ec) removed.push_back(parent + "/" + name);
  }
  return removed;
}

}  // namespace bpfbench::vm
