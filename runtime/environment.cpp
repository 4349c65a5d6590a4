#include "runtime/environment.hpp"

#include <bpf/libbpf.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "compiler/clang_compile.hpp"

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

// The fields as (name, pointer) pairs: one list drives to_json, from_json and the diff.
std::vector<std::pair<const char *, std::string Environment::*>> text_fields() {
  return {{"kernel_release", &Environment::kernel_release},
          {"kernel_version", &Environment::kernel_version},
          {"machine", &Environment::machine},
          {"cpu_model", &Environment::cpu_model},
          {"smt", &Environment::smt},
          {"cpufreq_governor", &Environment::governor},
          {"bpf_jit_enable", &Environment::jit_enable},
          {"bpf_stats_enabled", &Environment::bpf_stats},
          {"clang", &Environment::clang},
          {"libbpf", &Environment::libbpf},
          {"bpfbench", &Environment::bpfbench}};
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

nlohmann::json environment_to_json(const Environment &e) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[name, field] : text_fields()) j[name] = e.*field;
  j["nr_cpus"] = e.nr_cpus;
  return j;
}

Environment environment_from_json(const nlohmann::json &j) {
  Environment e;
  if (!j.is_object()) return e;
  for (const auto &[name, field] : text_fields())
    if (auto it = j.find(name); it != j.end() && it->is_string()) e.*field = it->get<std::string>();
  if (auto it = j.find("nr_cpus"); it != j.end() && it->is_number_integer()) e.nr_cpus = it->get<int>();
  return e;
}

std::vector<std::string> environment_differences(const Environment &a, const Environment &b) {
  std::vector<std::string> out;
  for (const auto &[name, field] : text_fields())
    if (a.*field != b.*field) out.push_back(fmt::format("{}: {} -> {}", name, a.*field, b.*field));
  if (a.nr_cpus != b.nr_cpus) out.push_back(fmt::format("nr_cpus: {} -> {}", a.nr_cpus, b.nr_cpus));
  return out;
}

}  // namespace bpfbench
