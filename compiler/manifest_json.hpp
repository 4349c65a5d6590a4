// Reads and validates one family.json (used by FamilyRegistry::load).
#pragma once

#include <optional>
#include <string>

#include "compiler/diagnostics.hpp"
#include "compiler/manifest.hpp"

namespace bpfbench {

// `path` is the manifest file, `text` its contents. The template named by the manifest is
// read from the manifest's folder. Diagnostics are located in `text`, which is added to
// `sources` (as file `sources.size()`) when there are any. Returns nullopt after
// reporting at least one error.
std::optional<FamilyManifest> parse_manifest(const std::string &path, const std::string &text, SourceManager &sources,
                                             Diagnostics &diags);

}  // namespace bpfbench
