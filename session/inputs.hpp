// What a command reads: the .bdsl file (or text) and the options that shape its plan, and
// the front end run over them without printing (the CLI prints the diagnostics).
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bdsl/lower.hpp"
#include "compiler/pipeline.hpp"
#include "compiler/family/template_path.hpp"

namespace bpfbench {

struct FileArgs {
  std::string file;
  std::vector<std::string> template_dirs;
  std::vector<std::string> include_dirs;  // --include-dir: more folders for quoted includes
  PlanOverrides overrides;
  std::string dump;                 // ast | plan | c, and for emit xlated | jited ("" = none)
  bool allow_large = false;         // points past this machine's limits (compiler/bdsl/resource_limits.hpp)
  std::vector<std::string> only;    // --only: label patterns (session/point_select.hpp)
  bool only_exact = false;          // --only keeps the points it names, not their baselines (emit)
  std::optional<std::string> text;  // the .bdsl text itself (bpfbench bench); `file` names it
  // Non-empty: the families come from exactly these folders (`ab --a-templates`), not the
  // search path; `template_dirs` (--templates) are searched after them.
  std::vector<TemplateDir> only_template_dirs;
};

// parse → check → lower of the file (or text) `args` names, with its options; no printing,
// no --only (the caller selects: session/point_select.hpp).
bool run_frontend_for(const FileArgs &args, Frontend &fe);

// Compiles the programs of the points `args` selects into the object cache, printing
// nothing; how many compiled (0 when the front end failed: what fails is left to the
// command that runs them to report). Before a guest run (--kernel): the guest reads the
// host's cache (vm::host_file_env), and compiling here takes a fraction of the time it
// takes under emulation. Programs that include vmlinux.h are left out: the guest builds
// them on its own kernel's BTF. `stop` ends it early.
size_t precompile_quietly(const FileArgs &args, const std::atomic<bool> *stop);

// "file:line:col" of `r` in the loaded sources; the plan's file when `r` is not set.
std::string source_location(const Frontend &fe, const SourceRange &r);

}  // namespace bpfbench
