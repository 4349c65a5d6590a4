// `run --profile`: `perf record` of bpfbench's own threads over each point's measured
// part, then `perf script` read while the point's programs are still loaded (so their
// bpf_prog_<tag>_<name> symbols resolve), the top symbols and optionally folded stacks.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "results/profile.hpp"
#include "runtime/perf_child.hpp"

namespace bpfbench {

struct ProfileOptions {
  std::string dir;                             // profiles/ beside the results (exists)
  std::map<std::string, std::string> stem_of;  // point label -> file stem (unique)
  bool folded = false;                         // also <stem>.folded
  std::string event = "cpu-clock";             // "cycles" where the machine has a PMU
  int frequency = 999;                         // samples per second per thread
  std::string perf = "perf";                   // the program (tests point it elsewhere)
};

// "" when `perf` runs here, else why not (not installed, not runnable).
std::string probe_perf(const std::string &perf = "perf");

// One point's recording. prepare() starts perf with its events disabled before the
// harness and waits until it answers (its start-up, which takes up to a second on a
// loaded machine, stays out of the measured part); begin() and end() enable and disable
// the events through perf's control pipe from the sampling thread (the harness's
// on_measure_begin/end) and end() stops perf; finish() after the harness, before the
// object is closed.
class PointProfiler {
 public:
  PointProfiler(const ProfileOptions &opts, const std::string &label);
  ~PointProfiler();
  PointProfiler(const PointProfiler &) = delete;
  PointProfiler &operator=(const PointProfiler &) = delete;
  void prepare();
  void begin();
  void end();
  // Reads the recording, renames it to <stem>.perf.data, writes the folded stacks.
  ProfileSummary finish(const std::atomic<bool> *stop);

 private:
  const ProfileOptions &opts_;
  std::string stem_, tmp_path_;
  bool command(const char *cmd, bool wait_ack, int timeout_ms);
  std::unique_ptr<PerfChild> record_;
  int ctl_w_ = -1, ack_r_ = -1;  // perf's --control fd:3,4, our ends
  ProfileSummary sum_;
};

}  // namespace bpfbench
