// Reads and validates one family.json (used by FamilyRegistry::load).
#pragma once

#include <optional>
#include <string>

#include "compiler/diagnostics.hpp"
#include "compiler/manifest.hpp"

namespace bpfbench {

// `path` is the manifest file (named in every diagnostic), `text` its contents. The
// template named by the manifest is read from the manifest's folder. Returns nullopt
// after reporting at least one error.
std::optional<FamilyManifest> parse_manifest(const std::string &path, const std::string &text,
                                             Diagnostics &diags);

}  // namespace bpfbench
