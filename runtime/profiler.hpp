// `run --profile`: `perf record` of bpfbench's own threads over each point's measured
// part, then `perf script` read while the point's programs are still loaded (so their
// bpf_prog_<tag>_<name> symbols resolve), the top symbols and optionally folded stacks.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "util/safe_dir.hpp"
#include "results/profile.hpp"
#include "runtime/perf_child.hpp"

namespace bpfbench {

// The folders of one run's profiles: `profiles/` beside the results, where the files end
// up, and a private folder inside it (mode 0700, locked while the run lives, removed at
// its end) where perf writes while it records: perf runs with that folder as its working
// directory and writes `perf.data` there, so no path anyone else can change is opened.
struct ProfileFolders {
  SafeDir out, work;
  size_t stale_removed = 0;  // private folders of killed runs removed when it was opened
};

// Opens (or makes) `name` in the folder `parent` (SafeDir::open_child: not through another
// user's symlink, not another user's folder), removes what killed runs left in it and makes
// this run's private folder. The error names the folder and why.
Result<std::shared_ptr<const ProfileFolders>> open_profile_folders(const std::string &parent,
                                                                   const std::string &name = "profiles");

struct ProfileOptions {
  std::shared_ptr<const ProfileFolders> folders;  // open_profile_folders
  std::map<std::string, std::string> stem_of;     // point label -> file stem (unique)
  bool folded = false;                            // also <stem>.folded
  std::string event = "cpu-clock";                // "cycles" where the machine has a PMU
  int frequency = 999;                            // samples per second per thread
  std::string perf = "perf";                      // the program (tests point it elsewhere)
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
  std::string stem_;
  bool command(const char *cmd, bool wait_ack, int timeout_ms);
  std::unique_ptr<PerfChild> record_;
  int ctl_w_ = -1, ack_r_ = -1;  // perf's --control fd:3,4, our ends
  ProfileSummary sum_;
};

}  // namespace bpfbench
