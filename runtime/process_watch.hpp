// The processes beside a point: two snapshots of /proc (before it, after it) and what the
// others did between them on the CPUs it measured on (results/interference.hpp holds the
// data). Kernel threads are left out: their work is mostly the benchmark's own doing
// (softirqs, RCU callbacks, a family's kthread metric), and so are this process, its
// children and its ancestors.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/interference.hpp"

namespace bpfbench {

// The first `max` bytes of a /proc file, "" when it cannot be read (the process ended).
std::string read_proc_file(const std::string &path, size_t max = 4096);

// The fields of a /proc/<pid>/stat (or task/<tid>/stat) line the watch reads.
struct StatLine {
  std::string comm;
  pid_t ppid = 0;
  uint64_t flags = 0;
  uint64_t ticks = 0;        // utime + stime, clock ticks (a process: every thread, ended ones too)
  uint64_t start_ticks = 0;  // since boot
  int cpu = -1;              // the CPU it last ran on
};
std::optional<StatLine> parse_stat_line(const std::string &text);

struct ThreadSnap {
  uint64_t ticks = 0, start_ticks = 0;
  int cpu = -1;     // last CPU
  int pinned = -1;  // the one CPU its affinity allows, -1 when more
};

struct ProcSnap {
  std::string comm;
  pid_t ppid = 0;
  bool kthread = false;
  bool bpfbench = false;  // its executable is named bpfbench
  uint64_t ticks = 0, start_ticks = 0;
  std::map<pid_t, ThreadSnap> threads;
};

struct ProcSnapshot {
  uint64_t now_ticks = 0;            // CLOCK_BOOTTIME in clock ticks: what start times count in
  std::map<int, uint64_t> cpu_busy;  // cpu -> user + nice + system ticks (/proc/stat)
  std::map<pid_t, ProcSnap> procs;
};

// Every process under `proc` (threads of kernel threads not read).
ProcSnapshot take_proc_snapshot(const std::string &proc = "/proc");

struct ProcessShares {
  // Other bpfbench runs that used CPU between the snapshots (their forked children
  // included), or were there at the first and ended before the second (cpu_pct NaN).
  std::vector<OtherProcess> bpfbench;
  std::vector<BusyCpu> busy_cpus;  // CPUs of `cpus` others used beyond kBusyCpuPct of
};

// What the processes other than `self` (and its children and ancestors) did between the
// snapshots. A CPU's other share is its busy time (/proc/stat) less this process's, its
// children's and kernel threads'; our threads that ended meanwhile (the harness's) count
// evenly on `cpus`. Which processes took it is estimated: a thread's time counts on the
// CPU it is pinned to, else on the one it last ran on (threads that ended: the main
// thread's). A bpfbench's forked children count as that bpfbench. Processes that started
// and ended between the snapshots are not named.
ProcessShares process_shares(const ProcSnapshot &before, const ProcSnapshot &after, const std::vector<int> &cpus,
                             pid_t self);

}  // namespace bpfbench
