#include "runtime/profiler.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "compiler/atomic_file.hpp"

namespace bpfbench {

namespace {

constexpr size_t kMaxScriptBytes = size_t(512) << 20;  // perf script text of a long point
constexpr int kStopTimeoutMs = 20'000;                 // perf record writes its header
constexpr int kScriptTimeoutMs = 120'000;

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

void PointProfiler::begin() {
  ::unlink(tmp_path_.c_str());
  record_ = std::make_unique<PerfChild>();
  // -p: every thread of bpfbench (the producers run the BPF programs in their syscalls),
  // -g: call graphs for the folded stacks and the kernel frames around the program.
  auto started = record_->start({opts_.perf, "record", "-e", opts_.event, "-F", std::to_string(opts_.frequency), "-g",
                                 "-p", std::to_string(::getpid()), "-o", tmp_path_, "--no-buildid"});
  if (!started) {
    sum_.error = "perf record: " + started.error().message;
    record_.reset();
  }
}

void PointProfiler::end() {
  if (!record_) return;
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
