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

namespace bpfbench {

namespace {

constexpr size_t kMaxScriptBytes = size_t(512) << 20;  // perf script text of a long point
constexpr int kStopTimeoutMs = 20'000;                 // perf record writes its header
constexpr int kScriptTimeoutMs = 120'000;
constexpr int kReadyTimeoutMs = 15'000;  // perf record's start-up, loaded machine
// perf's file, in the run's private folder (perf's working directory).
constexpr const char *kRecording = "perf.data";
// The private folders' names; what a killed run left is found by it.
constexpr const char *kWorkPrefix = ".bpfbench-profile-";

std::string last_line(const std::string &text) {
  size_t end = text.find_last_not_of("\n ");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

bool non_empty_file(const SafeDir &dir, const char *name) {
  struct stat st {};
  return ::fstatat(dir.fd(), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

}  // namespace

Result<std::shared_ptr<const ProfileFolders>> open_profile_folders(const std::string &parent, const std::string &name) {
  auto out = SafeDir::open_child(parent, name);
  if (!out) return out.error();
  auto f = std::make_shared<ProfileFolders>();
  f->stale_removed = out->remove_stale(kWorkPrefix);
  auto work = out->make_private(kWorkPrefix);
  if (!work) return work.error();
  f->out = std::move(*out);
  f->work = std::move(*work);
  return std::shared_ptr<const ProfileFolders>(std::move(f));
}

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
  const std::string dir = opts.folders ? opts.folders->out.path() : "profiles";
  sum_.data_path = dir + "/" + stem_ + ".perf.data";
  if (opts.folded) sum_.folded_path = dir + "/" + stem_ + ".folded";
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
  if (!opts_.folders) {
    sum_.error = "no profiles folder";
    return;
  }
  const SafeDir &work = opts_.folders->work;
  ::unlinkat(work.fd(), kRecording, 0);  // an earlier point's, if it could not be moved out
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
                      std::to_string(::getpid()), "-o", kRecording, "--no-buildid", "-D", "-1", "--control", "fd:3,4"},
                     {ctl[0], ack[1]}, work.fd());
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
  if (!clean || !non_empty_file(opts_.folders->work, kRecording)) {
    std::string why = last_line(record_->output());
    if (status && WIFEXITED(*status) && WEXITSTATUS(*status) == 127) why = "perf not found";
    sum_.error = "perf record failed" + (why.empty() ? std::string() : ": " + why);
  }
  record_.reset();
}

ProfileSummary PointProfiler::finish(const std::atomic<bool> *stop) {
  if (!opts_.folders) return sum_;  // prepare() said why
  const SafeDir &work = opts_.folders->work, &out = opts_.folders->out;
  if (!sum_.error.empty() || !non_empty_file(work, kRecording)) {
    if (sum_.error.empty()) sum_.error = "perf recorded nothing (the measured part did not start)";
    ::unlinkat(work.fd(), kRecording, 0);
    return sum_;
  }
  auto script = run_captured({opts_.perf, "script", "-i", kRecording, "-F", "comm,tid,ip,sym,dso", "--no-inline"},
                             kMaxScriptBytes, kScriptTimeoutMs, stop, work.fd());
  if (!script || !script->ok()) {
    sum_.error = "perf script failed: " + (script ? last_line(script->output) : script.error().message);
  } else {
    ParsedProfile parsed = parse_perf_script(script->output);
    sum_.samples = parsed.samples;
    sum_.top = top_symbols(parsed, 12);
    if (opts_.folded) {
      if (auto written = out.write(stem_ + ".folded", {folded_text(parsed)}, 0644); !written) {
        sum_.error = written.error().message;
        sum_.folded_path.clear();
      }
    }
  }
  if (auto moved = out.move_in(work, kRecording, stem_ + ".perf.data"); !moved) {
    sum_.error = moved.error().message;
    ::unlinkat(work.fd(), kRecording, 0);
  }
  return sum_;
}

}  // namespace bpfbench
