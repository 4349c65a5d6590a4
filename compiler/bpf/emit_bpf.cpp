// Emit: the generated C is <linux/bpf.h> (or vmlinux.h, when the template or inline C
// includes it) and <bpf/bpf_helpers.h>, the shared header inlined, the rodata
// globals (declared here so templates never do), the template params as BB_<NAME> macros
// located at the .bdsl line that set them, then the rendered template.
#include "compiler/bpf/emit_bpf.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <variant>

#include "compiler/bpf/code_hooks.hpp"
#include "util/escape.hpp"
#include "compiler/bpf/template_render.hpp"

namespace bpfbench {
namespace {

const ParamValue *value_of(const PlanPoint &p, const std::string &name, SourceRange *range) {
  for (size_t i = 0; i < p.params.size(); ++i) {
    if (p.params[i].first != name) continue;
    if (range && i < p.param_ranges.size()) *range = p.param_ranges[i];
    return &p.params[i].second;
  }
  return nullptr;
}

std::string upper(std::string s) {
  for (char &c : s) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The C spelling of a value: numbers as literals, enum choices as tokens, CPU sets and
// addresses as strings.
std::string c_value(const ParamSpec &spec, const ParamValue &v) {
  switch (spec.type) {
  case ParamType::Enum: return v.s;
  case ParamType::Cpuset:
  case ParamType::Address: return c_string_literal(v.s);
  default:
    // Parenthesized when negative so `-BB_X` never turns into `--`.
    return v.i < 0 ? "(" + std::to_string(v.i) + ")" : std::to_string(v.i);
  }
}

// Tracks the generated text's own line numbers so it can point clang back at itself
// after a stretch mapped elsewhere (#line into a header or a .bdsl file).
class Out {
 public:
  explicit Out(std::string virtual_name) : name_(std::move(virtual_name)) {}

  void add(std::string text) {
    if (text.empty() || text.back() != '\n') text += '\n';
    lines_ += static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    text_ += text;
  }
  void map_to(const std::string &file, size_t line) {
    add("#line " + std::to_string(line) + " " + c_string_literal(file));
    mapped_ = true;
  }
  // Back to this file's own numbering (the line after the directive).
  void unmap() {
    if (!mapped_) return;
    add("#line " + std::to_string(lines_ + 2) + " " + c_string_literal(name_));
    mapped_ = false;
  }
  std::string take() { return std::move(text_); }

 private:
  std::string name_;
  std::string text_;
  size_t lines_ = 0;
  bool mapped_ = false;
};

// The mustache keys of a point: its template params, enum choices as `<name>_is_<choice>`
// flags (mustache cannot compare), and the family name.
std::vector<TemplateKey> template_keys(const PlanPoint &p, const FamilyManifest &f) {
  std::vector<TemplateKey> keys;
  keys.push_back(TemplateKey{"family", false, false, f.name});
  for (const auto &spec : f.params) {
    if (spec.dest != ParamDest::Template) continue;
    const ParamValue *v = value_of(p, spec.name, nullptr);
    const ParamValue &val = v ? *v : spec.default_value;
    if (spec.type == ParamType::Bool) {
      keys.push_back(TemplateKey{spec.name, true, val.i != 0, {}});
      continue;
    }
    keys.push_back(TemplateKey{spec.name, false, false, val.to_string()});
    if (spec.type == ParamType::Enum)
      for (const auto &c : spec.choices) keys.push_back(TemplateKey{spec.name + "_is_" + c, true, val.s == c, {}});
  }
  return keys;
}

// Sets `out` to the .bdsl line that wrote the value, or back to the generated file.
void locate(Out &out, const SourceRange &r, const SourceManager &sm) {
  if (r.valid() && r.file < sm.size()) out.map_to(sm.file(r.file).path, r.line);
  else out.unmap();
}

void emit_template_param(Out &out, const ParamSpec &spec, const ParamValue &v, const SourceRange &r,
                         const SourceManager &sm) {
  std::string macro = "BB_" + upper(spec.name);
  locate(out, r, sm);
  out.add("#define " + macro + " " + c_value(spec, v));
  if (spec.type == ParamType::Enum) {
    locate(out, r, sm);
    out.add("#define " + macro + "_" + upper(v.s) + " 1");
  }
}

// After every macro is defined, so an assertion may mention other template params.
void emit_template_assert(Out &out, const ParamSpec &spec, const ParamValue &v, const SourceRange &r,
                          const SourceManager &sm) {
  if (spec.c_assert.empty()) return;
  locate(out, r, sm);
  out.add("_Static_assert(" + spec.c_assert + ", " +
          c_string_literal(spec.name + " = " + v.to_string() + " does not satisfy " + spec.c_assert) + ");");
}

// Skips spaces and tabs from `i`; then true (past it) when `word` follows.
bool skip_to(std::string_view line, size_t &i, std::string_view word) {
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (line.substr(i, word.size()) != word) return false;
  i += word.size();
  return true;
}

// The first line of `body` that includes vmlinux.h (`#include <vmlinux.h>` or
// "vmlinux.h"), located as clang would: `body` starts at line 1 of `file`, and each
// `#line N "path"` in it (the template's own, inline C's) moves the place; its path is
// one of `paths` (the template, the .bdsl files), as c_string_literal spelled it.
std::optional<IncludeSite> find_vmlinux_include(std::string_view body, const std::string &file,
                                                const std::vector<std::string> &paths) {
  IncludeSite at{file, 1, 0};
  for (size_t start = 0; start < body.size();) {
    size_t end = body.find('\n', start);
    std::string_view line = body.substr(start, end == std::string_view::npos ? body.size() - start : end - start);
    start = end == std::string_view::npos ? body.size() : end + 1;
    size_t i = 0;
    uint32_t n = 0;
    if (skip_to(line, i, "#") && skip_to(line, i, "line") && i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      auto [end_n, ec] = std::from_chars(line.data() + i, line.data() + line.size(), n);
      if (ec == std::errc{}) {
        at.line = n;
        std::string_view name = line.substr(static_cast<size_t>(end_n - line.data()));
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        for (const auto &p : paths)
          if (name.starts_with(c_string_literal(p))) at.file = p;
        continue;  // the directive names the next line
      }
    }
    i = 0;
    if (skip_to(line, i, "#") && skip_to(line, i, "include") &&
        (skip_to(line, i, "<vmlinux.h>") || skip_to(line, i, "\"vmlinux.h\""))) {
      at.col = static_cast<uint32_t>(line.find('#') + 1);
      return at;
    }
    ++at.line;
  }
  return std::nullopt;
}

struct RenderedC {
  std::string text;
  std::optional<IncludeSite> vmlinux;
};

std::optional<RenderedC> render_c(const PlanPoint &p, const FamilyManifest &f, const FamilyRegistry &families,
                                  SourceManager &sm, const std::string &virtual_name, Diagnostics &diags) {
  if (f.template_path.empty()) {
    diags.error(p.bench_range, "family '" + f.name + "' has no template");
    return std::nullopt;
  }
  // Read when the families were loaded, inside its template folder (FamilyRegistry::load).
  std::string header_path = families.shared_header_path();
  if (header_path.empty()) {
    diags.error(p.bench_range, "cannot read bpfbench_shared.h (looked for include/bpfbench_shared.h "
                               "in the template dirs)");
    return std::nullopt;
  }
  std::vector<TemplateKey> keys = template_keys(p, f);
  for (auto &k : code_template_keys(p, f, sm)) keys.push_back(std::move(k));
  auto body = render_template(f.template_path, f.template_text, keys, sm, diags);
  if (!body) return std::nullopt;
  std::vector<std::string> paths = {f.template_path};
  for (uint32_t i = 0; i < sm.size(); ++i) paths.push_back(sm.file(i).path);
  RenderedC c;
  c.vmlinux = find_vmlinux_include(*body, f.template_path, paths);

  Out out(virtual_name);
  out.add("/* Generated by bpfbench from " + c_comment_text(f.template_path) + " (family " + c_comment_text(f.name) +
          "). */");
  // The kernel's own types, or the uapi ones: vmlinux.h declares what <linux/bpf.h> does
  // (and its struct bpf_map & co.), so one of the two leads, never both.
  if (c.vmlinux) out.add("#include <vmlinux.h> /* the running kernel's types (from its BTF) */");
  else out.add("#include <linux/bpf.h>");
  out.add("#include <bpf/bpf_helpers.h>");
  out.map_to(header_path, 1);
  out.add(families.shared_header_text());
  out.unmap();
  // Manifest defaults, not this point's values: the C (and so the cached object) is the
  // same for every point; the runtime writes the real values into .rodata before load.
  // The family's params come first, in manifest order, and bpfbench's own variable after
  // them: .rodata then starts as the kernel bench's does, with the first param at offset 0.
  // Where a variable lies in its page matters: a loop that re-reads one at page offset 0
  // after a locked add to a counter at page offset 0 (CPU 0's slot) waits on that add
  // (4K aliasing; docs/families/trigger.md measures it), in the kernel bench as here.
  for (const auto &spec : f.params)
    if (spec.dest == ParamDest::Rodata)
      out.add("const volatile " + spec.c_type + " " + spec.name + " = " + c_value(spec, spec.default_value) + ";");
  out.add("/* builtin: the bpfbench process tgid (the runtime sets it) */");
  out.add("const volatile __u32 bb_tgid = 0;");
  for (auto emit : {emit_template_param, emit_template_assert})
    for (const auto &spec : f.params) {
      if (spec.dest != ParamDest::Template) continue;
      SourceRange r;
      const ParamValue *v = value_of(p, spec.name, &r);
      emit(out, spec, v ? *v : spec.default_value, r, sm);
    }
  out.map_to(f.template_path, 1);
  out.add(*body);
  c.text = out.take();
  return c;
}

// What failed to render, each diagnostic once: a template error is the same for every
// group of its family (a swept `template` param renders the template once per value).
class RenderErrors {
 public:
  // The diagnostics of the render of point `i`'s group; returns their ids.
  std::vector<size_t> add(const Diagnostics &local, const FamilyManifest &f, size_t i, const SourceManager &sm) {
    std::vector<size_t> ids;
    for (const auto &d : local.all()) {
      std::string key = render(d, sm);
      size_t id = 0;
      while (id < shown_.size() && shown_[id].key != key) ++id;
      if (id == shown_.size()) {
        bool in_template = d.range.valid() && sm.file(d.range.file).path == f.template_path;
        shown_.push_back(Shown{d, std::move(key), {}, in_template});
      }
      ids.push_back(id);
    }
    add_point(ids, i);
    return ids;
  }
  void add_point(const std::vector<size_t> &ids, size_t i) {
    for (size_t id : ids) shown_[id].points.push_back(i);
  }
  // Into `diags`; an error in the template gets a note at the bench naming the points.
  void finish(const RunPlan &plan, Diagnostics &diags) {
    for (auto &s : shown_) {
      if (s.in_template)
        s.d.notes.push_back(Diagnostic{Severity::Note,
                                       plan.points.at(s.points.at(0)).bench_range,
                                       generated_for_note(plan, s.points),
                                       {},
                                       {},
                                       {}});
      diags.add(std::move(s.d));
    }
  }

 private:
  struct Shown {
    Diagnostic d;
    std::string key;  // its rendered text
    std::vector<size_t> points;
    bool in_template = false;
  };
  std::vector<Shown> shown_;
};

}  // namespace

std::string generated_for_note(const RunPlan &plan, const std::vector<size_t> &points) {
  std::vector<std::string> labels;
  for (size_t i : points) {
    std::string l = "'" + plan.points.at(i).label + "'";
    if (std::find(labels.begin(), labels.end(), l) == labels.end()) labels.push_back(std::move(l));
  }
  if (labels.size() == 1) return "in the BPF program generated for " + labels[0];
  const size_t n = labels.size();
  const size_t named = n > 4 ? 3 : n - 1;
  std::string list;
  for (size_t k = 0; k < named; ++k) list += (k ? ", " : "") + labels[k];
  list += n > 4 ? " and " + std::to_string(n - named) + " more" : " and " + labels[n - 1];
  return "in the BPF programs generated for " + list + " (" + std::to_string(n) + " points)";
}

std::vector<EmitUnit> emit_programs(const RunPlan &plan, const FamilyRegistry &families, SourceManager &sm,
                                    Diagnostics &diags) {
  std::vector<EmitUnit> units;
  // (family, template values) -> index into `units`, or the ids of its errors when that
  // program failed.
  std::map<std::pair<std::string, std::vector<ParamValue>>, std::variant<size_t, std::vector<size_t>>> seen;
  std::map<std::string, size_t> per_family;
  RenderErrors failed;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const PlanPoint &p = plan.points[i];
    const FamilyManifest *f = families.find(p.family);
    if (!f) {
      diags.error(p.bench_range, "unknown benchmark family '" + p.family + "'");
      continue;
    }
    std::vector<std::pair<std::string, ParamValue>> tparams;
    std::vector<ParamValue> key_values;
    for (const auto &spec : f->params) {
      if (spec.dest != ParamDest::Template) continue;
      const ParamValue *v = value_of(p, spec.name, nullptr);
      tparams.emplace_back(spec.name, v ? *v : spec.default_value);
      key_values.push_back(tparams.back().second);
    }
    if (!p.code.empty()) key_values.push_back(ParamValue{false, 0, code_identity(p)});  // inline C
    auto key = std::make_pair(f->name, key_values);
    auto it = seen.find(key);
    if (it != seen.end()) {
      if (const size_t *u = std::get_if<size_t>(&it->second)) units[*u].points.push_back(i);
      else failed.add_point(std::get<std::vector<size_t>>(it->second), i);
      continue;
    }
    std::string name = f->name + "-" + std::to_string(per_family[f->name]) + ".bpf.c";
    Diagnostics local;
    auto c = render_c(p, *f, families, sm, name, local);
    std::vector<size_t> errors = failed.add(local, *f, i, sm);
    if (!c) {
      seen.emplace(key, std::move(errors));
      continue;
    }
    ++per_family[f->name];
    seen.emplace(key, units.size());
    units.push_back(EmitUnit{f->name, name, std::move(c->text), {i}, std::move(tparams), std::move(c->vmlinux)});
  }
  failed.finish(plan, diags);
  return units;
}

std::optional<std::string> emit_point(const PlanPoint &p, const FamilyManifest &f, const FamilyRegistry &families,
                                      SourceManager &sm, Diagnostics &diags) {
  auto c = render_c(p, f, families, sm, f.name + ".bpf.c", diags);
  if (!c) return std::nullopt;
  return std::move(c->text);
}

}  // namespace bpfbench
