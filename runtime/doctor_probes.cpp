// The file probes of `bpfbench doctor`: one function per knob, each a pure function of the
// files under `root` (tests build a fake /proc and /sys in a temporary directory).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "compiler/bdsl/cpu_sets.hpp"
#include "util/input_file.hpp"
#include "util/strings.hpp"
#include "runtime/cpuset.hpp"
#include "runtime/doctor.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace bpfbench {

namespace {

constexpr const char *kCpuDir = "/sys/devices/system/cpu";

Finding make(const char *id, const char *title, DoctorSeverity s, std::string value, std::string detail = "",
             std::string fix = "") {
  return Finding{id, s, title, std::move(value), std::move(detail), std::move(fix), {}};
}

Finding unreadable(const char *id, const char *title, const SysText &t) {
  return make(id, title, DoctorSeverity::unknown, t.error);
}

// A boolean-ish sysctl: its trimmed first line.
std::string first_line(const SysText &t) { return trim_blanks(t.text.substr(0, t.text.find('\n'))); }

// The value of `key=` on a kernel command line, "" when absent.
std::string cmdline_value(const std::string &cmdline, const std::string &key) {
  std::istringstream in(cmdline);
  std::string word;
  while (in >> word)
    if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
  return "";
}

}  // namespace

SysText read_sys_text(const std::string &root, const std::string &path) {
  SysText t;
  std::string full = root + path;
  std::error_code ec;
  if (!std::filesystem::exists(full, ec)) {
    t.state = ec && ec != std::errc::no_such_file_or_directory ? SysText::unreadable : SysText::absent;
    t.error = fmt::format("cannot read {}: {}", path, ec ? ec.message() : "No such file or directory");
    return t;
  }
  auto in = read_input_file(full, kMaxTextInputBytes);
  if (!in) {
    t.state = SysText::unreadable;
    t.error = fmt::format("cannot read {}: {}", path, in.error().message);
    return t;
  }
  t.state = SysText::ok;
  t.text = std::move(in->data);
  return t;
}

