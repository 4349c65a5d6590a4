// CPU lists ("0-3,8") and the CPU assignment of producer/consumer threads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {

// Parses "0-3,8,10-11" into the listed CPUs in ascending order without duplicates.
// Fails on bad syntax ("3-1", "a", ",", ""). (compiler/bdsl/cpu_sets.hpp's cpuset_cpus as a Result.)
Result<std::vector<int>> parse_cpuset(const std::string &text);

// Which CPU each thread is pinned to (-1 = not pinned), like the kernel bench's -a:
// with `affinity` and no explicit lists, consumers take CPUs 0..M-1 and producers
// continue after them (wrapping at nr_cpus); an explicit list is used in order and a
// list too short is an error.
struct CpuAssignment {
  std::vector<int> producers;
  std::vector<int> consumers;
};
Result<CpuAssignment> assign_cpus(int producers, int consumers, bool affinity, const std::vector<int> &prod_cpus,
                                  const std::vector<int> &cons_cpus, int nr_cpus);

// Pins the calling thread to `cpu` (-1: leaves it where it is), or says why it could not.
Result<void> pin_thread_to(int cpu);

}  // namespace bpfbench
