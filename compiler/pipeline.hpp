// The front half of the pipeline in one place: source → parse → check → lower → RunPlan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ast.hpp"
#include "compiler/check.hpp"
#include "compiler/diagnostics.hpp"
#include "compiler/lower.hpp"
#include "compiler/manifest.hpp"
#include "compiler/plan.hpp"
#include "compiler/resource_limits.hpp"

namespace bpfbench {

struct FrontendOptions {
  // Non-empty: exactly these family folders. Empty: the search path of
  // compiler/template_path.hpp (shipped, $BPFBENCH_TEMPLATE_PATH, extra_template_dirs,
  // bpf_templates/ next to the file).
  std::vector<std::string> template_dirs;
  std::vector<std::string> extra_template_dirs;  // --templates
  PlanOverrides overrides;
  int64_t nproc = 0;  // 0 = the number of online CPUs
  // Points too large for the machine (compiler/resource_limits.hpp) are errors unless
  // allowed; `limits` unset = this machine's, read when the plan is checked.
  bool allow_large = false;
  std::optional<MachineLimits> limits;
};

// Everything the front end produced; later stages borrow from it (the checked program
// points into `families`), so it stays in place while they run.
struct Frontend {
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry families;
  std::optional<ast::File> ast;
  std::optional<CheckedProgram> checked;
  std::optional<RunPlan> plan;
  size_t printed_diags = 0;  // how many of `diags` a front end has shown already

  Frontend() = default;
  Frontend(const Frontend &) = delete;
  Frontend &operator=(const Frontend &) = delete;
};

// Stops at the first stage with errors; `fe.diags` says why. Returns whether a plan exists.
bool run_frontend(const std::string &path, const FrontendOptions &opts, Frontend &fe);

int64_t online_cpus();

}  // namespace bpfbench
