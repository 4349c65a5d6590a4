// CPU sets as text ("0-3,8"), and the CPUs this machine has online: what a CPU list on the
// command line or in a .bdsl (prod_affinity, cons_affinity) is checked against before
// anything runs, so a CPU that does not exist here is an error, not "failed: 22" mid-run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/plan.hpp"
#include "util/error.hpp"

namespace bpfbench {

// Parses "0-3,8,10-11" into the listed CPUs in ascending order without duplicates;
// an error on bad syntax ("3-1", "a", ",", "").
Result<std::vector<int>> cpuset_cpus(const std::string &text);

// The CPUs in the compact form the kernel writes: {0,1,2,3,8} -> "0-3,8".
std::string format_cpuset(const std::vector<int> &cpus);

// The online CPUs (/sys/devices/system/cpu/online); empty when that cannot be read
// (then nothing is checked against it).
std::vector<int> read_online_cpus();

// Nothing when every CPU of the (well-formed) set `text` is in `online` or `online` is
// empty; else an error such as "CPU 4095 is not online on this machine (online: 0-1)".
Result<> cpus_are_online(const std::string &text, const std::vector<int> &online);

// An error at the setting for each point whose prod_affinity/cons_affinity names a CPU
// that is not in `online` (each location once). Nothing when `online` is empty.
void check_cpus_online(const RunPlan &plan, const std::vector<int> &online, Diagnostics &diags);

}  // namespace bpfbench
