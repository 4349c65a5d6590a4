// BPF run-time stats for one point: bpf_enable_stats(BPF_STATS_RUN_TIME) held while the
// harness runs, and each program's run_cnt / run_time_ns read from bpf_prog_info per interval.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "results/prog_info.hpp"

namespace bpfbench {

// kernel.bpf_stats_enabled as it is now (nullopt when it cannot be read). Only read: the
// stats are switched on through bpf_enable_stats, whose fd undoes it when closed.
std::optional<bool> read_bpf_stats_sysctl(const std::string &path = "/proc/sys/kernel/bpf_stats_enabled");

// RAII over the fd of bpf_enable_stats(BPF_STATS_RUN_TIME): the kernel counts run time
// while any such fd (or the sysctl) is on, and stops when the last one closes.
class BpfStatsSwitch {
 public:
  BpfStatsSwitch() = default;
  ~BpfStatsSwitch() { off(); }
  BpfStatsSwitch(const BpfStatsSwitch &) = delete;
  BpfStatsSwitch &operator=(const BpfStatsSwitch &) = delete;
  Result<> on();
  void off();
  bool is_on() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// One program's cumulative counters (bpf_prog_info run_cnt, run_time_ns) and its id.
struct ProgCounters {
  uint32_t id = 0;
  uint64_t run_cnt = 0, run_time_ns = 0;
};
Result<ProgCounters> read_prog_counters(int prog_fd);

// The programs of a point and their counters between reads. The first program added with
// role "measured" is the one whose deltas become the prog_* counts of each interval.
class ProgStatsReader {
 public:
  void add(const std::string &name, const std::string &role, int fd);
  bool empty() const { return progs_.empty(); }
  bool has_measured() const;
  // Reads every program; adds the measured one's deltas since the last read, and the wall
  // time between the two reads, to `deltas` (kProgRunsKey, kProgRunNsKey, kProgWallNsKey).
  void take(std::map<std::string, uint64_t> &deltas);
  // The totals cover the reads from the last mark_start() (else the first read) to mark_end().
  void mark_start();
  void mark_end();
  std::vector<ProgRunStats> totals() const;

 private:
  struct Prog {
    std::string name, role;
    int fd = -1;
    ProgCounters last, start, end;
  };
  std::vector<Prog> progs_;
  int64_t last_ns_ = 0;
  bool started_ = false, ended_ = false;
};

}  // namespace bpfbench
