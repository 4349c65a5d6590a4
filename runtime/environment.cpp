#include "runtime/environment.hpp"

#include <bpf/libbpf.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

#include <fmt/format.h>

#include "compiler/bpf/clang_compile.hpp"

namespace bpfbench {

namespace {

std::string first_line_of(const std::string &path, const std::string &missing) {
  std::ifstream in(path);
  if (!in) return missing;
  std::string line;
  std::getline(in, line);
  return line;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "unknown";
}

}  // namespace

Environment collect_environment() {
  Environment e;
  utsname u{};
  if (uname(&u) == 0) {
    e.kernel_release = u.release;
    e.kernel_version = u.version;
    e.machine = u.machine;
  }
  e.cpu_model = cpu_model();
  e.nr_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  e.smt = first_line_of("/sys/devices/system/cpu/smt/control", "none");
  e.governor = first_line_of("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "none");
  e.jit_enable = first_line_of("/proc/sys/net/core/bpf_jit_enable", "unknown");
  e.bpf_stats = first_line_of("/proc/sys/kernel/bpf_stats_enabled", "unknown");
  e.clang = clang_version_string();
  e.libbpf = fmt::format("{}.{}", libbpf_major_version(), libbpf_minor_version());
  e.bpfbench = BPFBENCH_VERSION;
  return e;
}

}  // namespace bpfbench