std::vector<int> sys_cpus(const std::string &root) {
  std::vector<int> cpus;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(root + kCpuDir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() > 3 && name.rfind("cpu", 0) == 0 &&
        std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      cpus.push_back(int(std::strtol(name.c_str() + 3, nullptr, 10)));  // no throw on a bad fake tree
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

Finding probe_governor(const std::string &root) {
  const char *id = "cpufreq_governor", *title = "CPU frequency governor";
  std::map<std::string, std::vector<int>> by_governor;  // governor -> CPUs
  std::vector<std::string> errors;
  for (int cpu : sys_cpus(root)) {
    SysText t = read_sys_text(root, fmt::format("{}/cpu{}/cpufreq/scaling_governor", kCpuDir, cpu));
    if (t.state == SysText::ok) by_governor[first_line(t)].push_back(cpu);
    if (t.state == SysText::unreadable) errors.push_back(t.error);
  }
  if (!errors.empty()) return make(id, title, DoctorSeverity::unknown, errors.front());
  if (by_governor.empty())
    return make(id, title, DoctorSeverity::info, "no cpufreq interface",
                "no CPU exposes cpufreq (usual in a VM: the host sets the frequency, doctor cannot see it)");
  std::vector<std::string> parts;
  bool all_performance = true;
  for (const auto &[gov, cpus] : by_governor) {
    parts.push_back(fmt::format("{} on cpu {}", gov, format_cpuset(cpus)));
    all_performance = all_performance && gov == "performance";
  }
  std::string value = fmt::format("{}", fmt::join(parts, "; "));
  if (all_performance) return make(id, title, DoctorSeverity::ok, value);
  return make(id, title, DoctorSeverity::warn, value,
              "the frequency follows the load: the first samples of a run are slower than the rest",
              "cpupower frequency-set -g performance");
}

Finding probe_turbo(const std::string &root) {
  const char *id = "turbo", *title = "Turbo / boost";
  SysText no_turbo = read_sys_text(root, std::string(kCpuDir) + "/intel_pstate/no_turbo");
  SysText boost = read_sys_text(root, std::string(kCpuDir) + "/cpufreq/boost");
  const char *detail = "the clock rises with temperature headroom: numbers vary with what ran before";
  if (no_turbo.state == SysText::ok) {
    if (first_line(no_turbo) == "1") return make(id, title, DoctorSeverity::ok, "off (intel_pstate/no_turbo = 1)");
    return make(id, title, DoctorSeverity::warn, "on (intel_pstate/no_turbo = " + first_line(no_turbo) + ")", detail,
                "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
  }
  if (boost.state == SysText::ok) {
    if (first_line(boost) == "0") return make(id, title, DoctorSeverity::ok, "off (cpufreq/boost = 0)");
    return make(id, title, DoctorSeverity::warn, "on (cpufreq/boost = " + first_line(boost) + ")", detail,
                "echo 0 > /sys/devices/system/cpu/cpufreq/boost");
  }
  if (no_turbo.state == SysText::unreadable) return unreadable(id, title, no_turbo);
  if (boost.state == SysText::unreadable) return unreadable(id, title, boost);
  return make(id, title, DoctorSeverity::info, "no turbo control",
              "neither intel_pstate/no_turbo nor cpufreq/boost exists (a VM, or a driver without it)");
}

Finding probe_smt(const std::string &root) {
  const char *id = "smt", *title = "SMT (hyper-threading)";
  // Cores whose thread_siblings_list names more than one CPU.
  std::vector<std::string> shared;
  for (int cpu : sys_cpus(root)) {
    SysText t = read_sys_text(root, fmt::format("{}/cpu{}/topology/thread_siblings_list", kCpuDir, cpu));
    if (t.state != SysText::ok) continue;
    std::string list = first_line(t);
    auto parsed = parse_cpuset(list);
    if (parsed && parsed->size() > 1 && parsed->front() == cpu) shared.push_back(list);
  }
  std::string siblings = shared.empty() ? "" : fmt::format("; siblings {}", fmt::join(shared, " "));
  SysText active = read_sys_text(root, std::string(kCpuDir) + "/smt/active");
  const char *detail = "two threads of one core share its execution units: a sibling's work slows the benchmark";
  const char *fix = "echo off > /sys/devices/system/cpu/smt/control";
  if (active.state == SysText::ok) {
    if (first_line(active) == "0" && shared.empty())
      return make(id, title, DoctorSeverity::ok, "inactive (smt/active = 0)");
    return make(id, title, DoctorSeverity::warn, "active (smt/active = " + first_line(active) + ")" + siblings, detail,
                fix);
  }
  if (!shared.empty()) return make(id, title, DoctorSeverity::warn, "active" + siblings, detail, fix);
  if (active.state == SysText::unreadable) return unreadable(id, title, active);
  return make(id, title, DoctorSeverity::ok, "no SMT siblings");
}

Finding probe_isolation(const std::string &root) {
  const char *id = "cpu_isolation", *title = "Isolated CPUs (isolcpus, nohz_full)";
  SysText cmdline = read_sys_text(root, "/proc/cmdline");
  SysText isolated = read_sys_text(root, std::string(kCpuDir) + "/isolated");
  SysText nohz = read_sys_text(root, std::string(kCpuDir) + "/nohz_full");
  std::string iso = isolated.state == SysText::ok ? first_line(isolated) : "";
  std::string nz = nohz.state == SysText::ok ? first_line(nohz) : "";
  if (nz == "(null)") nz = "";
  if (cmdline.state == SysText::ok) {
    if (iso.empty()) iso = cmdline_value(cmdline.text, "isolcpus");
    if (nz.empty()) nz = cmdline_value(cmdline.text, "nohz_full");
  }
  if (iso.empty() && nz.empty() && cmdline.state == SysText::unreadable) return unreadable(id, title, cmdline);
  if (iso.empty() && nz.empty())
    return make(id, title, DoctorSeverity::info, "none",
                "the scheduler may put any task (and the timer tick) on the CPUs a benchmark runs on",
                "boot with isolcpus=<cpus> nohz_full=<cpus> rcu_nocbs=<cpus>, then pin the bench there "
                "(producer_cpus/consumer_cpus)");
  return make(id, title, DoctorSeverity::ok,
              fmt::format("isolcpus {}; nohz_full {}", iso.empty() ? "none" : iso, nz.empty() ? "none" : nz));
}

Finding probe_jit(const std::string &root) {
  const char *id = "bpf_jit", *title = "BPF JIT (net.core.bpf_jit_enable)";
  SysText t = read_sys_text(root, "/proc/sys/net/core/bpf_jit_enable");
  if (t.state != SysText::ok) return make(id, title, DoctorSeverity::unknown, t.error);
  std::string v = first_line(t);
  if (v == "1") return make(id, title, DoctorSeverity::ok, "enabled (1)");
  if (v == "2")
    return make(id, title, DoctorSeverity::warn, "enabled with debug output (2)",
                "every JITed image is dumped to the kernel log: loads are slower",
                "sysctl -w net.core.bpf_jit_enable=1");
  return make(id, title, DoctorSeverity::warn, "disabled (" + v + ")",
              "programs run in the interpreter: numbers say nothing about JITed code",
              "sysctl -w net.core.bpf_jit_enable=1");
}

Finding probe_jit_harden(const std::string &root) {
  const char *id = "bpf_jit_harden", *title = "BPF JIT hardening (net.core.bpf_jit_harden)";
  SysText t = read_sys_text(root, "/proc/sys/net/core/bpf_jit_harden");
  if (t.state != SysText::ok) return make(id, title, DoctorSeverity::unknown, t.error);
  std::string v = first_line(t);
  if (v == "0") return make(id, title, DoctorSeverity::ok, "off (0)");
  if (v == "1")
    return make(id, title, DoctorSeverity::info, "unprivileged programs only (1)",
                "constant blinding applies to unprivileged loads; bpfbench loads as root, so not to its programs");
  return make(id, title, DoctorSeverity::warn, "all programs (" + v + ")",
              "constant blinding adds instructions to every JITed program: numbers differ from a default kernel",
              "sysctl -w net.core.bpf_jit_harden=0");
}

Finding probe_bpf_stats(const std::string &root) {
  const char *id = "bpf_stats_enabled", *title = "BPF run-time stats (kernel.bpf_stats_enabled)";
  SysText t = read_sys_text(root, "/proc/sys/kernel/bpf_stats_enabled");
  if (t.state != SysText::ok) return make(id, title, DoctorSeverity::unknown, t.error);
  std::string v = first_line(t);
  if (v == "0") return make(id, title, DoctorSeverity::ok, "off (0)");
  return make(id, title, DoctorSeverity::warn, "on (" + v + ")",
              "every BPF program run also reads the clock twice and updates counters: about 20-30 ns each",
              "echo 0 > /proc/sys/kernel/bpf_stats_enabled");
}

Finding probe_load_average(const std::string &root, int ncpus) {
  const char *id = "load_average", *title = "Load average";
  SysText t = read_sys_text(root, "/proc/loadavg");
  if (t.state != SysText::ok) return make(id, title, DoctorSeverity::unknown, t.error);
  std::istringstream in(t.text);
  double l1 = 0, l5 = 0, l15 = 0;
  if (!(in >> l1 >> l5 >> l15)) return make(id, title, DoctorSeverity::unknown, "cannot parse /proc/loadavg");
  Finding f = make(id, title, DoctorSeverity::ok, fmt::format("{:.2f} {:.2f} {:.2f} on {} CPUs", l1, l5, l15, ncpus));
  f.numbers = {{"load1", l1}, {"load5", l5}, {"load15", l15}};
  if (l1 >= 0.5) {
    f.severity = DoctorSeverity::warn;
    f.detail = "other tasks were runnable over the last minute: they compete with the benchmark for CPU time";
    f.fix = "stop the other work (top -o %CPU shows it), or pin the bench to CPUs nothing else uses";
  }
  return f;
}

CpuidHypervisor read_cpuid_hypervisor() {
  CpuidHypervisor h;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return h;
  h.known = true;
  h.present = (c >> 31) & 1;
  if (h.present) {
    __cpuid(0x40000000, a, b, c, d);
    char vendor[13] = {};
    for (int i = 0; i < 4; ++i) {
      vendor[i] = char(b >> (8 * i));
      vendor[4 + i] = char(c >> (8 * i));
      vendor[8 + i] = char(d >> (8 * i));
    }
    h.vendor = trim_blanks(std::string(vendor, strnlen(vendor, 12)));
  }
#endif
  return h;
}

Finding probe_hypervisor(const std::string &root, const CpuidHypervisor &cpuid) {
  const char *id = "hypervisor", *title = "Hypervisor";
  std::vector<std::string> seen;
  if (cpuid.known && cpuid.present) seen.push_back(cpuid.vendor.empty() ? "cpuid bit" : "cpuid " + cpuid.vendor);
  SysText cpuinfo = read_sys_text(root, "/proc/cpuinfo");
  if (cpuinfo.state == SysText::ok) {
    std::istringstream in(cpuinfo.text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("flags", 0) != 0) continue;
      if ((" " + line + " ").find(" hypervisor ") != std::string::npos) seen.push_back("cpuinfo flag");
      break;  // the first CPU's flags speak for all
    }
  }
  SysText type = read_sys_text(root, "/sys/hypervisor/type");
  if (type.state == SysText::ok && !first_line(type).empty()) seen.push_back("/sys/hypervisor " + first_line(type));
  if (!seen.empty())
    return make(id, title, DoctorSeverity::info, fmt::format("yes ({})", fmt::join(seen, ", ")),
                "a VM: the host's other guests, its frequency policy and steal time move the numbers; "
                "compare only runs on the same host, and prefer dedicated (pinned) vCPUs");
  if (!(cpuid.known) && cpuinfo.state != SysText::ok) return unreadable(id, title, cpuinfo);
  return make(id, title, DoctorSeverity::ok, "none seen (bare metal)");
}

}  // namespace bpfbench
