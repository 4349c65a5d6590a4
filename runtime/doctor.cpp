// `bpfbench doctor`: the timed probes (steal and background load over a short sleep, the
// per-CPU spin test) and the one function that runs every probe in order.
#include "runtime/doctor.hpp"
#include "runtime/noise_facts.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

namespace bpfbench {

namespace {

using CpuTimes = ProcStatCpu;  // runtime/noise_facts.hpp

std::optional<CpuTimes> parse_proc_stat(const std::string &text) { return parse_proc_stat_cpu(text); }

Finding unknown(const char *id, const char *title, std::string why) {
  return Finding{id, DoctorSeverity::unknown, title, std::move(why), "", "", {}};
}

// The same work every round: a multiply-add chain the compiler cannot fold or vectorise.
uint64_t spin(uint64_t n) {
  uint64_t x = 1;
  for (uint64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}

// A chain through memory: each step stores the word and loads it back. This VM's slow state
// (docs/ab.md) takes it ~1.6-2x as long, as it does BPF programs and syscalls, while the
// register-only chain above reads steady through it (2026-12-06 01:35 UTC: rounds of 0.75
// to 1.9 ns a step against a steady 1.05x for spin()).
uint64_t spin_memory(uint64_t n) {
  volatile uint64_t x = 1;
  for (uint64_t i = 0; i < n; ++i) x = x * 3 + 1;
  return x;
}

using SpinWork = uint64_t (*)(uint64_t);

double time_spin_ns(uint64_t n, SpinWork work = spin) {
  auto t0 = std::chrono::steady_clock::now();
  work(n);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

// Iterations that take about `ms` on the calling thread's CPU.
uint64_t calibrate(int ms, SpinWork work = spin) {
  uint64_t n = 1000;
  double target = ms * 1e6;
  for (int i = 0; i < 40; ++i) {
    double t = time_spin_ns(n, work);
    if (t >= target / 4) return std::max<uint64_t>(1, uint64_t(double(n) * target / t));
    n *= 4;
  }
  return n;
}

// Runs `body` on a thread pinned to `cpu`; false when the pinning failed.
template <class F>
bool on_cpu(int cpu, F body) {
  bool pinned = false;
  std::thread t([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pinned = pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
    if (pinned) body();
  });
  t.join();
  return pinned;
}

double mean_of(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / double(v.size());
}

double cv_pct(const std::vector<double> &v) {
  if (v.size() < 2) return 0;
  double m = mean_of(v), ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return m > 0 ? 100 * std::sqrt(ss / double(v.size() - 1)) / m : 0;
}

}  // namespace

Finding steal_finding(const std::string &stat_before, const std::string &stat_after) {
  const char *id = "steal_time", *title = "Steal time";
  auto a = parse_proc_stat(stat_before), b = parse_proc_stat(stat_after);
  if (!a || !b) return unknown(id, title, "cannot parse the cpu line of /proc/stat");
  if (!a->has_steal || !b->has_steal) return unknown(id, title, "/proc/stat has no steal column");
  if (b->total <= a->total) return unknown(id, title, "no CPU time passed between the two /proc/stat reads");
  double pct = 100.0 * double(b->steal - a->steal) / double(b->total - a->total);
  Finding f{id, DoctorSeverity::ok, title, fmt::format("{:.2f}% of CPU time", pct), "", "", {{"steal_pct", pct}}};
  if (pct > 0) {
    f.severity = pct >= 1 ? DoctorSeverity::warn : DoctorSeverity::info;
    f.detail = "the hypervisor ran something else on this guest's vCPUs: intervals lose time at random";
    f.fix = "ask for dedicated (pinned) vCPUs on the host, or measure on bare metal";
  }
  return f;
}

std::vector<ProcTicks> read_proc_ticks(const std::string &root, int self_pid) {
  std::vector<ProcTicks> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(root + "/proc", ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    int pid = int(std::strtol(name.c_str(), nullptr, 10));
    if (pid == self_pid) continue;
    SysText t = read_sys_text(root, "/proc/" + name + "/stat");
    size_t open = t.text.find('('), close = t.text.rfind(')');
    if (t.state != SysText::ok || open == std::string::npos || close == std::string::npos || close < open) continue;
    // After "(comm)": state is field 3; utime and stime are fields 14 and 15.
    std::istringstream fields(t.text.substr(close + 1));
    std::string f;
    uint64_t utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) {
      if (i == 14) utime = std::strtoull(f.c_str(), nullptr, 10);
      if (i == 15) stime = std::strtoull(f.c_str(), nullptr, 10);
    }
    out.push_back({pid, t.text.substr(open + 1, close - open - 1), utime + stime});
  }
  return out;
}

Finding background_finding(const std::string &stat_before, const std::string &stat_after,
                           const std::vector<ProcTicks> &before, const std::vector<ProcTicks> &after) {
  const char *id = "background_load", *title = "Background CPU use";
  auto a = parse_proc_stat(stat_before), b = parse_proc_stat(stat_after);
  if (!a || !b) return unknown(id, title, "cannot parse the cpu line of /proc/stat");
  if (b->total <= a->total) return unknown(id, title, "no CPU time passed between the two /proc/stat reads");
  double total = double(b->total - a->total);
  double busy = total - double(b->idle - a->idle) - double(b->steal - a->steal);
  double pct = 100 * std::max(0.0, busy) / total;
  std::vector<std::pair<double, std::string>> top;  // share of all CPU time, comm[pid]
  for (const ProcTicks &p : after) {
    auto was = std::find_if(before.begin(), before.end(), [&](const ProcTicks &q) { return q.pid == p.pid; });
    if (was == before.end() || p.ticks <= was->ticks) continue;
    top.emplace_back(100 * double(p.ticks - was->ticks) / total, fmt::format("{}[{}]", p.comm, p.pid));
  }
  std::sort(top.begin(), top.end(), std::greater<>());
  std::vector<std::string> names;
  for (size_t i = 0; i < top.size() && i < 3; ++i)
    names.push_back(fmt::format("{} {:.0f}%", top[i].second, top[i].first));
  std::string value = fmt::format("{:.1f}% of {} CPUs busy without bpfbench", pct, b->ncpus);
  if (!names.empty()) value += fmt::format(" (busiest: {})", fmt::join(names, ", "));
  Finding f{id, DoctorSeverity::ok, title, value, "", "", {{"busy_pct", pct}}};
  if (pct >= 5) {
    f.severity = DoctorSeverity::warn;
    f.detail = "other processes use the CPUs: they preempt the benchmark's threads and share its caches";
    f.fix = "stop them (top -o %CPU), or pin the bench to CPUs they do not use";
  }
  return f;
}

namespace {

// The CPUs this process may run on, ascending; empty when the affinity cannot be read.
std::vector<int> allowed_cpus() {
  std::vector<int> out;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) out.push_back(cpu);
  return out;
}

}  // namespace

std::vector<CpuSpin> spin_test(int rounds, int spin_ms) {
  std::vector<CpuSpin> out;
  uint64_t n = 0;
  for (int cpu : allowed_cpus()) {
    CpuSpin s;
    s.cpu = cpu;
    bool pinned = on_cpu(cpu, [&] {
      if (n == 0) n = calibrate(spin_ms);  // one amount of work for every CPU: their means compare
      time_spin_ns(n);                     // warm-up, not counted
      for (int r = 0; r < rounds; ++r) s.ns.push_back(time_spin_ns(n));
    });
    if (!pinned) s.error = fmt::format("cannot pin a thread to cpu {}", cpu);
    out.push_back(std::move(s));
  }
  return out;
}

Finding jitter_finding(const std::vector<CpuSpin> &spins) {
  const char *id = "cpu_jitter", *title = "CPU speed jitter (spin test)";
  std::vector<std::string> parts, errors;
  double worst = 0, lo = 0, hi = 0;
  for (const CpuSpin &s : spins) {
    if (!s.error.empty() || s.ns.size() < 2) {
      errors.push_back(s.error.empty() ? fmt::format("cpu {}: too few rounds", s.cpu) : s.error);
      continue;
    }
    double cv = cv_pct(s.ns), m = mean_of(s.ns);
    worst = std::max(worst, cv);
    lo = lo == 0 ? m : std::min(lo, m);
    hi = std::max(hi, m);
    parts.push_back(fmt::format("cpu{} {:.2f}%", s.cpu, cv));
  }
  if (parts.empty()) return unknown(id, title, errors.empty() ? "no CPU to spin on" : errors.front());
  double spread = lo > 0 ? 100 * (hi - lo) / lo : 0;
  Finding f{id,
            DoctorSeverity::ok,
            title,
            fmt::format("CV {} over {} rounds; CPUs differ by {:.1f}%", fmt::join(parts, ", "), spins.front().ns.size(),
                        spread),
            "",
            "",
            {{"worst_cv_pct", worst}, {"cpu_spread_pct", spread}}};
  if (worst >= 2 || spread >= 5) {
    f.severity = DoctorSeverity::warn;
    f.detail = worst >= 2 ? "the same work takes varying time: frequency changes, preemption or a noisy host"
                          : "the same work runs at different speeds on different CPUs: pin benchmarks to one set";
    f.fix = "see the governor, turbo, SMT and load findings; pin the bench with producer_cpus/consumer_cpus";
  }
  if (!errors.empty()) f.value += fmt::format(" ({} CPUs not measured: {})", errors.size(), errors.front());
  return f;
}

CpuSpin speed_rounds(int rounds, int spin_ms, int gap_ms) {
  CpuSpin s;
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) {
    s.error = "no CPU to spin on (this process's CPU affinity cannot be read)";
    return s;
  }
  s.cpu = cpus.front();
  bool pinned = on_cpu(s.cpu, [&] {
    uint64_t n = calibrate(spin_ms, spin_memory);
    time_spin_ns(n, spin_memory);  // warm-up, not counted
    for (int r = 0; r < rounds; ++r) {
      s.ns.push_back(time_spin_ns(n, spin_memory));
      std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
    }
  });
  if (!pinned) s.error = fmt::format("cannot pin a thread to cpu {}", s.cpu);
  return s;
}

