// Settings every bench has, whatever its family (warmup, duration, producers, prog, ...).
#pragma once

#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"

namespace bpfbench {

// The builtin settings as ParamSpecs (dest Runtime); `prog` takes its choices and default
// from the family.
std::vector<ParamSpec> builtin_settings(const FamilyManifest &family);

// Builtin names, for did-you-mean hints and for telling builtins from family params.
const std::vector<std::string> &builtin_names();

}  // namespace bpfbench
