// `bpfbench doctor`: reads /proc and /sys (and times short spins) into findings about what
// makes numbers unstable on this machine. Reads only; changes nothing on the machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/doctor.hpp"

namespace bpfbench {

struct DoctorOptions {
  std::string root;    // "" = the real /proc and /sys; tests point it at a fake tree
  bool sample = true;  // the timed probes: steal and load share over sample_ms, the spin test
  int sample_ms = 500;
  int spin_rounds = 20;  // per CPU, each spin_ms long
  int spin_ms = 10;
  int speed_rounds = 30;  // speed_changes: one spin_ms spin every speed_gap_ms, on each CPU
  int speed_gap_ms = 100;
};

DoctorReport run_doctor(const DoctorOptions &o);

// --- file probes (runtime/doctor_probes.cpp): each reads its files under `root` --------
// A file that exists but cannot be read gives DoctorSeverity::unknown with the reason.
struct SysText {
  enum State { ok, absent, unreadable } state = absent;
  std::string text;   // the content, when ok
  std::string error;  // "cannot read /proc/...: is a directory", when unreadable
};
SysText read_sys_text(const std::string &root, const std::string &path);
// The cpuN entries of <root>/sys/devices/system/cpu, ascending.
std::vector<int> sys_cpus(const std::string &root);

Finding probe_governor(const std::string &root);
Finding probe_turbo(const std::string &root);
Finding probe_smt(const std::string &root);
Finding probe_isolation(const std::string &root);
Finding probe_jit(const std::string &root);
Finding probe_jit_harden(const std::string &root);
Finding probe_bpf_stats(const std::string &root);
Finding probe_load_average(const std::string &root, int ncpus);

// The CPUID hypervisor-present bit (leaf 1, ECX bit 31) and vendor (leaf 0x40000000);
// known = false off x86. Tests pass a CpuidHypervisor of their own.
struct CpuidHypervisor {
  bool known = false, present = false;
  std::string vendor;  // "KVMKVMKVM", "Microsoft Hv", ...
};
CpuidHypervisor read_cpuid_hypervisor();
Finding probe_hypervisor(const std::string &root, const CpuidHypervisor &cpuid);

// --- timed probes (runtime/doctor_sample.cpp): pure functions of two snapshots ----------
// Steal share between two /proc/stat texts (the aggregate "cpu" line).
Finding steal_finding(const std::string &stat_before, const std::string &stat_after);

struct ProcTicks {
  int pid = 0;
  std::string comm;
  uint64_t ticks = 0;  // utime + stime
};
// Every /proc/<pid>/stat under root but `self_pid`'s (processes that vanish are skipped).
std::vector<ProcTicks> read_proc_ticks(const std::string &root, int self_pid);
// The CPU the rest of the machine used between the snapshots, as a share of all CPUs,
// with the busiest processes named.
Finding background_finding(const std::string &stat_before, const std::string &stat_after,
                           const std::vector<ProcTicks> &before, const std::vector<ProcTicks> &after);

struct CpuSpin {
  int cpu = -1;
  std::vector<double> ns;  // one duration per round of the same work
  std::string error;       // pinning failed
};
// Times `rounds` spins of ~spin_ms each on every CPU this process may run on, one CPU
// at a time, on a thread pinned there (the caller's affinity is untouched).
std::vector<CpuSpin> spin_test(int rounds, int spin_ms);
Finding jitter_finding(const std::vector<CpuSpin> &spins);

// The machine's speed over seconds, where spin_test sees a fraction of one: `rounds` spins
// of ~spin_ms, one every `gap_ms`, on every CPU this process may run on (the first
// kMaxSpeedCpus), all at once, a thread pinned to each, the rounds on one clock. This VM's
// host slows a vCPU to ~0.6x for seconds at a time (docs/ab.md), each vCPU on its own
// (docs/doctor.md); 20 back-to-back rounds of 10 ms mostly land inside one state, and
// spin_test's register-only work hardly slows in it, so these rounds time a chain through
// memory instead (runtime/doctor.cpp).
inline constexpr size_t kMaxSpeedCpus = 64;
std::vector<CpuSpin> speed_rounds(int rounds, int spin_ms, int gap_ms);
// Per CPU, rounds more than 15 % slower than its fast quartile (ab's slow-turn rule, on the
// same work): from 2 of them on one CPU a warning, with the slowest's ratio and, with more
// than one CPU, how many rounds had every CPU slow at once; unknown under 5 rounds.
Finding speed_change_finding(const std::vector<CpuSpin> &cpus, double span_s);

}  // namespace bpfbench
