// clang's diagnostics as data: every message its text printer would print, located.
#pragma once

#include <memory>
#include <vector>

#include "compiler/bpf/clang_compile.hpp"

namespace clang {
class DiagnosticConsumer;
}

namespace bpfbench {

// A consumer that appends to `out` what clang's TextDiagnosticPrinter would print for
// each diagnostic, as data: the message at its presumed location with the range clang
// underlines and its fix-its, then the notes clang's renderer adds (the include stack as
// "in file included from here", each macro expansion as "expanded from macro 'X'"), then
// the diagnostic's own notes as they arrive. The walk over includes and macro expansions
// is clang's (clang::DiagnosticRenderer); only the output is ours.
std::unique_ptr<clang::DiagnosticConsumer> collecting_consumer(std::vector<CompileDiag> &out);

}  // namespace bpfbench