Finding speed_change_finding(const CpuSpin &rounds, double span_s) {
  const char *id = "speed_changes", *title = "CPU speed over seconds";
  constexpr size_t kMinRounds = 5;
  constexpr double kSlower = 1.15;
  if (!rounds.error.empty()) return unknown(id, title, rounds.error);
  if (rounds.ns.size() < kMinRounds) return unknown(id, title, fmt::format("{} rounds: too few", rounds.ns.size()));
  std::vector<double> ns = rounds.ns;
  std::sort(ns.begin(), ns.end());
  const double fast = ns[(ns.size() - 1) / 4];  // the fast quartile's edge: a quarter take less
  size_t slow = 0;
  for (double t : ns) slow += t > fast * kSlower;
  const double slowest = ns.back() / fast;
  Finding f{id,
            DoctorSeverity::ok,
            title,
            fmt::format("{} of {} rounds over {:.1f}s on cpu{} ran >15% slower than the fast quartile; the slowest "
                        "{:.2f}x",
                        slow, ns.size(), span_s, rounds.cpu, slowest),
            "",
            "",
            {{"rounds", double(ns.size())}, {"slow_rounds", double(slow)}, {"slowest_ratio", slowest}}};
  if (slow >= 2) {
    f.severity = DoctorSeverity::warn;
    f.detail = "the same work ran at different speeds seconds apart (a host that slows this VM for seconds at a "
               "time, or frequency changes): a run measured across such a change moves with it; `bpfbench ab` "
               "leaves pairs that straddle one out, and calls a point noisy when many do";
    f.fix = "measure at a quieter time or on dedicated vCPUs; compare with `bpfbench ab`, not two separate runs";
  }
  return f;
}

