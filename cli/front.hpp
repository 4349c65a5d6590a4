// Runs the front end for a command and prints its diagnostics (and --dump output); the
// front end itself, quiet, is session/inputs.hpp.
#pragma once

#include "cli/commands.hpp"
#include "compiler/pipeline.hpp"
#include "session/inputs.hpp"

namespace bpfbench::cli {

// parse → check → lower; prints diagnostics to stderr. False when there is no plan.
bool load_frontend(const FileArgs &args, Frontend &fe);

// Prints (and forgets nothing of) the diagnostics collected so far; a note already in
// `fe.shown_notes` is left out, and each one printed is added to it.
void print_diagnostics(Frontend &fe);

}  // namespace bpfbench::cli
