#include "compiler/compile_diags.hpp"

#include <fmt/format.h>

#include "compiler/code_hooks.hpp"

namespace bpfbench {

namespace {

// The SourceManager id of `path`, or -1 when it is not a loaded .bdsl file.
int find_file(const SourceManager &sm, const std::string &path) {
  for (size_t i = 0; i < sm.size(); ++i)
    if (sm.file(static_cast<uint32_t>(i)).path == path) return static_cast<int>(i);
  return -1;
}

}  // namespace

void add_compile_diags(const CompileResult &result, const PlanPoint &first_point, const SourceManager &sm,
                       Diagnostics &diags) {
  Diagnostic bench_note{Severity::Note,
                        first_point.bench_range,
                        fmt::format("in the BPF program generated for '{}'", first_point.label),
                        {},
                        {}};
  for (const auto &cd : result.diags) {
    if (cd.severity == Severity::Note) continue;
    if (cd.severity == Severity::Warning && result.ok) continue;  // template warnings are the author's
    Diagnostic d;
    d.severity = cd.severity;
    int id = find_file(sm, cd.file);
    if (id >= 0 && cd.line > 0) {
      d.range = SourceRange{static_cast<uint32_t>(id), cd.line, cd.col, cd.line, cd.col};
      // Inline C (`code`) keeps its columns (compiler/code_hooks.cpp pads them); elsewhere
      // columns are the generated C's and the value written on that .bdsl line is the place.
      bool inline_c = code_block_at(first_point, d.range) != nullptr;
      if (!inline_c)
        for (const auto &r : first_point.param_ranges)
          if (r.valid() && r.file == d.range.file && r.line == cd.line) d.range = r;
      d.message = fmt::format("{}: {}", inline_c ? "in inline BPF C" : "in generated BPF C", cd.message);
    } else {
      d.message = cd.line > 0 ? fmt::format("{}:{}:{}: {}", cd.file, cd.line, cd.col, cd.message) : cd.message;
    }
    d.notes.push_back(bench_note);
    diags.add(std::move(d));
    if (diags.full()) return;
  }
  if (!result.cache_warning.empty()) {
    // Once per run: every later compile hits the same unwritable cache.
    std::string msg =
        fmt::format("compiled BPF objects are not cached ({}); every run compiles again", result.cache_warning);
    bool said = false;
    for (const auto &d : diags.all()) said |= d.message == msg;
    if (!said) diags.warning({}, msg);
  }
  if (!result.cache_repaired.empty())
    // Once: the file is replaced by this compile (or left for the next one to replace).
    diags.warning({}, fmt::format("cached BPF object {}; compiled it again{}", result.cache_repaired,
                                  result.ok && result.cache_warning.empty() ? " and replaced it" : ""));
  if (result.interrupted) return;  // a stop, not an error: the caller reports it
  if (!result.ok && !result.error.empty()) {
    Diagnostic d{Severity::Error, {}, fmt::format("compiling the BPF program failed: {}", result.error), {}, {}};
    d.notes.push_back(bench_note);
    diags.add(std::move(d));
  } else if (!result.ok && !diags.has_errors()) {
    Diagnostic d{Severity::Error, {}, "compiling the BPF program failed (no diagnostic from clang)", {}, {}};
    d.notes.push_back(bench_note);
    diags.add(std::move(d));
  }
}

}  // namespace bpfbench
