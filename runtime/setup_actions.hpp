// Setup actions declared in family.json (`setup`), run between load and attach.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "results/point_result.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/map_prefill.hpp"
#include "runtime/socket_pairs.hpp"
#include "runtime/stop.hpp"

namespace bpfbench {

// Forked children that stay alive for the whole point. Every child is killed (SIGKILL)
// and reaped on destruction or reap() — so on normal end, error and interruption alike;
// children also die with bpfbench (PR_SET_PDEATHSIG) if it is killed outright.
class ChildProcesses {
 public:
  ChildProcesses() = default;
  ~ChildProcesses() { reap(); }
  ChildProcesses(const ChildProcesses &) = delete;
  ChildProcesses &operator=(const ChildProcesses &) = delete;

  // Forks `count` children that each loop { sleep(random % pause_max s); getpgid() }.
  // Stops early (returning an error) when `stop` is requested.
  Result<> spawn(size_t count, int pause_max_s, const StopSource &stop);
  void reap();
  size_t size() const { return pids_.size(); }

 private:
  std::vector<pid_t> pids_;
};

// An inner map definition of a map of maps, as libbpf knows it before load (it frees
// the inner template once the outer map exists).
struct InnerMapDef {
  uint32_t type = 0, key_size = 0, value_size = 0, max_entries = 0, flags = 0;
  uint32_t btf_key_type_id = 0, btf_value_type_id = 0;
};

// What the setup actions need from before load, and what they left alive for the
// duration of the point.
struct SetupState {
  std::map<std::string, InnerMapDef> inner;  // outer map name -> its inner definition
  ChildProcesses children;
  SocketPairs sockets;                        // socket_pairs: open until the point ends
  std::function<Result<>()> calibrate_batch;  // sizes the point's timed batches (unset: it times none)
  double seconds = 0;                         // wall time the actions took
  std::vector<SelfCheck> checks;              // read-backs of prefilled maps, in order (a failed one last)
};

// The actions that apply to a program: the family's, then the program's own.
std::vector<SetupActionSpec> setup_actions_for(const FamilyManifest &f, const ProgramSpec &prog);

// Before load: records what `actions` will need that libbpf drops at load (inner map
// definitions), turns autoload on for `run_program` programs, or says why an action
// cannot work with this object.
Result<> prepare_setup_actions(const std::vector<SetupActionSpec> &actions, const BpfObject &obj, SetupState &state);

// Runs `actions` on a loaded object, in order. Integer arguments are numbers or names of
// the point's params; "max_entries" is the map's size.
//   inner_maps: creates `count` maps like the inner map of array-of-maps `outer` (type,
//     key/value size, flags, BTF; `max_entries` overrides the size), optionally fills each
//     with keys 0..prefill-1 and reads it back as prefill does, stores map i at index i
//     and closes its fd (the outer map holds the only reference, so closing the object
//     frees them all).
//   prefill: inserts keys 0..keys-1 (value = key, in every CPU's slot of a per-CPU map)
//     into hash/array map `map`, batched, then reads the map back (check_prefill): a map
//     that does not hold exactly those keys and values fails the action.
//   Every prefill (inner maps': one for all of them) leaves its check in `state.checks`.
//   fork: see ChildProcesses::spawn.
//   run_program: one BPF_PROG_TEST_RUN of `program` (runtime/setup_program.hpp); its
//     return value must equal `expect` (default 0); the check goes into `state.checks`.
//   socket_pairs: `count` TCP loopback pairs into `state.sockets`, with the `send` and
//     `receive` sockets the sendfile producer and the socket consumer use.
//   sockmap: attaches `program` to sockmap `map` (wire_sockmap) and stores `sockets` (names
//     of an earlier socket_pairs) at keys 0, 1, ...
//   calibrate_batch: state.calibrate_batch(), the batch size of the point's program now.
Result<> run_setup_actions(const std::vector<SetupActionSpec> &actions, BpfObject &obj, const PlanPoint &p,
                           const StopSource &stop, SetupState &state);

}  // namespace bpfbench
