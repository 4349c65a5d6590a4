// The bpfbench subcommands: each takes parsed options and returns the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/lower.hpp"
#include "compiler/template_path.hpp"

namespace bpfbench::cli {

// Exit codes: 0 success, 1 a run that partly failed, 2 bad input or unusable environment,
// 130/143 interrupted by SIGINT/SIGTERM.
constexpr int kExitOk = 0;
constexpr int kExitPartial = 1;
constexpr int kExitBadInput = 2;

struct FileArgs {
  std::string file;
  std::vector<std::string> template_dirs;
  std::vector<std::string> include_dirs;  // --include-dir: more folders for quoted includes
  PlanOverrides overrides;
  std::string dump;                 // ast | plan | c, and for emit xlated | jited ("" = none)
  bool allow_large = false;         // points past this machine's limits (compiler/resource_limits.hpp)
  std::vector<std::string> only;    // --only: label patterns (cli/point_select.hpp)
  bool only_exact = false;          // --only keeps the points it names, not their baselines (emit)
  std::optional<std::string> text;  // the .bdsl text itself (bpfbench bench); `file` names it
  // Non-empty: the families come from exactly these folders (`ab --a-templates`), not the
  // search path; `template_dirs` (--templates) are searched after them.
  std::vector<TemplateDir> only_template_dirs;
};

struct CheckArgs {
  FileArgs in;
  bool compile = false;  // also generate and compile every program
  bool verify = false;   // also load every point's programs into the verifier (implies compile)
};

struct PlanArgs {
  FileArgs in;
  bool json = false;
  bool facts = false;  // --facts: load every point's programs, add their verifier/JIT facts
};

struct EmitArgs {
  FileArgs in;
  std::optional<std::string> bench;  // bench index or family name
  std::optional<size_t> point;
};

struct ListArgs {
  std::vector<std::string> template_dirs;
  std::string file;  // optional: also the bpf_templates/ folder next to it
  bool json = false;
};

struct DoctorArgs {
  bool json = false;
  bool quick = false;  // skip the timed probes (steal, background load, spin test)
};

int cmd_check(const CheckArgs &a);
int cmd_plan(const PlanArgs &a);
int cmd_emit(const EmitArgs &a);
int cmd_list(const ListArgs &a);
int cmd_doctor(const DoctorArgs &a);

}  // namespace bpfbench::cli
