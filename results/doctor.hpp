// `bpfbench doctor` findings as data: what on this machine makes numbers unstable, and
// the command that fixes it. Collected by runtime/doctor.hpp; rendered here as text/JSON.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace bpfbench {

constexpr const char *kDoctorSchema = "bpfbench-doctor/1";

// ok: nothing to do. info: worth knowing, nothing to fix here (a VM). warn: numbers will
// vary because of it; `fix` says how. unknown: the file was unreadable or absent where it
// should be, so doctor cannot tell.
enum class DoctorSeverity { ok, info, warn, unknown };

const char *to_string(DoctorSeverity s);

struct Finding {
  std::string id;  // stable key: "cpufreq_governor", "smt", "steal_time", ...
  DoctorSeverity severity = DoctorSeverity::unknown;
  std::string title;   // "CPU frequency governor"
  std::string value;   // what was seen: "powersave on cpu0-1"
  std::string detail;  // why it matters (empty for ok)
  std::string fix;     // the command that fixes it; "" when there is none
  // Measured numbers behind the finding ("steal_pct", "cv_pct"); only what was measured.
  std::vector<std::pair<std::string, double>> numbers;
};

struct DoctorReport {
  std::vector<Finding> findings;
  bool sampled = false;  // the timed probes (steal, load share, spin jitter) ran
  double sample_s = 0;   // the interval of the steal/load sample
};

nlohmann::json doctor_to_json(const DoctorReport &r);
// One block per finding, warnings first: "[warn] CPU frequency governor: powersave ...",
// the detail, then "fix: ..." on its own line.
std::string doctor_to_text(const DoctorReport &r);

}  // namespace bpfbench
