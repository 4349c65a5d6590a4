#include "vm/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "util/process_owner.hpp"

namespace bpfbench::vm {

namespace {

void close_fd(int &fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Only async-signal-safe calls between fork and exec.
[[noreturn]] void exec_child(const std::vector<std::string> &argv, const SpawnOptions &o, int err_pipe, pid_t parent) {
  // First: a bpfbench killed outright (SIGKILL) takes the child with it; a qemu left
  // behind used to run on at ~85 % of a CPU, reparented to init.
  die_with_parent(parent);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  if (o.new_process_group) setpgid(0, 0);
  if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) {
    int e = errno;
    (void)!write(err_pipe, &e, sizeof e);
    _exit(127);
  }
  int in = open(o.stdin_path.empty() ? "/dev/null" : o.stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0 || (o.stdin_offset > 0 && lseek(in, o.stdin_offset, SEEK_SET) < 0)) {
    int e = errno;
    (void)!write(err_pipe, &e, sizeof e);
    _exit(127);
  }
  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  dup2(in, 0);
  dup2(o.stdout_fd >= 0 ? o.stdout_fd : devnull, 1);
  dup2(o.stderr_fd >= 0 ? o.stderr_fd : devnull, 2);
  std::vector<char *> args;
  for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  int e = errno;
  (void)!write(err_pipe, &e, sizeof e);
  _exit(127);
}

}  // namespace

pid_t spawn_process(const std::vector<std::string> &argv, const SpawnOptions &opts) {
  if (argv.empty()) return -EINVAL;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return -errno;
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(p[0]);
    close(p[1]);
    return -e;
  }
  if (pid == 0) exec_child(argv, opts, p[1], parent);
  // Also here, so a kill of the group right after this call cannot miss the child
  // (whichever of the two setpgid calls runs first makes the group).
  if (opts.new_process_group) setpgid(pid, pid);
  close(p[1]);
  int child_errno = 0;
  ssize_t n;
  do n = read(p[0], &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  close(p[0]);
  if (n == sizeof child_errno) {  // exec failed: reap the child, report why
    waitpid(pid, nullptr, 0);
    return -child_errno;
  }
  return pid;
}

ProcResult run_command(const std::vector<std::string> &argv, const RunOptions &opts) {
  ProcResult r;
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    close_fd(out[0]), close_fd(out[1]), close_fd(err[0]), close_fd(err[1]);
    return r;
  }
  SpawnOptions so;
  so.stdin_path = opts.stdin_path;
  so.stdin_offset = opts.stdin_offset;
  so.cwd = opts.cwd;
  so.stdout_fd = out[1];
  so.stderr_fd = err[1];
  so.new_process_group = true;  // a stop or a timeout kills what the tool started too
  pid_t pid = spawn_process(argv, so);
  close_fd(out[1]);
  close_fd(err[1]);
  if (pid < 0) {
    r.error = argv.empty() ? "no command" : argv[0] + ": " + (pid == -ENOENT ? "not found" : std::strerror(-pid));
    close_fd(out[0]), close_fd(err[0]);
    return r;
  }
  r.started = true;
  auto start = std::chrono::steady_clock::now();
  bool killed = false;
  char buf[65536];
  while (out[0] >= 0 || err[0] >= 0) {
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int rc = poll(fds, 2, 50);
    if (rc < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) close_fd(i == 0 ? out[0] : err[0]);
    }
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bool stop = opts.stop && opts.stop->load();
    if (!killed && ((opts.timeout_s > 0 && elapsed > opts.timeout_s) || stop)) {
      kill_process_group(pid);
      killed = true;
      r.timed_out = !stop;
    }
  }
  close_fd(out[0]);
  close_fd(err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

void kill_process_group(pid_t pid) {
  if (pid <= 0) return;
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);  // in case it is not (yet) the leader of a group of its own
}

std::string tail_lines(const std::string &text, size_t max_lines) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  size_t pos = end, lines = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++lines == max_lines) break;
    --pos;
  }
  std::string out = text.substr(pos, end - pos);
  std::string clean;  // serial consoles add \r
  for (char c : out)
    if (c != '\r') clean += c;
  return clean;
}

}  // namespace bpfbench::vm
