#include "runtime/stop.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <string>
#include <system_error>

#include "util/limit_hints.hpp"

namespace bpfbench {

int exit_code_for(const StopSource &stop) { return stop.signal() ? 128 + stop.signal() : 0; }

namespace {
sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);   // the terminal went away: keep what was measured
  sigaddset(&s, SIGPIPE);  // `kill -PIPE`, or a closed stdout/stderr pipe (cli/text_output sends it)
  return s;
}
}  // namespace

void block_stop_signals() {
  sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void unblock_stop_signals() {
  sigset_t set = stop_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

SignalWatcher::SignalWatcher(StopSource &stop) : stop_(stop) {
  sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
  signal_fd_ = ::signalfd(-1, &set, SFD_CLOEXEC);
  wake_fd_ = signal_fd_ < 0 ? -1 : ::eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    std::string why = std::strerror(errno);
    close_fds();
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    throw ResourceError("cannot create the signal-watching descriptors: " + why);
  }
  try {
    thread_ = std::thread([this] { watch(); });
  } catch (const std::system_error &e) {
    close_fds();
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    throw ResourceError(std::string("cannot create the signal-watching thread: ") + e.code().message() + " (" +
                        task_limit_hint() + ")");
  }
}

// Until the destructor writes the eventfd: each stop signal read from the signalfd (the
// signals stay blocked in every thread, so this is where they arrive) becomes a stop request.
void SignalWatcher::watch() {
  pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno != EINTR) ::usleep(10'000);  // not expected with two valid descriptors
      continue;
    }
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo si{};
      if (::read(signal_fd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
        stop_.request_stop(static_cast<int>(si.ssi_signo));
    }
    if (fds[1].revents) return;
  }
}

void SignalWatcher::close_fds() {
  if (signal_fd_ >= 0) ::close(signal_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  signal_fd_ = wake_fd_ = -1;
}

SignalWatcher::~SignalWatcher() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    // Fails only with EAGAIN, when the counter is already near 2^64: readable either way,
    // so the watcher wakes and the join returns.
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
    thread_.join();
  }
  close_fds();
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace bpfbench
