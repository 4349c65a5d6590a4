#include "util/limited_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <new>
#include <thread>

#include "util/process_owner.hpp"
#include "util/limit_hints.hpp"

namespace bpfbench {

namespace {

using Clock = std::chrono::steady_clock;

// The address space mapped now (VmSize), which a fork copies; 0 when unknown.
uint64_t address_space_now() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  if (!(statm >> pages)) return 0;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

void set_limit(int resource, rlim_t soft, rlim_t hard) {
  rlimit rl{soft, hard};
  ::setrlimit(resource, &rl);
}

// Runs in the child between fork and `body`; async-signal-safe calls only until the
// limits are in place. Returns the pipe fd, moved above stderr if needed.
int child_setup(int fd, pid_t parent, rlim_t address_space, unsigned cpu_seconds) {
  // Killed with the thread that forked us; a parent gone before this line is caught by
  // the getppid() check (we were reparented already).
  die_with_parent(parent);
  // The pipe may have landed on 0-2 when bpfbench was started with those closed.
  if (fd <= STDERR_FILENO) fd = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  // Nothing from the child reads bpfbench's stdin (an `#include "/dev/stdin"` in inline
  // code reads nothing) or reaches its terminal: results travel over the pipe.
  int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC), out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (in < 0 || out < 0 || fd < 0) ::_exit(1);
  ::dup2(in, STDIN_FILENO);
  ::dup2(out, STDOUT_FILENO);
  ::dup2(out, STDERR_FILENO);
  // Drop inherited fds (e.g. a concurrent compile's pipe, whose reader would otherwise
  // wait for our exit to see EOF).
  if (fd > STDERR_FILENO + 1) ::close_range(STDERR_FILENO + 1, static_cast<unsigned>(fd) - 1, 0);
  ::close_range(static_cast<unsigned>(fd) + 1, ~0U, 0);
  set_limit(RLIMIT_CORE, 0, 0);   // a crash or SIGXCPU leaves no core file
#if !defined(__SANITIZE_ADDRESS__)
  set_limit(RLIMIT_FSIZE, 0, 0);  // the child writes no file, only the pipe
#endif
  // (Under ASan the child may write one: its sanitizer report, which must not be lost.)
  if (address_space != RLIM_INFINITY) set_limit(RLIMIT_AS, address_space, address_space);
  if (cpu_seconds > 0) {
    rlimit own{};
    ::getrlimit(RLIMIT_CPU, &own);
    set_limit(RLIMIT_CPU, cpu_seconds, std::min<rlim_t>(own.rlim_max, cpu_seconds + 1));
  }
  std::set_new_handler([] { child_out_of_memory(); });
  return fd;
}

// Reads what is there without blocking; false at EOF or on an error.
bool drain(int fd, std::string &out, size_t max_output, bool &too_long) {
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN;
    if (n == 0) return false;
    out.append(chunk, static_cast<size_t>(n));
    if (out.size() > max_output) {
      too_long = true;
      return false;
    }
  }
}

// The forked child, killed (if still running) and reaped by the destructor: whatever
// ends the call (a return, an exception), no child outlives it.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid) {}
  ~ChildGuard() {
    if (pid_ > 0) reap(true);
  }
  ChildGuard(const ChildGuard &) = delete;
  ChildGuard &operator=(const ChildGuard &) = delete;

  // Waits for the child (SIGKILLed first when `kill`); the wait status.
  int reap(bool kill, rusage *ru = nullptr) {
    if (kill) ::kill(pid_, SIGKILL);
    int status = 0;
    rusage local{};
    while (::wait4(pid_, &status, 0, ru ? ru : &local) < 0 && errno == EINTR) {}
    pid_ = -1;
    return status;
  }
  // Whether the child has exited, without reaping it.
  bool exited() const {
    siginfo_t si{};
    return ::waitid(P_PID, static_cast<id_t>(pid_), &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid_;
  }

 private:
  pid_t pid_;
};

