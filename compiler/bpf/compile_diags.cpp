#include "compiler/bpf/compile_diags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "compiler/bpf/clang_vfs.hpp"
#include "compiler/bpf/code_hooks.hpp"
#include "util/input_file.hpp"

namespace bpfbench {

namespace {

const FamilyManifest *template_of(const FamilyRegistry &families, const std::string &path) {
  for (const auto &f : families.all())
    if (!f.template_path.empty() && f.template_path == path) return &f;
  return nullptr;
}

// What a diagnostic's file is to the user.
enum class Origin {
  Bdsl,       // a loaded .bdsl file: inline C, or a value the generated C was written from
  Template,   // a family's template
  Header,     // a header: the shared one, one beside the .bdsl, a system one, vmlinux.h
  Generated,  // the generated C itself (its prelude)
  Unknown,    // nothing to show (no location, or a file that cannot be read)
};

// What one compile read, for locating its diagnostics.
struct UnitFiles {
  const PlanPoint &first_point;
  const EmitUnit &unit;
  const PrecompiledVmlinux *vmlinux;
};

// The SourceManager id of the file a diagnostic names, adding it once: a template and the
// shared header are the texts the program was made from (read inside their template
// folder); the generated C and vmlinux.h are what clang compiled from memory; another
// header is read again only when clang's file system would open it (a `#line 1 "x.h"`
// in a template can name any path, and x.h may link to /etc/shadow). -1: none.
int64_t file_id(SourceManager &sm, const FamilyRegistry &families, const UnitFiles &u, const std::string &path,
                Origin &origin) {
  origin = Origin::Unknown;
  if (path.empty()) return -1;
  const FamilyManifest *f = template_of(families, path);
  const bool header = path == families.shared_header_path() || path.ends_with(".h");
  const bool generated = path == u.unit.virtual_name;
  origin = f ? Origin::Template : generated ? Origin::Generated : header ? Origin::Header : Origin::Bdsl;
  if (int64_t id = sm.find(path); id >= 0) return id;
  if (f) return sm.add(path, f->template_text);
  if (generated) return sm.add(path, u.unit.c_source);
  if (path == families.shared_header_path()) return sm.add(path, families.shared_header_text());
  if (path == kVmlinuxHeaderPath && u.vmlinux) return sm.add(path, u.vmlinux->header);
  if (!header || !check_header(path)) return origin = Origin::Unknown, -1;
  auto in = read_input_file(path, kMaxTextInputBytes);
  if (!in) return origin = Origin::Unknown, -1;
  return sm.add(path, std::move(in->data));
}

// "in file included from here" and other notes read as clang's; the main message says
// where its C came from.
std::string prefixed(const CompileDiag &cd, Origin origin, bool inline_c, const PlanPoint &first_point) {
  switch (origin) {
  case Origin::Bdsl: return fmt::format("{}: {}", inline_c ? "in inline BPF C" : "in generated BPF C", cd.message);
  case Origin::Template: return fmt::format("in the template of family '{}': {}", first_point.family, cd.message);
  case Origin::Generated: return fmt::format("in generated BPF C: {}", cd.message);
  default: return cd.message;
  }
}

std::string fixit_hint(const CompileFixIt &f) {
  if (f.end_col < f.col) return fmt::format("fix-it: insert '{}' at line {}, column {}", f.text, f.line, f.col);
  if (f.text.empty()) return fmt::format("fix-it: remove line {}, columns {}-{}", f.line, f.col, f.end_col);
  return fmt::format("fix-it: replace line {}, columns {}-{} with '{}'", f.line, f.col, f.end_col, f.text);
}

// One of clang's messages, located (`main`: an error or warning, not a note).
Diagnostic located(const CompileDiag &cd, bool main, SourceManager &sm, const FamilyRegistry &families,
                   const UnitFiles &u) {
  Diagnostic d;
  d.severity = cd.severity;
  Origin origin = Origin::Unknown;
  const int64_t id = cd.line > 0 ? file_id(sm, families, u, cd.file, origin) : -1;
  if (id < 0 || cd.line > sm.file(static_cast<uint32_t>(id)).line_starts.size()) {
    d.message = cd.line > 0 ? fmt::format("{}:{}:{}: {}", cd.file, cd.line, cd.col, cd.message) : cd.message;
    return d;
  }
  const auto file = static_cast<uint32_t>(id);
  d.range = SourceRange{file, cd.line, cd.col, cd.line, std::max(cd.col, cd.end_col)};
  // Inline C (`code`) keeps its columns (compiler/bpf/code_hooks.cpp pads them); elsewhere in
  // a .bdsl the columns are the generated C's and the value written on that line is the place.
  const bool inline_c = origin == Origin::Bdsl && code_block_at(u.first_point, d.range) != nullptr;
  bool moved = false;
  if (origin == Origin::Bdsl && !inline_c)
    for (const auto &r : u.first_point.param_ranges)
      if (r.valid() && r.file == file && r.line == cd.line) d.range = r, moved = true;
  d.message = main ? prefixed(cd, origin, inline_c, u.first_point) : cd.message;
  for (const auto &f : cd.fixits) {
    if (moved) continue;  // columns of generated text
    if (f.line == cd.line) d.fixits.push_back(FixIt{f.col, f.text});
    else d.hints.push_back(fixit_hint(f));
  }
  return d;
}

// clang's message for a quoted include it did not find, e.g. "'my_helpers.h' file not found".
void add_include_hints(const CompileDiag &cd, Diagnostic &d) {
  if (cd.message == "'vmlinux.h' file not found")
    d.hints.push_back("vmlinux.h is there for a template or code block that includes it itself, on a line of its "
                      "own, not for a header it includes");
  else if (cd.message.ends_with("' file not found") && cd.message.starts_with("'"))
    d.hints.push_back(
        "a quoted #include is looked for in the .bdsl file's folder, the family's folder and each --include-dir "
        "folder");
}

// Warns once: a warning of the same text is not added again.
void warn_once(Diagnostics &diags, const std::string &msg) {
  for (const auto &d : diags.all())
    if (d.message == msg) return;
  diags.warning({}, msg);
}

}  // namespace

void CompileDiags::collect(Diagnostic d, const EmitUnit &u) {
  std::string key = render(d, sm_);
  for (auto &s : shown_)
    if (s.key == key) {
      s.points.insert(s.points.end(), u.points.begin(), u.points.end());
      return;
    }
  shown_.push_back(Shown{std::move(d), std::move(key), u.points});
}

void CompileDiags::add(const CompileResult &result, const EmitUnit &u, const PrecompiledVmlinux *vmlinux) {
  const UnitFiles files{plan_.points.at(u.points.at(0)), u, vmlinux};
  bool any_error = false;
  std::optional<Diagnostic> cur;  // the error or warning clang's notes attach to
  auto flush = [&] {
    if (cur) collect(std::move(*cur), u);
    cur.reset();
  };
  bool skip = false;  // a warning of a program that compiled, and its notes
  for (const auto &cd : result.diags) {
    if (cd.severity == Severity::Note) {
      if (cur && !skip) cur->notes.push_back(located(cd, false, sm_, families_, files));
      continue;
    }
    flush();
    any_error |= cd.severity == Severity::Error;
    skip = cd.severity == Severity::Warning && result.ok;  // template warnings are the author's
    if (skip) continue;
    cur = located(cd, true, sm_, families_, files);
    add_include_hints(cd, *cur);
  }
  flush();
  if (!result.cache_warning.empty())
    // Once per run: every later compile hits the same unwritable cache.
    warn_once(diags_,
              fmt::format("compiled BPF objects are not cached ({}); every run compiles again", result.cache_warning));
  if (!result.cache_repaired.empty())
    // Once: the file is replaced by this compile (or left for the next one to replace).
    diags_.warning({}, fmt::format("cached BPF object {}; compiled it again{}", result.cache_repaired,
                                   result.ok && result.cache_warning.empty() ? " and replaced it" : ""));
  if (result.interrupted || result.ok) return;  // a stop is not an error: the caller reports it
  if (!result.error.empty())
    collect(Diagnostic{Severity::Error, {}, "compiling the BPF program failed: " + result.error, {}, {}, {}}, u);
  else if (!any_error)
    collect(Diagnostic{Severity::Error, {}, "compiling the BPF program failed (no diagnostic from clang)", {}, {}, {}},
            u);
}

void CompileDiags::add_vmlinux(const VmlinuxResult &v, const EmitUnit &u, bool first_use) {
  if (v.vmlinux) {
    if (!first_use) return;
    if (!v.cache_warning.empty())
      diags_.warning(
          {}, fmt::format("the precompiled vmlinux.h is not cached ({}); every run builds it again", v.cache_warning));
    if (!v.cache_repaired.empty())
      diags_.warning({}, fmt::format("cached precompiled vmlinux.h {}; built it again{}", v.cache_repaired,
                                     v.cache_warning.empty() ? " and replaced it" : ""));
    return;
  }
  if (v.interrupted || !u.vmlinux) return;  // a stop: the caller reports it
  CompileResult r;
  r.diags.push_back(
      CompileDiag{Severity::Error, u.vmlinux->file, u.vmlinux->line, u.vmlinux->col, "vmlinux.h: " + v.error, 0, {}});
  if (first_use) r.diags.insert(r.diags.end(), v.diags.begin(), v.diags.end());
  add(r, u);
}

void CompileDiags::finish() {
  for (auto &s : shown_) {
    if (diags_.full()) break;
    const PlanPoint &first = plan_.points.at(s.points.at(0));
    s.d.notes.push_back(Diagnostic{Severity::Note, first.bench_range, generated_for_note(plan_, s.points), {}, {}, {}});
    diags_.add(std::move(s.d));
  }
  shown_.clear();
}

}  // namespace bpfbench
