#include "runtime/libbpf_log.hpp"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace bpfbench {
namespace {

// The capture receiving this thread's libbpf messages. A thread_local is forced on us:
// libbpf_print_fn_t carries no user pointer.
thread_local LibbpfLogCapture *tl_capture = nullptr;

int print_to_capture(enum libbpf_print_level level, const char *fmt, va_list args) {
  LibbpfLogCapture *cap = tl_capture;
  if (!cap) return 0;
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (n <= 0) return n;
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  vsnprintf(buf.data(), buf.size(), fmt, args);
  cap->append(static_cast<int>(level), buf.data());
  return n;
}

}  // namespace

LibbpfLogCapture::LibbpfLogCapture(bool echo_to_stderr) : echo_(echo_to_stderr), prev_capture_(tl_capture) {
  prev_fn_ = reinterpret_cast<void *>(libbpf_set_print(print_to_capture));
  tl_capture = this;
}

LibbpfLogCapture::~LibbpfLogCapture() {
  tl_capture = prev_capture_;
  libbpf_set_print(reinterpret_cast<libbpf_print_fn_t>(prev_fn_));
}

void LibbpfLogCapture::append(int level, const char *msg) {
  if (level == LIBBPF_DEBUG) {
    if (echo_) fputs(msg, stderr);
    return;
  }
  text_ += msg;
  if (echo_) fputs(msg, stderr);
}

std::string extract_verifier_log(const std::string &text) {
  static constexpr std::string_view kBegin = "-- BEGIN PROG LOAD LOG --";
  static constexpr std::string_view kEnd = "-- END PROG LOAD LOG --";
  size_t b = text.rfind(kBegin);
  if (b == std::string::npos) return "";
  b += kBegin.size();
  if (b < text.size() && text[b] == '\n') ++b;
  size_t e = text.find(kEnd, b);
  return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

std::string last_lines(const std::string &text, size_t n) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (nl > pos) lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  size_t first = lines.size() > n ? lines.size() - n : 0;
  std::string out;
  for (size_t i = first; i < lines.size(); ++i) {
    if (!out.empty()) out += '\n';
    out += lines[i];
  }
  return out;
}

}  // namespace bpfbench
