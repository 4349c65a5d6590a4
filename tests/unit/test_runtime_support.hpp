// Shared helpers of the runtime tests: root check, family loading, point building, compile.
#pragma once

#include <unistd.h>

#include <string>
#include <vector>

#include "compiler/clang_compile.hpp"
#include "compiler/diagnostics.hpp"
#include "compiler/emit_bpf.hpp"
#include "compiler/manifest.hpp"
#include "compiler/plan.hpp"
#include "compiler/source.hpp"

namespace bpfbench::test {

// Runtime tests need root and a BPF-capable kernel; without them they return early
// with a WARN (Catch2 2.x has no SKIP).
inline bool have_root() { return geteuid() == 0; }
#define BB_REQUIRE_ROOT()                                      \
  do {                                                         \
    if (!::bpfbench::test::have_root()) {                      \
      WARN("skipped: runtime tests need root and BPF");        \
      return;                                                  \
    }                                                          \
  } while (0)

struct Families {
  Diagnostics diags;
  FamilyRegistry reg;
  explicit Families(std::vector<std::string> extra_dirs = {}) {
    std::vector<std::string> dirs = {std::string(BPFBENCH_SOURCE_DIR) + "/bpf_templates"};
    dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
    reg = FamilyRegistry::load(dirs, diags);
  }
  const FamilyManifest &get(const std::string &name) const { return *reg.find(name); }
};

inline std::string fixtures_dir() {
  return std::string(BPFBENCH_SOURCE_DIR) + "/tests/fixtures/families";
}

// A point of `program` with the family's defaults and short timings.
inline PlanPoint make_point(const FamilyManifest &f, const std::string &program,
                            int64_t warmup_ns = 1'000'000'000, int64_t duration_ns = 1'000'000'000) {
  PlanPoint p;
  p.family = f.name;
  p.program = program;
  p.label = program;
  for (const auto &ps : f.params) {
    p.params.emplace_back(ps.name, ps.default_value);
    p.param_ranges.emplace_back();
  }
  p.warmup_ns = warmup_ns;
  p.duration_ns = duration_ns;
  p.producers = 1;
  p.consumers = 1;
  p.report = f.default_report;
  return p;
}

// Emits and compiles the point's program; "" error on success.
inline std::vector<uint8_t> compile_point(const PlanPoint &p, const Families &fams, std::string &error) {
  SourceManager sm;
  Diagnostics diags;
  auto c = emit_point(p, fams.get(p.family), fams.reg, sm, diags);
  if (!c) {
    error = "emit failed: " + render_all(diags, sm);
    return {};
  }
  CompileResult cr = compile_bpf(*c, CompileOptions{});
  if (!cr.ok) {
    error = "compile failed: " + cr.error;
    for (const auto &d : cr.diags) error += "\n" + d.file + ":" + std::to_string(d.line) + ": " + d.message;
    return {};
  }
  return cr.object;
}

}  // namespace bpfbench::test
