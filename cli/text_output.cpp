#include "cli/text_output.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "cli/commands.hpp"

namespace bpfbench::cli {

namespace {

constexpr int kExitBrokenPipe = 128 + SIGPIPE;

// All of `text` on the stream's fd, or the first error in s.error.
void write_all(TextOutput::Stream &s, std::string_view text) {
  for (size_t done = 0; s.error == 0 && done < text.size();) {
    ssize_t n = ::write(s.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    s.error = n < 0 ? errno : EIO;
    if (s.error == EPIPE) {
      ::kill(::getpid(), SIGPIPE);  // process-directed: the SignalWatcher's signalfd sees it
    } else if (s.fd != STDERR_FILENO) {
      // Said where it may still be seen; written directly, as stderr's own stream may be the one in trouble.
      std::string msg =
          std::string("bpfbench: error: cannot write to ") + s.name + ": " + std::strerror(s.error) + "\n";
      [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, msg.data(), msg.size());
    }
  }
}

ssize_t write_stream(void *cookie, const char *buf, size_t size) {
  auto &s = *static_cast<TextOutput::Stream *>(cookie);
  if (s.terminal) write_all(s, s.filter.feed({buf, size}));
  else write_all(s, {buf, size});
  return static_cast<ssize_t>(size);  // dropped text is "written": the error waits for finish()
}

FILE *open_stream(TextOutput::Stream &s, int mode) {
  cookie_io_functions_t io{};
  io.write = write_stream;
  FILE *f = fopencookie(&s, "w", io);
  if (f) setvbuf(f, nullptr, mode, BUFSIZ);
  return f;
}

}  // namespace

TextOutput::TextOutput()
    : out_{STDOUT_FILENO, "standard output", isatty(STDOUT_FILENO) == 1, {}, 0},
      err_{STDERR_FILENO, "standard error", isatty(STDERR_FILENO) == 1, {}, 0} {
  std::fflush(stdout);
  std::fflush(stderr);
  // The C library documents stdout/stderr as assignable; fmt::print and printf read them.
  FILE *out = open_stream(out_, out_.terminal ? _IOLBF : _IOFBF);
  FILE *err = open_stream(err_, _IONBF);
  if (!out || !err) {  // no memory for two FILEs: keep the originals
    if (out) fclose(out);
    if (err) fclose(err);
    return;
  }
  orig_out_ = stdout;
  orig_err_ = stderr;
  stdout = out;
  stderr = err;
}

TextOutput::~TextOutput() {
  if (!orig_out_) return;
  FILE *out = stdout, *err = stderr;
  stdout = orig_out_;
  stderr = orig_err_;
  fclose(out);
  fclose(err);
}

int TextOutput::finish(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  for (Stream *s : {&out_, &err_})
    if (s->terminal) write_all(*s, s->filter.finish());
  const bool lost = (out_.error != 0 && out_.error != EPIPE) || (err_.error != 0 && err_.error != EPIPE);
  if (lost) return code >= kExitBadInput ? code : kExitBadInput;
  if ((out_.error == EPIPE || err_.error == EPIPE) && code < kExitBadInput) return kExitBrokenPipe;
  return code;
}

}  // namespace bpfbench::cli
