// Captures libbpf's messages (verifier logs, attach errors) while a libbpf call runs.
#pragma once

#include <cstddef>
#include <string>

namespace bpfbench {

// libbpf has one process-wide print callback without a user pointer, so the capture
// target is per thread: while a LibbpfLogCapture lives, libbpf messages (WARN and
// INFO; DEBUG only when `echo` is set) emitted on this thread are appended to it.
// Captures nest; concurrent captures on two threads are not supported (bpfbench loads
// one point at a time).
class LibbpfLogCapture {
 public:
  explicit LibbpfLogCapture(bool echo_to_stderr = false);
  ~LibbpfLogCapture();
  LibbpfLogCapture(const LibbpfLogCapture &) = delete;
  LibbpfLogCapture &operator=(const LibbpfLogCapture &) = delete;

  const std::string &text() const { return text_; }
  void clear() { text_.clear(); }

  // Called by the libbpf callback; public only for it.
  void append(int level, const char *msg);

 private:
  std::string text_;
  bool echo_;
  void *prev_fn_;  // libbpf_print_fn_t, kept opaque here
  LibbpfLogCapture *prev_capture_;
};

// The verifier log libbpf prints between "-- BEGIN PROG LOAD LOG --" and
// "-- END PROG LOAD LOG --" (the last such block), or "" when there is none.
std::string extract_verifier_log(const std::string &libbpf_text);

// The last `n` non-empty lines of `text`, joined with '\n'.
std::string last_lines(const std::string &text, size_t n);

}  // namespace bpfbench
