// family.json `setup` actions and the `per_cpu` block: read and checked at manifest load.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compiler/family/manifest.hpp"

namespace bpfbench {

// The actions the runtime implements (compiler/family/kinds.hpp), with their keys:
//   inner_maps  outer, count [, prefill, max_entries]
//   prefill     map, keys
//   fork        count [, pause_max]
//   run_program program [, expect]
//   calibrate_batch (no keys; every program it applies to must time batches)
// Reads a `setup` array. Integer arguments are JSON integers or the name of an int/size
// param of `f` (its params must be read already); `prefill`/`keys` may also say
// "max_entries". Problems are appended to `errors` ("setup[1]: unknown key 'cout'").
void read_setup_actions(const nlohmann::json &arr, const FamilyManifest &f, std::vector<SetupActionSpec> &out,
                        std::vector<ManifestProblem> &errors);

// Whether `key` of `action` names a map of the BPF object (`outer`, `map`): the manifest
// reader records where, for the check against the compiled object.
bool is_map_argument(SetupActionKind action, const std::string &key);

// Reads the `per_cpu` object: {"ops": var, "ns": var, "line": "{cpu}: {rate} ..."}.
void read_per_cpu(const nlohmann::json &obj, PerCpuSpec &out, std::vector<ManifestProblem> &errors);

}  // namespace bpfbench
