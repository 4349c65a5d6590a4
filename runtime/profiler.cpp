#include "runtime/profiler.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "compiler/atomic_file.hpp"

namespace bpfbench {

namespace {

constexpr size_t kMaxScriptBytes = size_t(512) << 20;  // perf script text of a long point
constexpr int kStopTimeoutMs = 20'000;                 // perf record writes its header
constexpr int kScriptTimeoutMs = 120'000;
constexpr int kReadyTimeoutMs = 15'000;  // perf record's start-up, loaded machine

std::string last_line(const std::string &text) {
  size_t end = text.find_last_not_of("\n ");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

bool non_empty_file(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

}  // namespace

std::string probe_perf(const std::string &perf) {
  auto run = run_captured({perf, "--version"}, 1 << 16, 10'000);
  if (!run) return run.error().message;
  if (WIFEXITED(run->status) && WEXITSTATUS(run->status) == 127)
    return "'" + perf + "' not found (Debian: apt-get install linux-perf)";
  if (!run->ok() || run->output.find("perf version") == std::string::npos)
    return "'" + perf + " --version' failed: " + last_line(run->output);
  return "";
}

PointProfiler::PointProfiler(const ProfileOptions &opts, const std::string &label) : opts_(opts) {
  auto it = opts.stem_of.find(label);
  stem_ = it != opts.stem_of.end() ? it->second : profile_file_stem(label);
  sum_.event = opts.event;
  sum_.data_path = opts.dir + "/" + stem_ + ".perf.data";
  if (opts.folded) sum_.folded_path = opts.dir + "/" + stem_ + ".folded";
  // perf renames an existing output to .old: a fresh name, renamed over the target later.
  tmp_path_ = opts.dir + "/." + stem_ + ".perf.data." + std::to_string(::getpid());
}

PointProfiler::~PointProfiler() {
  for (int fd : {ctl_w_, ack_r_})
    if (fd >= 0) ::close(fd);
}

// Writes a control command; with `wait_ack`, reads perf's "ack" (up to `timeout_ms`).
bool PointProfiler::command(const char *cmd, bool wait_ack, int timeout_ms) {
  const size_t len = std::strlen(cmd);
  // A socket, not a pipe: MSG_NOSIGNAL, so a perf that died is an error, not a SIGPIPE.
  if (ctl_w_ < 0 || ::send(ctl_w_, cmd, len, MSG_NOSIGNAL) != static_cast<ssize_t>(len)) return false;
  if (!wait_ack) return true;
  std::string got;
  for (int waited = 0; waited < timeout_ms && got.find("ack") == std::string::npos; waited += 50) {
    pollfd p{ack_r_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[64];
    ssize_t n = ::read(ack_r_, buf, sizeof buf);
    if (n <= 0) return false;
    got.append(buf, static_cast<size_t>(n));
  }
  return got.find("ack") != std::string::npos;
}

void PointProfiler::prepare() {
  ::unlink(tmp_path_.c_str());
  int ctl[2], ack[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) != 0 || ::pipe2(ack, O_CLOEXEC) != 0) {
    sum_.error = std::string("cannot create perf's control pipes: ") + std::strerror(errno);
    return;
  }
  record_ = std::make_unique<PerfChild>();
  // -p: every thread of bpfbench (the producers run the BPF programs in their syscalls;
  // threads created later inherit the events), -g: call graphs for the folded stacks,
  // -D -1: events off until "enable" on the control fd.
  auto started =
      record_->start({opts_.perf, "record", "-e", opts_.event, "-F", std::to_string(opts_.frequency), "-g", "-p",
                      std::to_string(::getpid()), "-o", tmp_path_, "--no-buildid", "-D", "-1", "--control", "fd:3,4"},
                     {ctl[0], ack[1]});
  ::close(ctl[0]);
  ::close(ack[1]);
  ctl_w_ = ctl[1];
  ack_r_ = ack[0];
  if (!started) {
    sum_.error = "perf record: " + started.error().message;
    record_.reset();
    return;
  }
  if (!command("ping\n", true, kReadyTimeoutMs)) {
    end();
    if (sum_.error.empty()) sum_.error = "perf record did not answer on its control fd";
  }
}

void PointProfiler::begin() {
  if (record_) command("enable\n", false, 0);
}

void PointProfiler::end() {
  if (!record_) return;
  command("disable\n", false, 0);
  std::optional<int> status = record_->stop(SIGINT, kStopTimeoutMs);
  // perf ends on SIGINT by raising it again once its file is complete.
  bool clean = status && ((WIFEXITED(*status) && WEXITSTATUS(*status) == 0) ||
                          (WIFSIGNALED(*status) && WTERMSIG(*status) == SIGINT));
  if (!clean || !non_empty_file(tmp_path_)) {
    std::string why = last_line(record_->output());
    if (status && WIFEXITED(*status) && WEXITSTATUS(*status) == 127) why = "perf not found";
    sum_.error = "perf record failed" + (why.empty() ? std::string() : ": " + why);
  }
  record_.reset();
}

ProfileSummary PointProfiler::finish(const std::atomic<bool> *stop) {
  if (!sum_.error.empty() || !non_empty_file(tmp_path_)) {
    if (sum_.error.empty()) sum_.error = "perf recorded nothing (the measured part did not start)";
    ::unlink(tmp_path_.c_str());
    return sum_;
  }
  auto script = run_captured({opts_.perf, "script", "-i", tmp_path_, "-F", "comm,tid,ip,sym,dso", "--no-inline"},
                             kMaxScriptBytes, kScriptTimeoutMs, stop);
  if (!script || !script->ok()) {
    sum_.error = "perf script failed: " + (script ? last_line(script->output) : script.error().message);
  } else {
    ParsedProfile parsed = parse_perf_script(script->output);
    sum_.samples = parsed.samples;
    sum_.top = top_symbols(parsed, 12);
    if (opts_.folded) {
      if (std::string why = write_file_atomic(sum_.folded_path, folded_text(parsed)); !why.empty()) {
        sum_.error = why;
        sum_.folded_path.clear();
      }
    }
  }
  if (std::string why = output_target_problem(sum_.data_path); !why.empty()) {
    sum_.error = why;
    ::unlink(tmp_path_.c_str());
  } else if (::rename(tmp_path_.c_str(), sum_.data_path.c_str()) != 0) {
    sum_.error = "cannot rename the recording to " + sum_.data_path;
    ::unlink(tmp_path_.c_str());
  }
  return sum_;
}

}  // namespace bpfbench
