// Maps clang's diagnostics on generated C back to the .bdsl (or to the template file),
// each shown once however many programs of a sweep had it.
#pragma once

#include <string>
#include <vector>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/bpf/vmlinux_pch.hpp"

namespace bpfbench {

// Collects the diagnostics of the programs compiled for `plan`, then adds them to `diags`.
// Each of clang's errors and warnings becomes one diagnostic with clang's notes after it
// (macro expansions, include stack, "declared here") and its fix-it, located where the
// C came from: a loaded .bdsl (inline C keeps its column, a value in generated C is
// located at the value), a family's template or a header (added to `sm` once so its line
// is shown), the program's generated C itself (`bpfbench emit` prints it) or the kernel's
// vmlinux.h. Then a note at the bench that generated the program. A diagnostic several
// programs have in common (a sweep of a `template` param, each value its own program) is
// shown once, its note naming the points of all of them.
class CompileDiags {
 public:
  CompileDiags(const RunPlan &plan, const FamilyRegistry &families, SourceManager &sm, Diagnostics &diags)
      : plan_(plan),
        families_(families),
        sm_(sm),
        diags_(diags) {}

  // The compile of `u` (`vmlinux`: the precompiled vmlinux.h it was compiled with).
  void add(const CompileResult &result, const EmitUnit &u, const PrecompiledVmlinux *vmlinux = nullptr);

  // What preparing the precompiled vmlinux.h for `u` (which includes it) means: no
  // vmlinux.h is an error at that #include ("vmlinux.h: /sys/kernel/btf/vmlinux is
  // missing: …"), with clang's errors when it did not precompile; a cache that could not
  // be written or a cache file that was rebuilt is a warning. `first_use`: the first unit
  // using this result (the warnings and clang's errors are said once).
  void add_vmlinux(const VmlinuxResult &v, const EmitUnit &u, bool first_use);

  // Adds what was collected to `diags`, in the order first seen (up to its error limit).
  void finish();

 private:
  struct Shown {
    Diagnostic d;                // without the note at the bench
    std::string key;             // its rendered text: the same error of another program matches it
    std::vector<size_t> points;  // plan indices of the programs that had it
  };
  void collect(Diagnostic d, const EmitUnit &u);

  const RunPlan &plan_;
  const FamilyRegistry &families_;
  SourceManager &sm_;
  Diagnostics &diags_;
  std::vector<Shown> shown_;
};

}  // namespace bpfbench
