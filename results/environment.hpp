// The machine a run measured: kernel, CPU, knobs that change BPF numbers, tool versions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bpfbench {

// Text fields hold what the kernel reports; "unknown" when unreadable, "none" when the
// interface does not exist (no cpufreq: a VM).
struct Environment {
  std::string kernel_release;  // uname -r
  std::string kernel_version;  // uname -v (build number and date)
  std::string machine;         // uname -m
  std::string cpu_model;       // /proc/cpuinfo "model name"
  int nr_cpus = 0;             // online
  std::string smt;             // /sys/devices/system/cpu/smt/control
  std::string governor;        // cpufreq scaling_governor of cpu0
  std::string jit_enable;      // /proc/sys/net/core/bpf_jit_enable
  std::string bpf_stats;       // /proc/sys/kernel/bpf_stats_enabled
  std::string clang;           // the in-process clang
  std::string libbpf;          // "1.1"
  std::string bpfbench;        // tool version
};

nlohmann::json environment_to_json(const Environment &e);
Environment environment_from_json(const nlohmann::json &j);

// "kernel_release: 6.1.0 -> 6.18.0", one line per field that differs.
std::vector<std::string> environment_differences(const Environment &a, const Environment &b);

}  // namespace bpfbench
