#include "runtime/stop.hpp"

#include <pthread.h>

#include <cerrno>
#include <ctime>
#include <string>
#include <system_error>

#include "compiler/resource_limits.hpp"

namespace bpfbench {

int exit_code_for(const StopSource &stop) { return stop.signal() ? 128 + stop.signal() : 0; }

namespace {
sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);   // the terminal went away: keep what was measured
  sigaddset(&s, SIGPIPE);  // `kill -PIPE`; a write to a closed pipe is EPIPE (cli/text_output)
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
  try {
    thread_ = std::thread([this, set] {
      // Short timeouts so the destructor never waits long for this thread.
      const timespec tick{0, 100 * 1000 * 1000};
      while (!done_.load()) {
        int sig = sigtimedwait(&set, nullptr, &tick);
        if (sig > 0) stop_.request_stop(sig);
      }
    });
  } catch (const std::system_error &e) {
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    throw ResourceError(std::string("cannot create the signal-watching thread: ") + e.code().message() + " (" +
                        task_limit_hint() + ")");
  }
}

SignalWatcher::~SignalWatcher() {
  done_.store(true);
  if (thread_.joinable()) thread_.join();
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace bpfbench