DoctorReport run_doctor(const DoctorOptions &o) {
  DoctorReport r;
  const std::string &root = o.root;
  int ncpus = root.empty() ? int(sysconf(_SC_NPROCESSORS_ONLN)) : int(sys_cpus(root).size());
  CpuidHypervisor cpuid = root.empty() ? read_cpuid_hypervisor() : CpuidHypervisor{};
  r.findings = {probe_governor(root),           probe_turbo(root), probe_smt(root),        probe_isolation(root),
                probe_hypervisor(root, cpuid),  probe_jit(root),   probe_jit_harden(root), probe_bpf_stats(root),
                probe_load_average(root, ncpus)};
  if (!o.sample) return r;
  r.sampled = true;
  r.sample_s = o.sample_ms / 1000.0;
  int self = int(getpid());
  SysText stat0 = read_sys_text(root, "/proc/stat");
  auto procs0 = read_proc_ticks(root, self);
  std::this_thread::sleep_for(std::chrono::milliseconds(o.sample_ms));
  SysText stat1 = read_sys_text(root, "/proc/stat");
  auto procs1 = read_proc_ticks(root, self);
  if (stat0.state != SysText::ok || stat1.state != SysText::ok) {
    std::string why = stat0.state != SysText::ok ? stat0.error : stat1.error;
    r.findings.push_back(unknown("steal_time", "Steal time", why));
    r.findings.push_back(unknown("background_load", "Background CPU use", why));
  } else {
    r.findings.push_back(steal_finding(stat0.text, stat1.text));
    r.findings.push_back(background_finding(stat0.text, stat1.text, procs0, procs1));
  }
  r.findings.push_back(jitter_finding(spin_test(o.spin_rounds, o.spin_ms)));
  auto t0 = std::chrono::steady_clock::now();
  CpuSpin speed = speed_rounds(o.speed_rounds, o.spin_ms, o.speed_gap_ms);
  r.findings.push_back(
      speed_change_finding(speed, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  return r;
}

}  // namespace bpfbench
