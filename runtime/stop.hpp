// Cooperative stop: a flag every runtime loop polls, set by the caller or by a stop signal
// (SIGINT, SIGTERM, SIGHUP, SIGPIPE).
#pragma once

#include <atomic>
#include <csignal>
#include <stdexcept>
#include <thread>

namespace bpfbench {

class StopSource {
 public:
  // `signo` records why (0 = programmatic stop); the first reason wins.
  void request_stop(int signo = 0) {
    int expected = 0;
    if (signo) signal_.compare_exchange_strong(expected, signo);
    stop_.store(true, std::memory_order_release);
  }
  bool stop_requested() const { return stop_.load(std::memory_order_acquire); }
  int signal() const { return signal_.load(); }
  const std::atomic<bool> &flag() const { return stop_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> signal_{0};
};

// What could not be created for lack of a resource (a thread, a process), with the limit
// to raise: main prints it as an error, exit 2.
struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// 130 for SIGINT, 143 for SIGTERM, 129 SIGHUP, 141 SIGPIPE (128 + signal), 0 when no
// signal stopped the run.
int exit_code_for(const StopSource &stop);

// Blocks the stop signals in the calling thread for good. main() calls it first, before
// any work, so a signal arriving early is held pending (never lost) until a command's
// SignalWatcher takes it; after the watcher is gone a signal stays pending and dies with
// the process, instead of killing a run whose results and exit code are already decided.
void block_stop_signals();
// For commands that poll no stop flag: a held or later stop signal ends the process
// (its default action), as for any program.
void unblock_stop_signals();

// Blocks the stop signals in the calling thread (and so in every thread created after
// it) and runs a watcher thread that waits for them on a signalfd and turns them into
// stop.request_stop(sig). No work happens in a signal handler. The destructor wakes the
// watcher through an eventfd (at once: no polling tick to wait out on the way out), joins
// it and restores the signal mask. Throws ResourceError when the descriptors or the thread
// cannot be created.
class SignalWatcher {
 public:
  explicit SignalWatcher(StopSource &stop);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher &) = delete;
  SignalWatcher &operator=(const SignalWatcher &) = delete;

 private:
  void watch();
  void close_fds();

  StopSource &stop_;
  int signal_fd_ = -1;
  int wake_fd_ = -1;
  sigset_t old_mask_{};
  std::thread thread_;
};

}  // namespace bpfbench
