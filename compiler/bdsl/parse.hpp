// Parse stage: .bdsl text (and its includes) -> ast::File, syntax errors -> Diagnostics.
#pragma once

#include <optional>
#include <string>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/source.hpp"

namespace bpfbench {

// Limits that keep hostile input from exhausting the stack.
constexpr size_t kMaxNesting = 64;       // nested '[' and suites
constexpr size_t kMaxIncludeDepth = 32;  // include chain length

// Parses a .bdsl file (and, recursively, its includes, spliced in place). Never throws.
// Errors become diagnostics; returns nullopt when the file could not be parsed at all
// (it cannot be read). A file with syntax errors yields the items that did parse.
std::optional<ast::File> parse_file(const std::string &path, SourceManager &sm, Diagnostics &diags);

// Same for text already in memory; `path` names it in diagnostics and anchors includes.
std::optional<ast::File> parse_text(const std::string &path, std::string text, SourceManager &sm, Diagnostics &diags);

}  // namespace bpfbench
