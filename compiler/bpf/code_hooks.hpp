// Inline BPF C (`code <hook> { ... }`): the manifest's hooks, their check, and the mustache
// keys that carry a bench's code into the template with #line directives to the .bdsl.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/bpf/template_render.hpp"

namespace bpfbench {

// Reads family.json `hooks`: names (C identifiers) or {"name", "doc"} objects. The template
// (already read into `f`) must use each as {{code_<name>}}. Problems go to `errors`.
void read_hooks(const nlohmann::json &arr, FamilyManifest &f, std::vector<ManifestProblem> &errors);

// The bench's blocks, each for a hook its family declares; others become diagnostics.
std::vector<PlanCode> check_code_blocks(const std::vector<ast::CodeBlock> &blocks, const FamilyManifest &f,
                                        Diagnostics &diags);

// Per hook: `code_<hook>` (the point's blocks for it, in order, each preceded by
// `#line <line> "<file.bdsl>"` and padded so clang's columns are the .bdsl's; "" when none)
// and the flag `has_code_<hook>`.
std::vector<TemplateKey> code_template_keys(const PlanPoint &p, const FamilyManifest &f, const SourceManager &sm);

// Identifies the point's code (text and place): points differing in it need their own object.
std::string code_identity(const PlanPoint &p);

// The block whose text holds `loc` (file, line and column), or nullptr.
const PlanCode *code_block_at(const PlanPoint &p, const SourceRange &loc);

}  // namespace bpfbench
