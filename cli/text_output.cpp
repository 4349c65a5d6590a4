#include "cli/text_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace bpfbench::cli {

namespace {

ssize_t write_stream(void *cookie, const char *buf, size_t size) {
  auto *s = static_cast<TextOutputGuard::Stream *>(cookie);
  for (size_t done = 0; !s->broken && done < size;) {
    ssize_t n = ::write(s->fd, buf + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    s->broken = true;
    if (n < 0 && errno == EPIPE) {
      s->stop->request_stop(SIGPIPE);
    } else {
      // e.g. a full disk under `> file`: say so once, where it may still be seen.
      const char *why = n < 0 ? std::strerror(errno) : "nothing written";
      dprintf(STDERR_FILENO, "bpfbench: warning: text output to fd %d stopped: %s\n", s->fd, why);
    }
  }
  return static_cast<ssize_t>(size);  // dropped text is "written": callers never see an error
}

FILE *open_stream(TextOutputGuard::Stream &s, int mode) {
  cookie_io_functions_t io{};
  io.write = write_stream;
  FILE *f = fopencookie(&s, "w", io);
  if (f) setvbuf(f, nullptr, mode, BUFSIZ);
  return f;
}

}  // namespace

TextOutputGuard::TextOutputGuard(StopSource &stop) : out_{STDOUT_FILENO, &stop}, err_{STDERR_FILENO, &stop} {
  std::fflush(stdout);
  std::fflush(stderr);
  // The C library documents stdout/stderr as assignable; fmt::print and printf read them.
  FILE *out = open_stream(out_, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
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

TextOutputGuard::~TextOutputGuard() {
  if (!orig_out_) return;
  FILE *out = stdout, *err = stderr;
  stdout = orig_out_;
  stderr = orig_err_;
  fclose(out);
  fclose(err);
}

}  // namespace bpfbench::cli
