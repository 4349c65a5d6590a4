// One entry of family.json `params`: its type and dest, the keys that fit them, its bounds
// (and C type) and its default, each problem a diagnostic at its key or value.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "compiler/family/manifest.hpp"
#include "compiler/family/manifest_fields.hpp"

namespace bpfbench {

// Reads param object `j` (named `where` in messages) into `p`. False after reporting,
// through `mf`, why it is not a usable param.
bool read_param(ManifestFields &mf, const nlohmann::json &j, const std::string &where, ParamSpec &p);

}  // namespace bpfbench
