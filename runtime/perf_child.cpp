#include "runtime/perf_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "util/process_owner.hpp"

namespace bpfbench {

namespace {

using Clock = std::chrono::steady_clock;

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(int out_fd, pid_t parent, char *const *argv, const int *pass, size_t npass, int cwd_fd) {
  die_with_parent(parent);  // dies with the thread that forked it
  if (cwd_fd >= 0 && ::fchdir(cwd_fd) != 0) ::_exit(126);  // before the dup2s below reuse its number
  // bpfbench holds the stop signals blocked (runtime/stop.hpp) and a blocked mask
  // survives exec: perf must see the SIGINT that ends its recording.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
  int in = ::open("/dev/null", O_RDONLY);
  if (in < 0) ::_exit(126);
  ::dup2(in, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  // Passed fds to 3, 4, ...: first above every target, so no dup2 clobbers one not yet moved.
  int high[8];
  for (size_t i = 0; i < npass && i < 8; ++i) high[i] = ::fcntl(pass[i], F_DUPFD, 64);
  for (size_t i = 0; i < npass && i < 8; ++i) ::dup2(high[i], int(STDERR_FILENO + 1 + i));
  ::close_range(static_cast<unsigned>(STDERR_FILENO + 1 + npass), ~0U, 0);
  ::execvp(argv[0], argv);
  ::_exit(127);
}

}  // namespace

bool CapturedRun::ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

PerfChild::~PerfChild() {
  if (pid_ > 0) reap(true);
  if (fd_ >= 0) ::close(fd_);
}

Result<> PerfChild::start(const std::vector<std::string> &argv, const std::vector<int> &pass, int cwd_fd) {
  std::vector<char *> args;
  for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Error("cannot fork " + argv[0] + ": " + std::strerror(e));
  }
  if (pid == 0) exec_child(fds[1], parent, args.data(), pass.data(), pass.size(), cwd_fd);
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  pid_ = pid;
  fd_ = fds[0];
  return {};
}

bool PerfChild::drain(size_t max_bytes) {
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return false;           // EOF
    if (n < 0) return errno == EAGAIN;  // nothing more now: still open
    out_.append(chunk, static_cast<size_t>(n));
    if (out_.size() > max_bytes) return false;
  }
}

bool PerfChild::exited() const {
  siginfo_t si{};
  return pid_ > 0 && ::waitid(P_PID, static_cast<id_t>(pid_), &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         si.si_pid == pid_;
}

int PerfChild::reap(bool kill) {
  if (kill) ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  pid_ = -1;
  return status;
}

Result<int> PerfChild::wait_all(size_t max_bytes, int timeout_ms, const std::atomic<bool> *stop) {
  if (pid_ <= 0) return Error("no child running");
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  bool open = true;
  while (open || !exited()) {
    if (stop && stop->load()) {
      reap(true);
      return Error("stopped");
    }
    if (Clock::now() >= deadline) {
      reap(true);
      return Error("timed out after " + std::to_string(timeout_ms / 1000) + " s");
    }
    if (!open) {
      ::usleep(2000);
      continue;
    }
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) open = drain(max_bytes);
    if (out_.size() > max_bytes) {
      reap(true);
      return Error("wrote more than " + std::to_string(max_bytes >> 20) + " MiB");
    }
  }
  return reap(false);
}

std::optional<int> PerfChild::stop(int sig, int timeout_ms) {
  if (pid_ <= 0) return std::nullopt;
  ::kill(pid_, sig);
  auto status = wait_all(1 << 20, timeout_ms, nullptr);
  if (!status) return std::nullopt;
  return *status;
}

Result<CapturedRun> run_captured(const std::vector<std::string> &argv, size_t max_bytes, int timeout_ms,
                                 const std::atomic<bool> *stop, int cwd_fd) {
  PerfChild child;
  BB_TRY(child.start(argv, {}, cwd_fd));
  auto status = child.wait_all(max_bytes, timeout_ms, stop);
  if (!status) return Error(argv[0] + ": " + status.error().message);
  return CapturedRun{*status, child.output()};
}

}  // namespace bpfbench
