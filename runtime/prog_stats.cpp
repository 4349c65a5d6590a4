#include "runtime/prog_stats.hpp"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "runtime/clock.hpp"

namespace bpfbench {

std::optional<bool> read_bpf_stats_sysctl(const std::string &path) {
  std::ifstream in(path);
  int v = 0;
  if (!(in >> v)) return std::nullopt;
  return v != 0;
}

Result<> BpfStatsSwitch::on() {
  if (fd_ >= 0) return {};
  int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
  if (fd < 0) return Error("bpf_enable_stats(BPF_STATS_RUN_TIME) failed: " + errno_text(errno));
  fd_ = fd;
  return {};
}

void BpfStatsSwitch::off() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

Result<ProgCounters> read_prog_counters(int prog_fd) {
  bpf_prog_info info{};
  __u32 len = sizeof(info);
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0)
    return Error("bpf_obj_get_info_by_fd failed: " + errno_text(errno));
  return ProgCounters{info.id, info.run_cnt, info.run_time_ns};
}

void ProgStatsReader::add(const std::string &name, const std::string &role, int fd) {
  if (fd < 0) return;
  Prog p{name, role, fd, {}, {}, {}};
  if (auto c = read_prog_counters(fd)) p.last = p.start = p.end = *c;
  progs_.push_back(std::move(p));
}

void ProgStatsReader::take(std::map<std::string, uint64_t> &deltas) {
  int64_t now = monotonic_ns();
  bool first_measured = true;
  for (auto &p : progs_) {
    ProgCounters before = p.last;
    if (auto c = read_prog_counters(p.fd)) p.last = *c;
    if (p.role != "measured" || !first_measured) continue;
    first_measured = false;
    deltas[kProgRunsKey] = p.last.run_cnt - before.run_cnt;
    deltas[kProgRunNsKey] = p.last.run_time_ns - before.run_time_ns;
    deltas[kProgWallNsKey] = last_ns_ > 0 ? uint64_t(now - last_ns_) : 0;
  }
  last_ns_ = now;
  if (!started_) mark_start();
}

bool ProgStatsReader::has_measured() const {
  for (const auto &p : progs_)
    if (p.role == "measured") return true;
  return false;
}

void ProgStatsReader::mark_start() {
  started_ = true;
  for (auto &p : progs_) p.start = p.last;
}

void ProgStatsReader::mark_end() {
  ended_ = true;
  for (auto &p : progs_) p.end = p.last;
}

std::vector<ProgRunStats> ProgStatsReader::totals() const {
  std::vector<ProgRunStats> out;
  for (const auto &p : progs_) {
    const ProgCounters &end = ended_ ? p.end : p.last;
    out.push_back({p.name, p.role, end.id, end.run_cnt - p.start.run_cnt, end.run_time_ns - p.start.run_time_ns});
  }
  return out;
}

}  // namespace bpfbench
