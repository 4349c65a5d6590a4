// What ran beside a point and may have taken its CPUs or sat on its hooks, as data: other
// bpfbench processes, other processes busy on the CPUs it measured on, BPF programs not
// bpfbench's own attached to the hooks it uses (runtime/interference.hpp finds them).
// A point with any of them is marked: `run` warns, `compare` calls it noisy, `ab` notes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bpfbench {

// Other processes' share of a measured CPU beyond which the point is marked: % of that CPU
// over the point's run (its load, setup and measured part).
inline constexpr double kBusyCpuPct = 10;

struct OtherProcess {
  int pid = 0;
  std::string comm;
  double cpu_pct = 0;  // % of one CPU over the point (of the CPU named, in a BusyCpu); NaN: not known
};

struct BusyCpu {
  int cpu = 0;
  double other_pct = 0;           // % of this CPU other processes used
  std::vector<OtherProcess> top;  // the largest of them, at most 3
};

struct ForeignProgram {
  std::string hook;  // "raw_tracepoint sys_enter", "tracepoint sys_enter_getpgid", "kprobe f", "uprobe /path"
  uint32_t link_id = 0, prog_id = 0;
  std::string name;       // the program's name ("" when it cannot be read)
  std::vector<int> pids;  // processes holding the link (none: pinned, or it could not be told)
};

struct Interference {
  double wall_s = 0;                     // how long the point was watched
  std::vector<int> cpus;                 // the CPUs it measured on
  std::vector<std::string> hooks;        // the hooks it attached to (what `programs` is checked against)
  std::vector<OtherProcess> bpfbench;    // other bpfbench processes that used CPU meanwhile
  std::vector<BusyCpu> busy_cpus;        // measured CPUs other processes used beyond kBusyCpuPct
  std::vector<ForeignProgram> programs;  // programs not ours on those hooks
  std::vector<std::string> limits;       // what could not be checked here, and why
  bool found() const { return !bpfbench.empty() || !busy_cpus.empty() || !programs.empty(); }
};

// One line: "another bpfbench (pid 1234, 97 % of a CPU) ran during this point; other
// processes used 87 % of CPU 0 (stress 85 %); BPF program 'x' (id 41, pid 77) is attached
// to raw_tracepoint sys_enter too"; "" when nothing was found.
std::string interference_note(const Interference &i);

// Two watches of one point (rounds): everything either found, the busiest share per CPU.
Interference merge_interference(const Interference &a, const Interference &b);

nlohmann::json interference_to_json(const Interference &i);

}  // namespace bpfbench
