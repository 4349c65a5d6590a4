// The family search path, in precedence order: each --templates folder, a bpf_templates/
// folder next to the .bdsl file, the folders of $BPFBENCH_TEMPLATE_PATH, the shipped families.
#pragma once

#include <string>
#include <vector>

namespace bpfbench {

// One folder of family folders and why it is searched ("shipped", "BPFBENCH_TEMPLATE_PATH",
// "--templates", "next to <file>", "--a-templates", ...).
struct TemplateDir {
  std::string path;
  std::string origin;
};

// The shipped families, found from the running binary's own path: an installed
// <prefix>/bin/bpfbench has them in <prefix>/share/bpfbench/templates, a build-tree binary
// has a bpf_templates link next to it (CMake makes one). Never a compiled-in path: an
// installed binary must not pick up a source tree that happens to be on the machine.
// Canonical when found; else the installed place, so the warning names it; "" for "".
std::string shipped_template_dir(const std::string &exe_path);

// The target of /proc/self/exe, or "" when it cannot be read.
std::string running_binary();

// The search path, first folder first: a family is taken from the first folder that has
// one of its name, and the same name in a later folder is shadowed, as a command earlier
// on $PATH hides a later one (FamilyRegistry::load says so in a note). The user's folders
// come before the shipped ones, the command line before the file's folder before the
// environment: `--templates` in the order given, then `<dir of bdsl_file>/bpf_templates`
// when that exists ("" = no file), then $BPFBENCH_TEMPLATE_PATH in its order, then the
// shipped families. The same folder reached twice is listed once, at its first place.
std::vector<TemplateDir> template_search_path(const std::vector<std::string> &cli_dirs, const std::string &bdsl_file);

// Only the shipped families (the calibration point measures the shipped trigger family,
// whatever folders the user has).
std::vector<TemplateDir> shipped_template_path();

}  // namespace bpfbench
