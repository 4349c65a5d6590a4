#include "runtime/noise_facts.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "runtime/clock.hpp"
#include "runtime/doctor.hpp"

namespace bpfbench {

std::optional<ProcStatCpu> parse_proc_stat_cpu(const std::string &text) {
  std::istringstream in(text);
  std::string line;
  std::optional<ProcStatCpu> t;
  int ncpus = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0) continue;
    if (line.size() > 3 && line[3] != ' ') {
      ++ncpus;
      continue;
    }
    std::istringstream fields(line.substr(3));
    std::vector<uint64_t> v;
    uint64_t x = 0;
    while (v.size() < 8 && fields >> x) v.push_back(x);
    if (v.size() < 4) return std::nullopt;
    t = ProcStatCpu{};
    for (uint64_t f : v) t->total += f;  // user nice system idle iowait irq softirq steal
    t->idle = v[3] + (v.size() > 4 ? v[4] : 0);
    t->has_steal = v.size() >= 8;
    t->steal = t->has_steal ? v[7] : 0;
  }
  if (t) t->ncpus = ncpus;
  return t;
}

std::optional<uint64_t> parse_stat_ticks(const std::string &text) {
  size_t close = text.rfind(')');  // the comm may hold spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::string f;
  uint64_t utime = 0, stime = 0;
  int i = 3;
  for (; i <= 15 && fields >> f; ++i) {
    char *end = nullptr;
    if (i == 14) utime = std::strtoull(f.c_str(), &end, 10);
    if (i == 15) stime = std::strtoull(f.c_str(), &end, 10);
    if (end && *end != '\0') return std::nullopt;
  }
  if (i <= 15) return std::nullopt;
  return utime + stime;
}

std::optional<double> parse_load1(const std::string &text) {
  std::istringstream in(text);
  double l1 = 0;
  if (!(in >> l1) || l1 < 0) return std::nullopt;
  return l1;
}

NoiseSnapshot take_noise_snapshot(const std::string &root) {
  NoiseSnapshot s;
  s.t_s = double(monotonic_ns()) / 1e9;
  auto text = [&](const std::string &path) {
    SysText t = read_sys_text(root, path);
    return t.state == SysText::ok ? t.text : std::string();
  };
  s.proc_stat = text("/proc/stat");
  s.self_stat = text("/proc/self/stat");
  s.loadavg = text("/proc/loadavg");
  for (int cpu : sys_cpus(root)) {
    std::string f = text(fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_cur_freq", cpu));
    char *end = nullptr;
    double khz = std::strtod(f.c_str(), &end);
    if (!f.empty() && end != f.c_str() && khz > 0) s.cur_freq_khz.push_back(khz);
  }
  return s;
}

NoiseFacts noise_between(const NoiseSnapshot &before, const NoiseSnapshot &after) {
  NoiseFacts n;
  n.wall_s = std::max(0.0, after.t_s - before.t_s);
  if (auto l = parse_load1(after.loadavg)) n.load1 = *l;
  auto a = parse_proc_stat_cpu(before.proc_stat), b = parse_proc_stat_cpu(after.proc_stat);
  if (a && b && b->total > a->total && b->idle >= a->idle && b->steal >= a->steal) {
    double total = double(b->total - a->total);
    if (a->has_steal && b->has_steal) n.steal_pct = 100 * double(b->steal - a->steal) / total;
    double busy = total - double(b->idle - a->idle) - double(b->steal - a->steal);
    auto self_a = parse_stat_ticks(before.self_stat), self_b = parse_stat_ticks(after.self_stat);
    if (self_a && self_b && *self_b >= *self_a)
      n.other_cpu_pct = 100 * std::clamp(busy - double(*self_b - *self_a), 0.0, total) / total;
  }
  std::vector<double> freqs = before.cur_freq_khz;
  freqs.insert(freqs.end(), after.cur_freq_khz.begin(), after.cur_freq_khz.end());
  if (!freqs.empty()) {
    double sum = 0;
    for (double f : freqs) sum += f;
    n.cpufreq_mhz = sum / double(freqs.size()) / 1000;
  }
  return n;
}

}  // namespace bpfbench
