// `bpfbench run`'s text output on a pipe that closes (`bpfbench run x | head`): a stop
// request, not a SIGPIPE death or an exception, so the measured points are kept.
#pragma once

#include <cstdio>

#include "runtime/stop.hpp"

namespace bpfbench::cli {

// While alive, stdout and stderr are streams over fds 1 and 2 whose writes never fail:
// EPIPE becomes stop.request_stop(SIGPIPE) (the run ends as on a signal, exit 141) and
// later text is dropped; another write error drops the text after one warning on fd 2.
// SIGPIPE must be blocked (main does). The destructor flushes and puts the originals back.
class TextOutputGuard {
 public:
  explicit TextOutputGuard(StopSource &stop);
  ~TextOutputGuard();
  TextOutputGuard(const TextOutputGuard &) = delete;
  TextOutputGuard &operator=(const TextOutputGuard &) = delete;

  // One of the two streams (public for the fopencookie callback).
  struct Stream {
    int fd;
    StopSource *stop;
    bool broken = false;
  };

 private:
  Stream out_, err_;
  FILE *orig_out_ = nullptr, *orig_err_ = nullptr;
};

}  // namespace bpfbench::cli
