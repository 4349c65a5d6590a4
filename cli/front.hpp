// Runs the front end for a command and prints its diagnostics (and --dump output).
#pragma once

#include "cli/commands.hpp"
#include "compiler/pipeline.hpp"

namespace bpfbench::cli {

// parse → check → lower; prints diagnostics to stderr. False when there is no plan.
bool load_frontend(const FileArgs &args, Frontend &fe);

// Prints (and forgets nothing of) the diagnostics collected so far.
void print_diagnostics(Frontend &fe);

// "file:line:col" of `r` in the loaded sources; the plan's file when `r` is not set.
std::string source_location(const Frontend &fe, const SourceRange &r);

}  // namespace bpfbench::cli
