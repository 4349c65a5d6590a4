// The kinds reference: every row of the kind tables (compiler/kinds.cpp) as text, for
// `bpfbench list --kinds` and the kinds section of docs/families.md (a unit test checks
// that page against this text).
#pragma once

#include <string>

namespace bpfbench {

// Per table: each kind's name, doc, the runtime code that serves it and the point params
// it reads; then every such param with its doc.
std::string kinds_reference();

}  // namespace bpfbench
