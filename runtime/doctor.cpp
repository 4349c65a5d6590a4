// `bpfbench doctor`: the timed probes (steal and background load over a short sleep, the
// per-CPU spin test) and the one function that runs every probe in order.
#include "runtime/doctor.hpp"
#include "results/stats.hpp"
#include "runtime/cpuset.hpp"
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
#include <system_error>
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

// Pins the calling thread to `cpu`; false when that failed.
bool pin_self(int cpu) { return bool(pin_thread_to(cpu)); }

// Runs `body` on a thread pinned to `cpu`; false when the pinning failed.
template <class F>
bool on_cpu(int cpu, F body) {
  bool pinned = false;
  std::thread t([&] {
    pinned = pin_self(cpu);
    if (pinned) body();
  });
  t.join();
  return pinned;
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

std::vector<CpuSpin> speed_rounds(int rounds, int spin_ms, int gap_ms) {
  std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) return {CpuSpin{-1, {}, "no CPU to spin on (this process's CPU affinity cannot be read)"}};
  if (cpus.size() > kMaxSpeedCpus) cpus.resize(kMaxSpeedCpus);
  std::vector<CpuSpin> out(cpus.size());
  // One clock for every CPU: round r starts at `first + r * gap` on each of them, so a
  // round's times say whether the CPUs were slow together.
  const auto gap = std::chrono::milliseconds(gap_ms);
  const auto first = std::chrono::steady_clock::now() + std::chrono::milliseconds(200) + gap;
  std::vector<std::thread> threads;
  threads.reserve(cpus.size());
  for (size_t i = 0; i < cpus.size(); ++i) {
    out[i].cpu = cpus[i];
    auto body = [&s = out[i], rounds, spin_ms, gap, first] {
      if (!pin_self(s.cpu)) {
        s.error = fmt::format("cannot pin a thread to cpu {}", s.cpu);
        return;
      }
      uint64_t n = calibrate(spin_ms, spin_memory);
      time_spin_ns(n, spin_memory);  // warm-up, not counted
      for (int r = 0; r < rounds; ++r) {
        std::this_thread::sleep_until(first + r * gap);
        s.ns.push_back(time_spin_ns(n, spin_memory));
      }
    };
    try {
      threads.emplace_back(body);
    } catch (const std::system_error &e) {  // no thread for this CPU: the others still run
      out[i].error = fmt::format("cannot start a thread for cpu {}: {}", cpus[i], e.what());
    }
  }
  for (std::thread &t : threads) t.join();
  return out;
}

