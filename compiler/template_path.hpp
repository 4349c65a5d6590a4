// The family search path: shipped families (next to the binary), $BPFBENCH_TEMPLATE_PATH, --templates and a
// bpf_templates/ folder next to the .bdsl file, in that order.
#pragma once

#include <string>
#include <vector>

namespace bpfbench {

// One folder of family folders and why it is searched ("shipped", "BPFBENCH_TEMPLATE_PATH",
// "--templates", "next to <file>").
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

// Every folder is searched (none replaces another: a family defined in two of them is an
// error naming both manifests). The same folder reached twice is listed once, at its
// first place. `bdsl_file` ("" = none) adds `<its dir>/bpf_templates` when that exists.
std::vector<TemplateDir> template_search_path(const std::vector<std::string> &cli_dirs, const std::string &bdsl_file);

std::vector<std::string> template_dir_paths(const std::vector<TemplateDir> &dirs);

// The entry holding the family folder `family_dir` (its parent), or nullptr.
const TemplateDir *template_dir_of(const std::vector<TemplateDir> &dirs, const std::string &family_dir);

}  // namespace bpfbench
