// The check of a bench's inline C (`code <hook> { ... }`): each block names a hook its
// family declares (compiler/family/manifest_hooks.hpp).
#pragma once

#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/family/manifest.hpp"

namespace bpfbench {

// The bench's blocks, each for a hook its family declares; others become diagnostics.
std::vector<PlanCode> check_code_blocks(const std::vector<ast::CodeBlock> &blocks, const FamilyManifest &f,
                                        Diagnostics &diags);

}  // namespace bpfbench
