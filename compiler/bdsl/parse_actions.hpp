// The PEGTL actions of the parse stage (compiler/bdsl/parse_actions.cpp) behind one call.
#pragma once

#include <tao/pegtl.hpp>

#include "compiler/bdsl/parse_builder.hpp"

namespace bpfbench::parse_detail {

namespace pegtl = tao::pegtl;

// Matches one top-level item of the grammar (grammar/bdsl.hpp: one_item) at `in`, which it
// leaves after the item, and builds its AST in `b`. Throws pegtl::parse_error for a syntax
// error (the rule's message from grammar/error_messages.hpp) and SyntaxError for nesting
// too deep; `b` then holds what the error message needs (opens, string_start).
void parse_one_item(pegtl::memory_input<> &in, Builder &b);

}  // namespace bpfbench::parse_detail
