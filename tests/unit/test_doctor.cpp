// `bpfbench doctor`: each probe on a fake /proc and /sys, the renderers, the command, and
// the real probes on this machine.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sched.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "results/doctor.hpp"
#include "results/results.hpp"
#include "run_process.hpp"
#include "runtime/doctor.hpp"
#include "temp_dir.hpp"

using bpfbench::test::TempDir;
using namespace bpfbench;

namespace {

const std::string kCpu = "sys/devices/system/cpu/";

const Finding *find(const DoctorReport &r, const std::string &id) {
  for (const Finding &f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

// A finding's number by name; NaN when it has none.
double finding_number(const Finding &f, const std::string &name) {
  for (const auto &[k, v] : f.numbers)
    if (k == name) return v;
  return std::nan("");
}

// /proc/stat with the aggregate line and two cpuN lines.
std::string proc_stat(uint64_t user, uint64_t idle, uint64_t steal) {
  return "cpu  " + std::to_string(user) + " 0 0 " + std::to_string(idle) + " 0 0 0 " + std::to_string(steal) +
         " 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0 0 0\nintr 1\n";
}

}  // namespace

TEST_CASE("doctor: governor powersave warns with the cpupower fix", "[doctor]") {
  TempDir d;
  d.write(kCpu + "cpu0/cpufreq/scaling_governor", "performance\n");
  d.write(kCpu + "cpu1/cpufreq/scaling_governor", "powersave\n");
  Finding f = probe_governor(d.path.string());
  CHECK(f.severity == DoctorSeverity::warn);
  CHECK(f.value == "performance on cpu 0; powersave on cpu 1");
  CHECK(f.fix == "cpupower frequency-set -g performance");
  d.write(kCpu + "cpu1/cpufreq/scaling_governor", "performance\n");
  CHECK(probe_governor(d.path.string()).severity == DoctorSeverity::ok);
}

TEST_CASE("doctor: no cpufreq is info, an unreadable governor unknown", "[doctor]") {
  TempDir d;
  std::filesystem::create_directories(d.path / (kCpu + "cpu0"));
  CHECK(probe_governor(d.path.string()).severity == DoctorSeverity::info);
  // A directory where the file should be: read_input_file refuses it, even for root.
  std::filesystem::create_directories(d.path / (kCpu + "cpu0/cpufreq/scaling_governor"));
  Finding f = probe_governor(d.path.string());
  CHECK(f.severity == DoctorSeverity::unknown);
  CHECK(f.value == "cannot read /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor: is a directory");
}

TEST_CASE("doctor: turbo on warns, off is ok, absent is info", "[doctor]") {
  TempDir d;
  CHECK(probe_turbo(d.path.string()).severity == DoctorSeverity::info);
  d.write(kCpu + "cpufreq/boost", "1\n");
  Finding f = probe_turbo(d.path.string());
  CHECK(f.severity == DoctorSeverity::warn);
  CHECK(f.fix == "echo 0 > /sys/devices/system/cpu/cpufreq/boost");
  d.write(kCpu + "intel_pstate/no_turbo", "0\n");  // intel_pstate speaks first
  CHECK(probe_turbo(d.path.string()).fix == "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
  d.write(kCpu + "intel_pstate/no_turbo", "1\n");
  CHECK(probe_turbo(d.path.string()).severity == DoctorSeverity::ok);
}

TEST_CASE("doctor: smt active warns and names the sibling lists", "[doctor]") {
  TempDir d;
  d.write(kCpu + "smt/active", "1\n");
  for (int c = 0; c < 4; ++c)
    d.write(kCpu + "cpu" + std::to_string(c) + "/topology/thread_siblings_list", c % 2 ? "1,3\n" : "0,2\n");
  Finding f = probe_smt(d.path.string());
  CHECK(f.severity == DoctorSeverity::warn);
  CHECK(f.value == "active (smt/active = 1); siblings 0,2 1,3");
  CHECK(f.fix == "echo off > /sys/devices/system/cpu/smt/control");
  TempDir solo;
  solo.write(kCpu + "smt/active", "0\n");
  solo.write(kCpu + "cpu0/topology/thread_siblings_list", "0\n");
  CHECK(probe_smt(solo.path.string()).severity == DoctorSeverity::ok);
}

TEST_CASE("doctor: isolcpus from sysfs or the command line", "[doctor]") {
  TempDir d;
  d.write("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n");
  d.write(kCpu + "isolated", "\n");
  d.write(kCpu + "nohz_full", "(null)\n");
  Finding none = probe_isolation(d.path.string());
  CHECK(none.severity == DoctorSeverity::info);
  CHECK(none.fix.find("isolcpus=") != std::string::npos);
  d.write("proc/cmdline", "root=/dev/sda1 isolcpus=2-3 nohz_full=2-3\n");
  Finding some = probe_isolation(d.path.string());
  CHECK(some.severity == DoctorSeverity::ok);
  CHECK(some.value == "isolcpus 2-3; nohz_full 2-3");
}

TEST_CASE("doctor: a hypervisor flag or /sys/hypervisor is info", "[doctor]") {
  TempDir d;
  d.write("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme sse2 hypervisor lahf_lm\n\nprocessor\t: 1\n");
  Finding f = probe_hypervisor(d.path.string(), CpuidHypervisor{});
  CHECK(f.severity == DoctorSeverity::info);
  CHECK(f.value == "yes (cpuinfo flag)");
  d.write("sys/hypervisor/type", "xen\n");
  CHECK(probe_hypervisor(d.path.string(), CpuidHypervisor{true, true, "KVMKVMKVM"}).value ==
        "yes (cpuid KVMKVMKVM, cpuinfo flag, /sys/hypervisor xen)");
  TempDir metal;
  metal.write("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme sse2 lahf_lm\n");
  CHECK(probe_hypervisor(metal.path.string(), CpuidHypervisor{}).severity == DoctorSeverity::ok);
  TempDir empty;
  CHECK(probe_hypervisor(empty.path.string(), CpuidHypervisor{}).severity == DoctorSeverity::unknown);
}

TEST_CASE("doctor: bpf_stats_enabled 1 warns with the fix, JIT knobs", "[doctor]") {
  TempDir d;
  d.write("proc/sys/kernel/bpf_stats_enabled", "1\n");
  d.write("proc/sys/net/core/bpf_jit_enable", "0\n");
  d.write("proc/sys/net/core/bpf_jit_harden", "2\n");
  Finding stats = probe_bpf_stats(d.path.string());
  CHECK(stats.severity == DoctorSeverity::warn);
  CHECK(stats.fix == "echo 0 > /proc/sys/kernel/bpf_stats_enabled");
  CHECK(probe_jit(d.path.string()).severity == DoctorSeverity::warn);
  CHECK(probe_jit(d.path.string()).fix == "sysctl -w net.core.bpf_jit_enable=1");
  CHECK(probe_jit_harden(d.path.string()).fix == "sysctl -w net.core.bpf_jit_harden=0");
  d.write("proc/sys/kernel/bpf_stats_enabled", "0\n");
  d.write("proc/sys/net/core/bpf_jit_enable", "1\n");
  d.write("proc/sys/net/core/bpf_jit_harden", "0\n");
  CHECK(probe_bpf_stats(d.path.string()).severity == DoctorSeverity::ok);
  CHECK(probe_jit(d.path.string()).severity == DoctorSeverity::ok);
  CHECK(probe_jit_harden(d.path.string()).severity == DoctorSeverity::ok);
  TempDir empty;
  CHECK(probe_bpf_stats(empty.path.string()).severity == DoctorSeverity::unknown);
  CHECK(probe_jit(empty.path.string()).severity == DoctorSeverity::unknown);
}

TEST_CASE("doctor: steal time between two /proc/stat reads", "[doctor]") {
  Finding none = steal_finding(proc_stat(100, 100, 0), proc_stat(150, 150, 0));
  CHECK(none.severity == DoctorSeverity::ok);
  CHECK(none.value == "0.00% of CPU time");
  Finding some = steal_finding(proc_stat(100, 100, 0), proc_stat(150, 140, 10));  // 10 of 100 ticks
  CHECK(some.severity == DoctorSeverity::warn);
  CHECK(some.value == "10.00% of CPU time");
  CHECK(some.numbers.at(0).second == Approx(10.0));
  CHECK(steal_finding(proc_stat(100, 1000, 0), proc_stat(100, 1999, 1)).severity == DoctorSeverity::info);  // 0.1%
  CHECK(steal_finding("cpu  1 2 3 4\n", "cpu  2 3 4 5\n").severity == DoctorSeverity::unknown);  // no steal column
  CHECK(steal_finding("garbage", "garbage").severity == DoctorSeverity::unknown);
}

TEST_CASE("doctor: background load names the busiest processes", "[doctor]") {
  TempDir d;
  d.write("proc/loadavg", "1.50 0.80 0.40 2/300 1234\n");
  Finding load = probe_load_average(d.path.string(), 2);
  CHECK(load.severity == DoctorSeverity::warn);
  CHECK(load.value == "1.50 0.80 0.40 on 2 CPUs");
  d.write("proc/7/stat", "7 (cc1 plus (x)) R 1 7 7 0 -1 4194304 0 0 0 0 100 20 0 0 20 0 1 0 5\n");
  d.write("proc/8/stat", "8 (self) R 1 8 8 0 -1 4194304 0 0 0 0 100 20 0 0 20 0 1 0 5\n");
  auto before = read_proc_ticks(d.path.string(), 8);
  REQUIRE(before.size() == 1);
  CHECK(before[0].comm == "cc1 plus (x)");
  CHECK(before[0].ticks == 120);
  d.write("proc/7/stat", "7 (cc1 plus (x)) R 1 7 7 0 -1 4194304 0 0 0 0 140 30 0 0 20 0 1 0 5\n");
  auto after = read_proc_ticks(d.path.string(), 8);
  // 100 ticks passed, 50 of them busy; process 7 used 50.
  Finding f = background_finding(proc_stat(100, 100, 0), proc_stat(150, 150, 0), before, after);
  CHECK(f.severity == DoctorSeverity::warn);
  CHECK(f.value == "50.0% of 2 CPUs busy without bpfbench (busiest: cc1 plus (x)[7] 50%)");
  Finding quiet = background_finding(proc_stat(100, 100, 0), proc_stat(101, 199, 0), before, before);
  CHECK(quiet.severity == DoctorSeverity::ok);
}

TEST_CASE("doctor: spin jitter from per-CPU round times", "[doctor]") {
  std::vector<CpuSpin> steady = {{0, {10e6, 10.01e6, 9.99e6, 10e6}, ""}, {1, {10e6, 10e6, 10.02e6, 9.98e6}, ""}};
  CHECK(jitter_finding(steady).severity == DoctorSeverity::ok);
  std::vector<CpuSpin> noisy = {{0, {10e6, 13e6, 9e6, 10e6}, ""}};
  Finding f = jitter_finding(noisy);
  CHECK(f.severity == DoctorSeverity::warn);
  CHECK(f.value.rfind("CV cpu0 ", 0) == 0);
  std::vector<CpuSpin> failed = {{3, {}, "cannot pin a thread to cpu 3"}};
  CHECK(jitter_finding(failed).severity == DoctorSeverity::unknown);
}

// The rounds of the 01:30 UTC probe of 2026-12-06 had this shape: ~10 ms of work, now and
// then ~1.6x as long for a few rounds in a row (the host's slow state).
TEST_CASE("doctor: speed changes over seconds from spaced rounds", "[doctor]") {
  CpuSpin steady{0, {}, ""};
  for (int i = 0; i < 30; ++i) steady.ns.push_back(10e6 * (1 + 0.01 * (i % 3)));
  Finding ok = speed_change_finding({steady}, 3.3);
  CHECK(ok.severity == DoctorSeverity::ok);
  CHECK(ok.value == "0 of 30 rounds over 3.3s on cpu0 ran >15% slower than the fast quartile; the slowest 1.02x");
  CpuSpin flips = steady;
  for (int i : {7, 8, 9, 20}) flips.ns[i] = 16e6;
  flips.ns[25] = 11.4e6;  // 14 % slower: not counted
  Finding warn = speed_change_finding({flips}, 3.3);
  CHECK(warn.severity == DoctorSeverity::warn);
  CHECK(warn.value.rfind("4 of 30 rounds over 3.3s on cpu0 ran >15% slower than the fast quartile; the slowest 1.60x",
                         0) == 0);
  CHECK(finding_number(warn, "slow_rounds") == 4);
  CHECK_FALSE(warn.fix.empty());
  // One slow round is one preemption, not a change of speed.
  CpuSpin one = steady;
  one.ns[4] = 30e6;
  CHECK(speed_change_finding({one}, 3.3).severity == DoctorSeverity::ok);
  CHECK(speed_change_finding({CpuSpin{0, {1e7, 1e7, 1e7, 1e7}, ""}}, 1).severity == DoctorSeverity::unknown);
  CHECK(speed_change_finding({CpuSpin{2, {}, "cannot pin a thread to cpu 2"}}, 0).severity == DoctorSeverity::unknown);
  CHECK(speed_change_finding({}, 0).severity == DoctorSeverity::unknown);
}

// 2026-12-06 03:30 UTC, two vCPUs timed on one clock, 400 rounds 25 ms apart: each slowed
// on its own (the correlation of their log round times was -0.06), so a probe of cpu0 alone
// says nothing of a bench pinned to cpu1.
TEST_CASE("doctor: speed changes on each CPU, and whether they came together", "[doctor]") {
  CpuSpin cpu0{0, std::vector<double>(30, 10e6), ""}, cpu1{1, std::vector<double>(30, 10e6), ""};
  Finding steady = speed_change_finding({cpu0, cpu1}, 3.3);
  CHECK(steady.severity == DoctorSeverity::ok);
  CHECK(steady.value == "0 of 30 rounds over 3.3s on 2 CPUs ran >15% slower than their CPU's fast quartile; the "
                        "slowest 1.00x (cpu0); 0 of the 0 rounds with a slow CPU had every CPU slow");
  // cpu1 alone slows: the warning the one-CPU probe missed.
  CpuSpin slow1 = cpu1;
  for (int i : {3, 4, 5, 17, 18}) slow1.ns[i] = 18e6;
  Finding apart = speed_change_finding({cpu0, slow1}, 3.3);
  CHECK(apart.severity == DoctorSeverity::warn);
  CHECK(apart.value == "cpu1 5 of 30 rounds over 3.3s on 2 CPUs ran >15% slower than their CPU's fast quartile; the "
                       "slowest 1.80x (cpu1); 0 of the 5 rounds with a slow CPU had every CPU slow");
  CHECK(apart.detail.rfind("the CPUs slowed one at a time", 0) == 0);
  CHECK(finding_number(apart, "cpus") == 2);
  CHECK(finding_number(apart, "rounds_any_cpu_slow") == 5);
  CHECK(finding_number(apart, "rounds_every_cpu_slow") == 0);
  // Both slow in the same rounds: together.
  CpuSpin slow0 = cpu0;
  for (int i : {3, 4, 5, 17}) slow0.ns[i] = 13e6;
  Finding together = speed_change_finding({slow0, slow1}, 3.3);
  CHECK(together.value == "cpu0 4, cpu1 5 of 30 rounds over 3.3s on 2 CPUs ran >15% slower than their CPU's fast "
                          "quartile; the slowest 1.80x (cpu1); 4 of the 5 rounds with a slow CPU had every CPU slow");
  CHECK(together.detail.rfind("the CPUs slowed together", 0) == 0);
  // A CPU that could not be measured is named; the others still count.
  Finding partial = speed_change_finding({cpu0, slow1, CpuSpin{2, {}, "cannot pin a thread to cpu 2"}}, 3.3);
  CHECK(partial.severity == DoctorSeverity::warn);
  CHECK(partial.value.find("(1 CPUs not measured: cannot pin a thread to cpu 2)") != std::string::npos);
}

TEST_CASE("doctor: JSON and text rendering of a report", "[doctor]") {
  DoctorReport r;
  r.findings = {Finding{"a", DoctorSeverity::ok, "A", "fine", "", "", {}},
                Finding{"b", DoctorSeverity::warn, "B", "bad", "why", "fix-it", {{"x_pct", 1.5}}}};
  auto j = doctor_to_json(r);
  CHECK(j["schema"] == "bpfbench-doctor/1");
  CHECK(j["summary"]["warn"] == 1);
  CHECK(j["summary"]["ok"] == 1);
  CHECK(j["findings"][1]["fix"] == "fix-it");
  CHECK(j["findings"][1]["numbers"]["x_pct"] == 1.5);
  CHECK(doctor_to_text(r) == "bpfbench doctor: 1 warn, 0 unknown, 0 info, 1 ok (timed probes skipped)\n"
                             "[warn] B: bad\n    why\n    fix: fix-it\n[ok] A: fine\n"
                             "doctor changed nothing; run the fix commands yourself (as root).\n");
}

TEST_CASE("doctor: the real probes on this machine", "[doctor][real]") {
  DoctorOptions o;
  o.sample_ms = 200;
  o.spin_rounds = 5;
  o.speed_rounds = 6;
  o.speed_gap_ms = 20;
  DoctorReport r = run_doctor(o);
  for (const Finding &f : r.findings) INFO(f.id << ": " << to_string(f.severity) << ": " << f.value);
  for (const char *id :
       {"cpufreq_governor", "turbo", "smt", "cpu_isolation", "hypervisor", "bpf_jit", "bpf_jit_harden",
        "bpf_stats_enabled", "load_average", "steal_time", "background_load", "cpu_jitter", "speed_changes"})
    CHECK(find(r, id) != nullptr);
  // The real files exist on any Linux: never unknown for these.
  CHECK(find(r, "load_average")->severity != DoctorSeverity::unknown);
  CHECK(find(r, "steal_time")->severity != DoctorSeverity::unknown);
  CHECK(find(r, "cpu_jitter")->severity != DoctorSeverity::unknown);
  CHECK(find(r, "speed_changes")->severity != DoctorSeverity::unknown);
  CHECK(find(r, "speed_changes")->value.find(" of 6 rounds over ") != std::string::npos);
  // Every CPU this process may use, at once.
  cpu_set_t allowed;
  REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
  CHECK(finding_number(*find(r, "speed_changes"), "cpus") == std::min<int>(CPU_COUNT(&allowed), kMaxSpeedCpus));
  // On a VM (this project's test machines are), the hypervisor is reported, as info.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string text((std::istreambuf_iterator<char>(cpuinfo)), std::istreambuf_iterator<char>());
  if (text.find(" hypervisor") != std::string::npos) {
    CHECK(find(r, "hypervisor")->severity == DoctorSeverity::info);
    CHECK(find(r, "hypervisor")->value.rfind("yes (", 0) == 0);
  }
}

TEST_CASE("doctor --json parses with the expected keys, exit 0", "[doctor][cli]") {
  auto r = test::run_process({BPFBENCH_BINARY, "doctor", "--json", "--quick"}, 60);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["schema"] == "bpfbench-doctor/1");
  CHECK(j["sampled"] == false);
  for (const char *k : {"ok", "info", "warn", "unknown"}) CHECK(j["summary"].contains(k));
  REQUIRE(j["findings"].is_array());
  for (const auto &f : j["findings"])
    for (const char *k : {"id", "severity", "title", "value", "detail", "fix", "numbers"}) CHECK(f.contains(k));
}

TEST_CASE("doctor text output and a bad option", "[doctor][cli]") {
  auto r = test::run_process({BPFBENCH_BINARY, "doctor"}, 60);
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("bpfbench doctor: ", 0) == 0);
  CHECK(r.out.find("[") != std::string::npos);
  auto bad = test::run_process({BPFBENCH_BINARY, "doctor", "--frob"}, 60);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--frob") != std::string::npos);
}

TEST_CASE("doctor in a results file: written when set, read back", "[doctor][read]") {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  CHECK_FALSE(doc.to_json().contains("doctor"));
  DoctorReport r;
  r.findings = {Finding{"smt", DoctorSeverity::warn, "SMT", "active", "", "", {}}};
  doc.doctor = doctor_to_json(r);
  auto j = doc.to_json();
  CHECK(j["doctor"]["findings"][0]["id"] == "smt");
  auto rs = results_from_json(j);
  CHECK(rs);
  CHECK((rs ? "" : rs.error().message) == "");
}
