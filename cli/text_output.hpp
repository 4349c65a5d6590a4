// The one text sink every command prints through: main() makes stdout and stderr streams
// over fds 1 and 2 whose every write is checked, so no command can lose its output with
// exit 0, and no command has to remember to check.
#pragma once

#include <cstdio>
#include <string>

#include "util/escape.hpp"

namespace bpfbench::cli {

// While alive, `stdout` and `stderr` (what fmt::print and printf write to) are streams over
// fds 1 and 2 whose writes never fail as seen by the caller (fmt::print never throws
// "cannot write to file"); what went wrong is kept for finish():
// - a write error (a full disk under `> file`, /dev/full, EIO) is said at once on stderr
//   ("bpfbench: error: cannot write to standard output: No space left on device") and the
//   stream's later text is dropped;
// - EPIPE (the reader of a pipe went away) is the SIGPIPE it is, sent to the process: a
//   command with a SignalWatcher stops as on SIGINT (its measured points kept) and exits
//   141; the others die of it, as any program does. The write's own SIGPIPE goes to the
//   writing thread, which holds it blocked, where the watcher never sees it.
// On a terminal, control characters (ANSI escape sequences from a label, a results file or a
// template) are made printable as printable_text does; newlines and tabs are kept.
// Streams not on a terminal get the bytes as they are. The destructor puts the originals back.
class TextOutput {
 public:
  TextOutput();
  ~TextOutput();
  TextOutput(const TextOutput &) = delete;
  TextOutput &operator=(const TextOutput &) = delete;

  // Flushes both streams and returns the process's exit code for the command's `code`:
  // kExitBadInput when text was lost to a write error (a failure code >= 2 is kept), 141
  // when a pipe closed under a command that ended 0 or 1, else `code`.
  int finish(int code);

  // One of the two streams (public for the fopencookie callback).
  struct Stream {
    int fd;
    const char *name;  // "standard output"
    bool terminal = false;
    TerminalText filter;
    int error = 0;  // the first write's errno, EIO for a write that wrote nothing
  };

 private:
  Stream out_, err_;
  FILE *orig_out_ = nullptr, *orig_err_ = nullptr;
};

}  // namespace bpfbench::cli
