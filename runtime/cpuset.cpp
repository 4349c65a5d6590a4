#include "runtime/cpuset.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>

#include "compiler/bdsl/cpu_sets.hpp"

namespace bpfbench {

Result<std::vector<int>> parse_cpuset(const std::string &text) { return cpuset_cpus(text); }

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

Result<void> pin_thread_to(int cpu) {
  if (cpu < 0) return {};
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  int err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (err) return Error("setting affinity to CPU #" + std::to_string(cpu) + " failed: " + std::to_string(err));
  return {};
}

}  // namespace bpfbench
