// Inline BPF C (`code <hook> { ... }`): the mustache keys that carry a bench's code into
// the template with #line directives to the .bdsl. The manifest's hooks are read in
// compiler/family/manifest_hooks.hpp, a bench's blocks checked in compiler/bdsl/code_blocks.hpp.
#pragma once

#include <string>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/bpf/template_render.hpp"

namespace bpfbench {

// Per hook: `code_<hook>` (the point's blocks for it, in order, each preceded by
// `#line <line> "<file.bdsl>"` and padded so clang's columns are the .bdsl's; "" when none)
// and the flag `has_code_<hook>`.
std::vector<TemplateKey> code_template_keys(const PlanPoint &p, const FamilyManifest &f, const SourceManager &sm);

// Identifies the point's code (text and place): points differing in it need their own object.
std::string code_identity(const PlanPoint &p);

// The block whose text holds `loc` (file, line and column), or nullptr.
const PlanCode *code_block_at(const PlanPoint &p, const SourceRange &loc);

}  // namespace bpfbench
