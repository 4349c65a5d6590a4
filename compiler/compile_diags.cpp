#include "compiler/compile_diags.hpp"

#include <fmt/format.h>

#include "compiler/clang_vfs.hpp"
#include "compiler/code_hooks.hpp"
#include "compiler/input_file.hpp"

namespace bpfbench {

namespace {

// The SourceManager id of `path`, or -1 when it is not a loaded .bdsl file.
int find_file(const SourceManager &sm, const std::string &path) {
  for (size_t i = 0; i < sm.size(); ++i)
    if (sm.file(static_cast<uint32_t>(i)).path == path) return static_cast<int>(i);
  return -1;
}

const FamilyManifest *template_of(const FamilyRegistry &families, const std::string &path) {
  for (const auto &f : families.all())
    if (!f.template_path.empty() && f.template_path == path) return &f;
  return nullptr;
}

// A family's template or a header (the shared one, one beside the .bdsl): C that clang
// read, located in its own file rather than in a .bdsl.
bool is_template_file(const FamilyRegistry &families, const std::string &path) {
  return template_of(families, path) || (path.size() > 2 && path.ends_with(".h"));
}

// Adds such a file to `sm` (its id; -1 when it cannot be read). A template and the shared
// header are the texts the program was made from (read inside their template folder);
// another header is read again only when clang's file system would open it (a `#line 1
// "x.h"` in a template can name any path, and x.h may link to /etc/shadow).
int add_template_file(SourceManager &sm, const FamilyRegistry &families, const std::string &path) {
  if (const FamilyManifest *f = template_of(families, path)) return static_cast<int>(sm.add(path, f->template_text));
  if (path == families.shared_header_path()) return static_cast<int>(sm.add(path, families.shared_header_text()));
  if (!header_problem(path).empty()) return -1;
  std::string err;
  auto in = read_input_file(path, kMaxTextInputBytes, err);
  return in ? static_cast<int>(sm.add(path, std::move(in->data))) : -1;
}

// "in inline BPF C" (a `code` block), "in generated BPF C" (a value on that .bdsl line),
// "in the template of family 'x'", or nothing for a header.
Diagnostic located(const CompileDiag &cd, uint32_t id, bool bdsl, const PlanPoint &first_point) {
  Diagnostic d;
  d.severity = cd.severity;
  d.range = SourceRange{id, cd.line, cd.col, cd.line, cd.col};
  if (!bdsl) {  // a header's own path says what it is
    bool header = cd.file.ends_with(".h");
    d.message = header ? cd.message : fmt::format("in the template of family '{}': {}", first_point.family, cd.message);
    return d;
  }
  // Inline C (`code`) keeps its columns (compiler/code_hooks.cpp pads them); elsewhere
  // columns are the generated C's and the value written on that .bdsl line is the place.
  bool inline_c = code_block_at(first_point, d.range) != nullptr;
  if (!inline_c)
    for (const auto &r : first_point.param_ranges)
      if (r.valid() && r.file == d.range.file && r.line == cd.line) d.range = r;
  d.message = fmt::format("{}: {}", inline_c ? "in inline BPF C" : "in generated BPF C", cd.message);
  return d;
}

}  // namespace

void add_compile_diags(const CompileResult &result, const PlanPoint &first_point, const FamilyRegistry &families,
                       SourceManager &sm, Diagnostics &diags) {
  Diagnostic bench_note{Severity::Note,
                        first_point.bench_range,
                        fmt::format("in the BPF program generated for '{}'", first_point.label),
                        {},
                        {}};
  for (const auto &cd : result.diags) {
    if (cd.severity == Severity::Note) continue;
    if (cd.severity == Severity::Warning && result.ok) continue;  // template warnings are the author's
    bool tmpl = is_template_file(families, cd.file);
    int id = cd.line > 0 ? find_file(sm, cd.file) : -1;
    if (id < 0 && tmpl && cd.line > 0) id = add_template_file(sm, families, cd.file);
    bool bdsl = id >= 0 && !tmpl;
    Diagnostic d;
    if (id >= 0 && cd.line > 0 && cd.line <= sm.file(static_cast<uint32_t>(id)).line_starts.size()) {
      d = located(cd, static_cast<uint32_t>(id), bdsl, first_point);
    } else {
      d.severity = cd.severity;
      d.message = cd.line > 0 ? fmt::format("{}:{}:{}: {}", cd.file, cd.line, cd.col, cd.message) : cd.message;
    }
    // clang's message for a quoted include it did not find, e.g. "'my_helpers.h' file not found".
    if (cd.message == "'vmlinux.h' file not found")
      d.hints.push_back("vmlinux.h is there for a template or code block that includes it itself, on a line of its "
                        "own, not for a header it includes");
    else if (cd.message.ends_with("' file not found") && cd.message.starts_with("'"))
      d.hints.push_back(
          "a quoted #include is looked for in the .bdsl file's folder, the family's folder and each --include-dir "
          "folder");
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

void add_vmlinux_diags(const VmlinuxResult &v, const IncludeSite &site, bool first_use, const PlanPoint &first_point,
                       const FamilyRegistry &families, SourceManager &sm, Diagnostics &diags) {
  if (v.vmlinux) {
    if (!first_use) return;
    if (!v.cache_warning.empty())
      diags.warning(
          {}, fmt::format("the precompiled vmlinux.h is not cached ({}); every run builds it again", v.cache_warning));
    if (!v.cache_repaired.empty())
      diags.warning({}, fmt::format("cached precompiled vmlinux.h {}; built it again{}", v.cache_repaired,
                                    v.cache_warning.empty() ? " and replaced it" : ""));
    return;
  }
  if (v.interrupted) return;  // a stop: the caller reports it
  CompileResult r;
  r.diags.push_back(CompileDiag{Severity::Error, site.file, site.line, site.col, "vmlinux.h: " + v.error});
  if (first_use) r.diags.insert(r.diags.end(), v.diags.begin(), v.diags.end());
  add_compile_diags(r, first_point, families, sm, diags);
}

}  // namespace bpfbench