// How the child ended, from its wait status and rusage and why we killed it (if we did).
void classify(ChildEnd &end, int status, const rusage &ru, ChildEnd::How why_killed, bool too_long, size_t max_output) {
  end.cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  end.max_rss_kb = ru.ru_maxrss;
  if (why_killed != ChildEnd::How::Exited) {
    end.how = why_killed;
  } else if (too_long) {
    end.how = ChildEnd::How::Exited;
    end.code = -1;
    end.error = "the compile child sent more than " + std::to_string(max_output >> 20) + " MiB";
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    // SIGXCPU at the soft limit, SIGKILL at the hard one a second later.
    const bool cpu = end.cpu_limit > 0 && (sig == SIGXCPU || (sig == SIGKILL && end.cpu_s >= end.cpu_limit));
    end.how = cpu ? ChildEnd::How::CpuLimit : ChildEnd::How::Signaled;
    end.code = sig;
  } else {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    end.how = code == kChildOutOfMemoryExit ? ChildEnd::How::MemoryLimit : ChildEnd::How::Exited;
    end.code = code;
  }
}

// The child's limits, computed before the fork (the child allocates nothing before they
// are set): its address space (returned; RLIM_INFINITY without a memory limit) and its CPU
// seconds (into `end`), each lowered to bpfbench's own limit where that binds.
rlim_t plan_limits(const ChildLimits &limits, ChildEnd &end) {
  rlim_t address_space = RLIM_INFINITY;
  if (uint64_t now = limits.memory_bytes > 0 ? address_space_now() : 0; now > 0) {
    address_space = now + limits.memory_bytes;
    rlimit own{};
    if (::getrlimit(RLIMIT_AS, &own) == 0 && own.rlim_max < address_space) {
      address_space = own.rlim_max;  // may not be raised: bpfbench's own limit binds
      end.inherited_memory_limit = true;
    }
    end.address_space_limit = address_space;
  }
  // The child's CPU clock starts at 0: bpfbench's own RLIMIT_CPU (which may not be raised)
  // applies to it whole.
  end.cpu_limit = limits.cpu_seconds;
  if (rlimit own{}; ::getrlimit(RLIMIT_CPU, &own) == 0 && own.rlim_cur != RLIM_INFINITY &&
                    (end.cpu_limit == 0 || own.rlim_cur < end.cpu_limit)) {
    end.cpu_limit = static_cast<unsigned>(own.rlim_cur);
    end.inherited_cpu_limit = true;
  }
  return address_space;
}

// Reads the child's pipe until EOF, then waits for its exit (it _exits right after
// writing), checking the stop flag and the deadline every 50 ms throughout. Why it must be
// killed (Exited: it need not), and in `too_long` whether its output passed `max_output`.
ChildEnd::How watch_child(int fd, const ChildGuard &child, const ChildLimits &limits, const std::atomic<bool> *stop,
                          size_t max_output, std::string &output, bool &too_long) {
  const auto deadline =
      limits.wall_seconds > 0 ? Clock::now() + std::chrono::seconds(limits.wall_seconds) : Clock::time_point::max();
  bool open = true;
  for (;;) {
    if (stop && stop->load()) return ChildEnd::How::Stopped;
    if (Clock::now() >= deadline) return ChildEnd::How::WallLimit;
    if (!open && child.exited()) return ChildEnd::How::Exited;
    if (!open) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) open = drain(fd, output, max_output, too_long);
    if (too_long) return ChildEnd::How::Exited;
  }
}

}  // namespace

void child_out_of_memory() { ::_exit(kChildOutOfMemoryExit); }

ChildEnd run_limited_child(const std::function<void(int fd)> &body, const ChildLimits &limits,
                           const std::atomic<bool> *stop, size_t max_output) {
  ChildEnd end;
  const rlim_t address_space = plan_limits(limits, end);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    end.error = std::string("cannot create a pipe for the compile child: ") + std::strerror(errno);
    return end;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    end.error = std::string("cannot fork the compile child: ") + std::strerror(e);
    if (e == EAGAIN || e == ENOMEM) end.error += " (" + task_limit_hint() + ")";
    ::close(fds[0]);
    ::close(fds[1]);
    return end;
  }
  if (pid == 0) {
    ::close(fds[0]);
    int fd = child_setup(fds[1], parent, address_space, end.cpu_limit);
    ::fcntl(fd, F_SETFL, 0);  // blocking writes in the child
    body(fd);
    ::_exit(71);
  }
  ::close(fds[1]);
  ChildGuard child(pid);
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } reader{fds[0]};

  bool too_long = false;
  const auto why_killed = watch_child(fds[0], child, limits, stop, max_output, end.output, too_long);
  rusage ru{};
  const bool kill = why_killed != ChildEnd::How::Exited || too_long;
  classify(end, child.reap(kill, &ru), ru, why_killed, too_long, max_output);
  return end;
}

}  // namespace bpfbench
