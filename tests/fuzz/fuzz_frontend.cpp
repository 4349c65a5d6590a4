// libFuzzer target: the whole front end (parse, check, lower, the resource-limit check,
// emit, dumps, rendering) on arbitrary bytes. Compiling the emitted C is left out: it is
// slow and forks.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "compiler/bdsl/ast_dump.hpp"
#include "compiler/bdsl/check.hpp"
#include "compiler/bdsl/cpu_sets.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "compiler/bdsl/lower.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/parse.hpp"
#include "compiler/bdsl/plan_dump.hpp"
#include "compiler/bdsl/resource_limits.hpp"

using namespace bpfbench;

namespace {

// The input is named as if it lived in a directory that does not exist, so includes
// without a '/' fail with "cannot open include" (see may_include_a_path for the rest).
constexpr const char *kInputPath = "/nonexistent-bpfbench-fuzz/input.bdsl";

// True when a string literal may hold a '/': an include of it could then reach any file
// ("/dev/..", "../../proc/..") and the run would depend on the machine. Strings stay on
// one line and have no escape for '/', so a '/' after a '"' on the same line is the only
// way to write one; rejecting such inputs costs little (labels and comments with '/').
bool may_include_a_path(std::string_view text) {
  bool quote_seen = false;
  for (char c : text) {
    if (c == '\n') quote_seen = false;
    else if (c == '"') quote_seen = true;
    else if (c == '/' && quote_seen) return true;
  }
  return false;
}

// Plans up to kMaxPlanPoints are valid, but under ASan a 3000-point plan takes ~1 s and a
// 100k-point one ~30 s and 1.7 GB: bigger plans stop after check, so the fuzzer looks for
// logic errors instead of reporting the (known, linear) cost of big plans as timeouts.
constexpr size_t kMaxFuzzPoints = 1024;

// A fixed machine for the resource-limit check, so a run does not depend on where it
// happens (like nproc below): pid_max, threads-max, root's (unchecked) RLIMIT_NPROC,
// tasks running, 8 GiB available, CPUs 0-3 online (nproc 4 below).
MachineLimits fuzz_machine() {
  MachineLimits m;
  m.pid_max = 4'194'304;
  m.threads_max = 63'000;
  m.threads_running = 400;
  m.mem_available = int64_t(8) << 30;
  m.online_cpus = {0, 1, 2, 3};
  return m;
}

size_t total_points(const CheckedProgram &prog) {
  size_t n = 0;
  for (const CheckedBench &b : prog.benches) n += b.point_count;
  return n;
}

// The shipped families, read once: loading them per input would dominate the run time.
// A static is fine in a fuzz harness (the no-globals rule is for the product).
const FamilyRegistry &families() {
  static const FamilyRegistry registry = [] {
    Diagnostics diags;
    SourceManager sm;
    FamilyRegistry r = FamilyRegistry::load(default_template_dirs(), sm, diags);
    if (diags.has_errors() || r.all().empty()) {
      // A fuzz run against no families would only exercise "unknown family".
      std::fprintf(stderr, "fuzz_frontend: cannot load the families:\n%s", render_all(diags, sm).c_str());
      std::abort();
    }
    return r;
  }();
  return registry;
}

// JSON dumps of hostile input may hold invalid UTF-8; replace it rather than throw, so
// the fuzzer looks for crashes in the dumps' own code.
void dump_json(const nlohmann::json &j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.empty()) std::abort();  // a JSON value never dumps to nothing
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  families();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  if (may_include_a_path(text)) return -1;  // -1: libFuzzer keeps it out of the corpus
  SourceManager sm;
  Diagnostics diags;

  std::optional<ast::File> file = parse_text(kInputPath, std::move(text), sm, diags);
  if (file) {
    dump_json(ast_to_json(*file));
    if (!diags.has_errors()) {
      // nproc is fixed so a run does not depend on the machine it happens on.
      // The stages chain like run_frontend() and the CLI chain them.
      std::optional<CheckedProgram> checked = check(*file, families(), 4, diags);
      if (checked && total_points(*checked) <= kMaxFuzzPoints) {
        std::optional<RunPlan> plan = lower(*checked, kInputPath, PlanOverrides{}, diags);
        if (plan) {
          // The CLI's last front-end stage; with --allow-large it goes on to emit anyway.
          const MachineLimits machine = fuzz_machine();
          check_resource_limits(*plan, families(), machine, diags);
          check_cpus_online(*plan, machine.online_cpus, diags);
          (void)plan_to_text(*plan);
          dump_json(plan_to_json(*plan, sm));
          std::vector<EmitUnit> units = emit_programs(*plan, families(), sm, diags);
          if (!plan->points.empty()) {
            const PlanPoint &p = plan->points.front();
            if (const FamilyManifest *f = families().find(p.family)) (void)emit_point(p, *f, families(), sm, diags);
          }
          for (const EmitUnit &u : units)
            if (u.c_source.empty() || u.points.empty()) std::abort();  // emit's own contract
        }
      }
    }
  }
  (void)render_all(diags, sm);
  return 0;
}
