// Cooperative stop: a flag every runtime loop polls, set by the caller or by SIGINT/SIGTERM.
#pragma once

#include <atomic>
#include <csignal>
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

// 130 for SIGINT, 143 for SIGTERM (128 + signal), 0 when no signal stopped the run.
int exit_code_for(const StopSource &stop);

// Blocks SIGINT and SIGTERM in the calling thread for good. Call it before the
// SignalWatcher of a command that exits when done: a signal arriving after the watcher
// is gone then stays pending and dies with the process, instead of killing a run whose
// results and exit code are already decided.
void block_stop_signals();

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread created after
// it — construct it first in main) and runs a watcher thread that waits for them with
// sigtimedwait and turns them into stop.request_stop(sig). No work happens in a signal
// handler. The destructor stops the watcher and restores the signal mask.
class SignalWatcher {
 public:
  explicit SignalWatcher(StopSource &stop);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher &) = delete;
  SignalWatcher &operator=(const SignalWatcher &) = delete;

 private:
  StopSource &stop_;
  std::atomic<bool> done_{false};
  sigset_t old_mask_{};
  std::thread thread_;
};

}  // namespace bpfbench
