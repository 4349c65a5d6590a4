#include "runtime/stop.hpp"

#include <pthread.h>

#include <cerrno>
#include <ctime>

namespace bpfbench {

int exit_code_for(const StopSource &stop) { return stop.signal() ? 128 + stop.signal() : 0; }

namespace {
sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  return s;
}
}  // namespace

void block_stop_signals() {
  sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

SignalWatcher::SignalWatcher(StopSource &stop) : stop_(stop) {
  sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
  thread_ = std::thread([this, set] {
    // Short timeouts so the destructor never waits long for this thread.
    const timespec tick{0, 100 * 1000 * 1000};
    while (!done_.load()) {
      int sig = sigtimedwait(&set, nullptr, &tick);
      if (sig > 0) stop_.request_stop(sig);
    }
  });
}

SignalWatcher::~SignalWatcher() {
  done_.store(true);
  if (thread_.joinable()) thread_.join();
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace bpfbench
