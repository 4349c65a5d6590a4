#include "runtime/cpuset.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <set>

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

Result<std::vector<int>> parse_cpuset(const std::string &text) {
  std::set<int> cpus;
  size_t pos = 0;
  auto fail = [&](const std::string &why) -> Result<std::vector<int>> {
    return Error("invalid CPU set '" + text + "': " + why);
  };
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

Result<CpuAssignment> assign_cpus(int producers, int consumers, bool affinity, const std::vector<int> &prod_cpus,
                                  const std::vector<int> &cons_cpus, int nr_cpus) {
  std::string error;
  CpuAssignment a;
  a.producers.assign(static_cast<size_t>(std::max(producers, 0)), -1);
  a.consumers.assign(static_cast<size_t>(std::max(consumers, 0)), -1);
  // An explicit list implies affinity, as --prod-affinity/--cons-affinity do.
  if (!affinity && prod_cpus.empty() && cons_cpus.empty()) return a;
  if (nr_cpus < 1) nr_cpus = 1;
  int next = 0;
  auto pick = [&](const std::vector<int> &list, size_t i, const char *who) -> int {
    if (list.empty()) return next++ % nr_cpus;
    if (i >= list.size()) {
      error = std::string("not enough CPUs for ") + who + ": " + std::to_string(list.size()) + " listed, need " +
              std::to_string(i + 1);
      return -2;
    }
    return list[i];
  };
  for (size_t i = 0; i < a.consumers.size(); ++i)
    if ((a.consumers[i] = pick(cons_cpus, i, "consumers")) == -2) return Error(error);
  for (size_t i = 0; i < a.producers.size(); ++i)
    if ((a.producers[i] = pick(prod_cpus, i, "producers")) == -2) return Error(error);
  return a;
}

std::string pin_thread_to(int cpu) {
  if (cpu < 0) return "";
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  int err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (err) return "setting affinity to CPU #" + std::to_string(cpu) + " failed: " + std::to_string(err);
  return "";
}

}  // namespace bpfbench
