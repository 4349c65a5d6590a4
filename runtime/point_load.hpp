// A point's load (runtime/run_point.cpp runs it): its BPF object opened, configured, loaded
// and attached, with what lives around the load: the memory cgroup it is loaded in, the
// setup actions' state and the verifier's stats log the programs' facts are read from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/bdsl/plan.hpp"
#include "compiler/family/manifest.hpp"
#include "results/point_result.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/memory_cgroup.hpp"
#include "runtime/prog_facts.hpp"
#include "runtime/setup_actions.hpp"

namespace bpfbench {

// Destroyed in reverse order: the stats log, the object, then the setup state (its forked
// children outlive the run and are reaped when it goes), and last the cgroup.
struct PointLoad {
  std::vector<std::string> functions;  // programs to load
  MemoryCgroup cgroup;                 // cgroup_memory metrics: left last, once children are reaped
  SetupState setup;
  BpfObject obj;
  VerifierStatsLog vlog;  // log_level 4 buffers (outlive the load)

  // A point with cgroup_memory metrics runs in a memory cgroup of its own from before load
  // (maps are charged where they are made) to its end. The Error: there is none here.
  Result<> enter_memory_cgroup(const std::vector<MetricSpec> &metrics);
  // Opens, configures, prepares `actions` and loads, the verifier writing its stats line
  // into `vlog`; a load the verifier refuses is loaded again without it, for its complaint.
  Result<> load(const std::vector<uint8_t> &object, const std::vector<SetupActionSpec> &actions, const PlanPoint &p,
                const FamilyManifest &f, bool verbose);
  // The facts of every loaded program, the point's own first, appended to `facts`.
  void read_prog_facts(std::vector<ProgFacts> &facts) const;
  // The program from its SEC() (not a test_run one, nor none), then the attached extras.
  Result<> attach(const FamilyManifest &f, const ProgramSpec &prog, const std::string &uprobe_binary);

 private:
  Result<> open_and_load(const std::vector<uint8_t> &object, const std::vector<SetupActionSpec> &actions,
                         const PlanPoint &p, const FamilyManifest &f, bool verbose, bool stats_log);
};

}  // namespace bpfbench
