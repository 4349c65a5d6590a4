// family.json `hooks`: the places a family's template takes a bench's inline C
// (`code <hook> { ... }`), each written there as {{code_<hook>}}.
#pragma once

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compiler/family/manifest.hpp"

namespace bpfbench {

// Reads family.json `hooks`: names (C identifiers) or {"name", "doc"} objects. The template
// (already read into `f`) must use each as {{code_<name>}}. Problems go to `errors`.
void read_hooks(const nlohmann::json &arr, FamilyManifest &f, std::vector<ManifestProblem> &errors);

}  // namespace bpfbench