namespace {

constexpr double kSlowerRound = 1.15;  // ab's slow-turn rule, on the same work

// Which of a CPU's rounds ran more than 15 % slower than its fast quartile's edge (the time
// a quarter of its rounds beat), and the slowest round's ratio to that edge.
struct SlowRounds {
  std::vector<bool> slow;
  size_t count = 0;
  double slowest = 0;
};
SlowRounds slow_rounds_of(const std::vector<double> &ns) {
  std::vector<double> sorted = ns;
  std::sort(sorted.begin(), sorted.end());
  const double fast = sorted[(sorted.size() - 1) / 4];
  SlowRounds s;
  for (double t : ns) {
    s.slow.push_back(t > fast * kSlowerRound);
    s.count += s.slow.back();
  }
  s.slowest = sorted.back() / fast;
  return s;
}

// "cpu0 12, cpu1 3" for the CPUs with a slow round (at most 8 named), "0" when none has one.
std::string slow_counts_text(const std::vector<CpuSpin> &cpus, const std::vector<SlowRounds> &slow) {
  constexpr size_t kNamed = 8;
  std::vector<std::string> parts;
  size_t with_slow = 0;
  for (size_t i = 0; i < cpus.size(); ++i) {
    if (slow[i].count == 0) continue;
    if (++with_slow <= kNamed) parts.push_back(fmt::format("cpu{} {}", cpus[i].cpu, slow[i].count));
  }
  if (parts.empty()) return "0";
  if (with_slow > kNamed) parts.push_back(fmt::format("{} more CPUs", with_slow - kNamed));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

Finding speed_change_finding(const std::vector<CpuSpin> &measured, double span_s) {
  const char *id = "speed_changes", *title = "CPU speed over seconds";
  constexpr size_t kMinRounds = 5;
  std::vector<CpuSpin> cpus;
  std::string errors;
  for (const CpuSpin &c : measured) {
    if (c.error.empty() && c.ns.size() >= kMinRounds) cpus.push_back(c);
    else if (errors.empty()) errors = c.error.empty() ? fmt::format("{} rounds: too few", c.ns.size()) : c.error;
  }
  if (cpus.empty()) return unknown(id, title, errors.empty() ? "no CPU measured" : errors);
  const size_t n = cpus.front().ns.size();
  std::vector<SlowRounds> slow;
  size_t worst = 0, most = 0;  // the CPU with the slowest round; the most slow rounds on one CPU
  for (size_t i = 0; i < cpus.size(); ++i) {
    slow.push_back(slow_rounds_of(cpus[i].ns));
    if (slow[i].slowest > slow[worst].slowest) worst = i;
    most = std::max(most, slow[i].count);
  }
  Finding f{id, DoctorSeverity::ok, title, "", "", "", {}};
  f.numbers = {{"rounds", double(n)},
               {"cpus", double(cpus.size())},
               {"slow_rounds", double(most)},
               {"slowest_ratio", slow[worst].slowest}};
  if (cpus.size() == 1) {
    f.value = fmt::format("{} of {} rounds over {:.1f}s on cpu{} ran >15% slower than the fast quartile; the slowest "
                          "{:.2f}x",
                          most, n, span_s, cpus.front().cpu, slow[worst].slowest);
  } else {
    size_t any = 0, all = 0;  // rounds with a slow CPU; rounds with every CPU slow
    for (size_t r = 0; r < n; ++r) {
      size_t k = 0;
      for (const SlowRounds &s : slow) k += r < s.slow.size() && s.slow[r];
      any += k > 0;
      all += k == slow.size();
    }
    f.numbers.emplace_back("rounds_any_cpu_slow", double(any));
    f.numbers.emplace_back("rounds_every_cpu_slow", double(all));
    f.value = fmt::format("{} of {} rounds over {:.1f}s on {} CPUs ran >15% slower than their CPU's fast quartile; the "
                          "slowest {:.2f}x (cpu{}); {} of the {} rounds with a slow CPU had every CPU slow",
                          slow_counts_text(cpus, slow), n, span_s, cpus.size(), slow[worst].slowest, cpus[worst].cpu,
                          all, any);
    if (most >= 2)
      f.detail = all * 2 < any ? "the CPUs slowed one at a time, not together: pinning the bench to another CPU "
                                 "moves it, it does not avoid the slow spells; "
                               : "the CPUs slowed together; ";
  }
  if (most >= 2) {
    f.severity = DoctorSeverity::warn;
    f.detail += "the same work ran at different speeds seconds apart (a host that slows this VM for seconds at a "
                "time, or frequency changes): a run measured across such a change moves with it; `bpfbench ab` "
                "leaves pairs that straddle one out, and calls a point noisy when many do";
    f.fix = "measure at a quieter time or on dedicated vCPUs; compare with `bpfbench ab`, not two separate runs";
  }
  if (!errors.empty() && cpus.size() < measured.size())
    f.value += fmt::format(" ({} CPUs not measured: {})", measured.size() - cpus.size(), errors);
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
  std::vector<CpuSpin> speed = speed_rounds(o.speed_rounds, o.spin_ms, o.speed_gap_ms);
  r.findings.push_back(
      speed_change_finding(speed, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  return r;
}

}  // namespace bpfbench
