// The man page and the bash completion, written from the same CLI11 tree as --help, so a
// command or option can never be in one and missing from the others.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace bpfbench::cli {

// bpfbench.1 in man(7) roff: every command with its description, every option with its
// value name and help text, then the environment, files and exit codes.
std::string man_page(const CLI::App &app, const std::string &version);

// A bash completion script: commands, each command's options, files and folders where an
// option takes one, .bdsl files, family names (from `bpfbench list --json`), the point
// labels of the file on the line for --only (its `bpfbench plan --json`) and the kernel
// bench's names after `bench` (`bpfbench bench --list`), all run at completion time, so
// families added with $BPFBENCH_TEMPLATE_PATH are offered too.
std::string bash_completion(const CLI::App &app);

// `bpfbench --generate man|bash-completion` (what the build runs): prints one of them.
// nullopt when argv is not that call; else the exit code.
std::optional<int> print_generated(const CLI::App &app, int argc, char **argv);

}  // namespace bpfbench::cli
