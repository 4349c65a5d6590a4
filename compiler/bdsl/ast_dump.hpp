// `--dump=ast`: the parsed AST as JSON (a debugging view, not a stable format).
#pragma once

#include <nlohmann/json.hpp>

#include "compiler/bdsl/ast.hpp"

namespace bpfbench {

nlohmann::json ast_to_json(const ast::File &file);

}  // namespace bpfbench
