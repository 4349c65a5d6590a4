// The pipeline in one place. Every command runs it as far as it needs, in this order:
//   run_frontend      source → parse → check → lower → RunPlan (+ resource limits)
//   compile_programs  RunPlan → emit (BPF C per distinct program) → clang → objects
// then `run` hands the objects to the runtime (runtime/run_point.hpp, one point at a
// time) and the results code (results/) reports what came back.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/check.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/lower.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/bdsl/resource_limits.hpp"

namespace bpfbench {

struct FrontendOptions {
  // Non-empty: exactly these family folders, first first (a family is taken from the first
  // that has it). Empty: the search path of compiler/family/template_path.hpp (extra_template_dirs,
  // bpf_templates/ next to the file, $BPFBENCH_TEMPLATE_PATH, shipped).
  std::vector<TemplateDir> template_dirs;
  std::vector<std::string> extra_template_dirs;  // --templates
  // --include-dir: folders searched for quoted includes after the .bdsl file's and the
  // family's (compiler/bpf/user_includes.hpp), in order.
  std::vector<std::string> include_dirs;
  PlanOverrides overrides;
  int64_t nproc = 0;  // 0 = the number of online CPUs
  // Points too large for the machine (compiler/bdsl/resource_limits.hpp) are errors unless
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
  std::vector<std::string> include_dirs;  // FrontendOptions::include_dirs, for the compile
  size_t printed_diags = 0;               // how many of `diags` a front end has shown already
  // The notes shown, as rendered: one already there is not shown again (`ab` gives B's
  // front end A's, so a family both load from the same folders is said shadowed once).
  std::set<std::string> shown_notes;

  Frontend() = default;
  Frontend(const Frontend &) = delete;
  Frontend &operator=(const Frontend &) = delete;
};

// Stops at the first stage with errors; `fe.diags` says why. Returns whether a plan exists.
bool run_frontend(const std::string &path, const FrontendOptions &opts, Frontend &fe);
// The same for text in memory (tests): `path` names it in diagnostics and anchors includes.
bool run_frontend_text(const std::string &path, std::string text, const FrontendOptions &opts, Frontend &fe);

// One generated BPF program of the plan, as the results files record it.
struct ProgramHash {
  std::string name;  // virtual file name, e.g. "ringbuf-0.bpf.c"
  std::string family;
  std::string sha256;  // of the generated C
  std::string cache_key;
  std::vector<size_t> points;  // plan indices using it
};

// The precompiled vmlinux.h the programs that include it were compiled with.
struct VmlinuxUse {
  std::string btf_path, btf_hash;  // the kernel's BTF it was generated from
  bool cached = false;             // taken from the cache (else built by this run)
  double build_seconds = 0;        // when built: generating and precompiling it
};

struct CompiledPrograms {
  std::map<size_t, std::vector<uint8_t>> objects;  // plan point index -> its BPF ELF
  std::vector<ProgramHash> programs;               // every program compiled (or tried)
  size_t compiled = 0;                             // how many compiled
  bool interrupted = false;                        // `stop` ended the compiles early
  std::optional<VmlinuxUse> vmlinux;               // set when a program includes vmlinux.h
};

// Emits every distinct program of `fe.plan` and compiles each once (cache-backed);
// compile errors become diagnostics located in the .bdsl or the template. The first
// program that includes vmlinux.h prepares the kernel's precompiled vmlinux.h (from
// $BPFBENCH_VMLINUX_BTF or /sys/kernel/btf/vmlinux; compiler/bpf/vmlinux_pch.hpp) for all. When `stop`
// is set (a signal), the compile child is killed and compiling ends, returning true with
// `out.interrupted`. False when any program failed. `with_vmlinux` false leaves out the
// programs that include vmlinux.h (their objects are keyed by this kernel's BTF: compiled
// ahead for a guest kernel, they would be this kernel's, never the guest's).
bool compile_programs(Frontend &fe, CompiledPrograms &out, const std::atomic<bool> *stop = nullptr,
                      bool with_vmlinux = true);

int64_t online_cpus();

}  // namespace bpfbench
