// Options shared by the subcommands that read a .bdsl file.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace bpfbench::cli {

// FILE, --templates, --dump and the harness overrides (-w -d -p -c -a --prod/cons-affinity).
// loaded_dumps: --dump also takes xlated and jited (emit: they load the program).
void add_file_options(CLI::App *cmd, FileArgs &args, bool loaded_dumps = false);
// --include-dir DIR (repeatable): FileArgs::include_dirs.
void add_include_dir_option(CLI::App *cmd, FileArgs &args);
// The part without FILE, --templates and --dump: --allow-large and the harness overrides.
void add_harness_options(CLI::App *cmd, FileArgs &args);
// A CPU list option (--prod-affinity): well-formed, and every CPU online on this machine,
// checked when the command line is parsed, before anything runs.
CLI::Validator cpuset_validator();

}  // namespace bpfbench::cli
