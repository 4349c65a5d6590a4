// Runs the front end for a command and prints its diagnostics (and --dump output).
#pragma once

#include <atomic>

#include "cli/commands.hpp"
#include "compiler/pipeline.hpp"

namespace bpfbench::cli {

// parse → check → lower; prints diagnostics to stderr. False when there is no plan.
bool load_frontend(const FileArgs &args, Frontend &fe);

// Compiles the programs of the points `args` selects into the object cache, printing
// nothing; how many compiled (0 when the front end failed: what fails is left to the
// command that runs them to report). Before a guest run (--kernel): the guest reads the
// host's cache (vm::host_file_env), and compiling here takes a fraction of the time it
// takes under emulation. Programs that include vmlinux.h are left out: the guest builds
// them on its own kernel's BTF. `stop` ends it early.
size_t precompile_quietly(const FileArgs &args, const std::atomic<bool> *stop);

// Prints (and forgets nothing of) the diagnostics collected so far; a note already in
// `fe.shown_notes` is left out, and each one printed is added to it.
void print_diagnostics(Frontend &fe);

// "file:line:col" of `r` in the loaded sources; the plan's file when `r` is not set.
std::string source_location(const Frontend &fe, const SourceRange &r);

}  // namespace bpfbench::cli
