// Reads and validates one family.json (used by FamilyRegistry::load).
#pragma once

#include <optional>
#include <string>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"

namespace bpfbench {

// `path` is the manifest file (<template folder>/<family>/family.json), `text` its
// contents. The template it names is read from the family's folder, inside the template
// folder `folder` (canonical, as FamilyRegistry::load resolved it; "" = the manifest's
// grandparent, resolved here): never an absolute path, a `..` or a symlink leading out
// (read_input_file_in). Diagnostics are located in `text`, which is added to `sources`
// (as file `sources.size()`) when there are any. Returns nullopt after reporting at least
// one error.
std::optional<FamilyManifest> parse_manifest(const std::string &path, const std::string &text, SourceManager &sources,
                                             Diagnostics &diags, const std::string &folder = "");

}  // namespace bpfbench
