#include "results/environment.hpp"

#include <utility>

#include <fmt/format.h>

namespace bpfbench {

namespace {

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
