// Maps clang's diagnostics on generated C back to the .bdsl (or to the template file).
#pragma once

#include "compiler/clang_compile.hpp"
#include "compiler/diagnostics.hpp"
#include "compiler/manifest.hpp"
#include "compiler/plan.hpp"

namespace bpfbench {

// A diagnostic whose presumed file is a loaded .bdsl gets that file's location; one in a
// family's template (or the shared header) is located there too: the file is added to
// `sm` once, so the renderer shows its line and a caret like any other error. Each carries
// a note at the bench that generated the program.
void add_compile_diags(const CompileResult &result, const PlanPoint &first_point, const FamilyRegistry &families,
                       SourceManager &sm, Diagnostics &diags);

}  // namespace bpfbench
