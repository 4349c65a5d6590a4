// Maps clang's diagnostics on generated C back to the .bdsl (or to the template file).
#pragma once

#include "compiler/clang_compile.hpp"
#include "compiler/diagnostics.hpp"
#include "compiler/emit_bpf.hpp"
#include "compiler/manifest.hpp"
#include "compiler/plan.hpp"
#include "compiler/vmlinux_pch.hpp"

namespace bpfbench {

// A diagnostic whose presumed file is a loaded .bdsl gets that file's location; one in a
// family's template (or the shared header) is located there too: the file is added to
// `sm` once, so the renderer shows its line and a caret like any other error. Each carries
// a note at the bench that generated the program.
void add_compile_diags(const CompileResult &result, const PlanPoint &first_point, const FamilyRegistry &families,
                       SourceManager &sm, Diagnostics &diags);

// What preparing the precompiled vmlinux.h for a program that includes it (at `site`)
// means: no vmlinux.h is an error at that #include ("vmlinux.h: /sys/kernel/btf/vmlinux is
// missing: …"), with clang's errors when it did not precompile; a cache that could not be
// written or a cache file that was rebuilt is a warning. `first_use`: the first program
// using this result (the warnings and clang's errors are said once).
void add_vmlinux_diags(const VmlinuxResult &v, const IncludeSite &site, bool first_use, const PlanPoint &first_point,
                       const FamilyRegistry &families, SourceManager &sm, Diagnostics &diags);

}  // namespace bpfbench
