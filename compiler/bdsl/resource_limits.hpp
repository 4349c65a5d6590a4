// Points too large for this machine: what a point's setup takes (forked tasks, map
// entries) against the machine's limits, refused before anything runs unless allowed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"

namespace bpfbench {

// The machine as it is now; 0 = unknown (that limit is not checked).
struct MachineLimits {
  int64_t pid_max = 0;          // kernel.pid_max
  int64_t threads_max = 0;      // kernel.threads-max
  int64_t nproc_rlimit = 0;     // RLIMIT_NPROC of a non-root user (root is exempt)
  int64_t threads_running = 0;  // tasks alive now, everyone's (/proc/loadavg)
  int64_t mem_available = 0;    // bytes (MemAvailable of /proc/meminfo)
  std::vector<int> online_cpus;  // what prod_affinity/cons_affinity may name (compiler/bdsl/cpu_sets.hpp)
};
MachineLimits read_machine_limits();

// What one point's setup actions (family.json `setup`) take, as lower bounds: the work
// of a point is freed before the next one starts, so points are checked one by one.
struct PointCost {
  int64_t tasks = 0;                 // `fork` children
  int64_t map_entries = 0;           // `inner_maps` count x max_entries, `prefill` keys
  int64_t bytes = 0;                 // memory those need at least
  SourceRange tasks_at, entries_at;  // the settings that size them (invalid = defaults)
};
PointCost point_cost(const PlanPoint &p, const FamilyManifest &f);

// Lower bounds of the kernel memory behind one task and one map entry.
inline constexpr int64_t kBytesPerTask = 32 * 1024;  // kernel stack + task_struct + page tables
inline constexpr int64_t kBytesPerEntry = 64;        // a preallocated hash element, 4-byte key/value

// Errors at the setting that makes a point exceed `m` (each location and limit once):
// more forked tasks than the room left under pid_max/threads-max/RLIMIT_NPROC minus a
// tenth kept free, or more memory than 3/4 of MemAvailable. The hint names the opt-in.
void check_resource_limits(const RunPlan &plan, const FamilyRegistry &families, const MachineLimits &m,
                           Diagnostics &diags);

}  // namespace bpfbench
