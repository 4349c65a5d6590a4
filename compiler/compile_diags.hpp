// Maps clang's diagnostics on generated C back to the .bdsl (or to the template file).
#pragma once

#include "compiler/clang_compile.hpp"
#include "compiler/diagnostics.hpp"
#include "compiler/plan.hpp"

namespace bpfbench {

// A diagnostic whose presumed file is a loaded .bdsl gets that file's location; one in a
// template names the template line and carries a note at the bench that generated it.
void add_compile_diags(const CompileResult &result, const PlanPoint &first_point, const SourceManager &sm,
                       Diagnostics &diags);

}  // namespace bpfbench
