#include "compiler/bdsl/cpu_sets.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <optional>
#include <set>
#include <tuple>

#include "compiler/family/constraints.hpp"

namespace bpfbench {
namespace {

// Reads a decimal number at text[pos]; advances pos.
std::optional<int> read_int(const std::string &text, size_t &pos) {
  size_t start = pos;
  long v = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    v = v * 10 + (text[pos] - '0');
    if (v > 1 << 20) return std::nullopt;
    ++pos;
  }
  if (pos == start) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

Result<std::vector<int>> cpuset_cpus(const std::string &text) {
  std::set<int> cpus;
  size_t pos = 0;
  auto fail = [&](const std::string &reason) { return Error("invalid CPU set '" + text + "': " + reason); };
  if (text.empty()) return fail("empty");
  while (true) {
    auto a = read_int(text, pos);
    if (!a) return fail("expected a CPU number at offset " + std::to_string(pos));
    int b = *a;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      auto hi = read_int(text, pos);
      if (!hi) return fail("expected a CPU number after '-'");
      if (*hi < *a) return fail("range " + std::to_string(*a) + "-" + std::to_string(*hi) + " is reversed");
      b = *hi;
    }
    for (int c = *a; c <= b; ++c) cpus.insert(c);
    if (pos == text.size()) break;
    if (text[pos] != ',') return fail(std::string("unexpected '") + text[pos] + "'");
    ++pos;
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

std::string format_cpuset(const std::vector<int> &cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> read_online_cpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string line;
  if (!std::getline(in, line)) return {};
  auto cpus = cpuset_cpus(line);
  return cpus ? *cpus : std::vector<int>{};
}

Result<> cpus_are_online(const std::string &text, const std::vector<int> &online) {
  auto cpus = cpuset_cpus(text);
  if (online.empty() || !cpus) return {};
  const std::set<int> have(online.begin(), online.end());
  std::vector<int> missing;
  for (int c : *cpus)
    if (!have.count(c)) missing.push_back(c);
  if (missing.empty()) return {};
  return Error(fmt::format("{} {} {} not online on this machine (online: {})", missing.size() == 1 ? "CPU" : "CPUs",
                           format_cpuset(missing), missing.size() == 1 ? "is" : "are", format_cpuset(online)));
}

void check_cpus_online(const RunPlan &plan, const std::vector<int> &online, Diagnostics &diags) {
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, std::string>> reported;  // file, line, col, setting
  for (const auto &p : plan.points)
    for (auto [name, cpus] : {std::pair{"prod_affinity", &p.prod_cpus}, std::pair{"cons_affinity", &p.cons_cpus}}) {
      if (cpus->empty()) continue;
      Result<> on = cpus_are_online(*cpus, online);
      if (on) continue;
      const std::string &why = on.error().message;
      // Where the value was written; the bench when the command line set it (ab --a/--b).
      SourceRange at = point_value_range(p, name);
      const char *from = at.valid() ? "" : " (set on the command line)";
      if (!at.valid()) at = p.bench_range;
      if (reported.emplace(at.file, at.line, at.col, name).second)
        diags.error(at, fmt::format("{} \"{}\"{}: {}", name, *cpus, from, why),
                    {"the CPUs a bench can be pinned to are those in /sys/devices/system/cpu/online"});
    }
}

}  // namespace bpfbench
