// Emit: the generated C is the two libbpf headers, the shared header inlined, the rodata
// globals (declared here so templates never do), the template params as BB_<NAME> macros
// located at the .bdsl line that set them, then the rendered template.
#include "compiler/emit_bpf.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "compiler/code_hooks.hpp"
#include "compiler/escape.hpp"
#include "compiler/input_file.hpp"
#include "compiler/template_render.hpp"

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

std::optional<std::string> render_c(const PlanPoint &p, const FamilyManifest &f, const FamilyRegistry &families,
                                    const SourceManager &sm, const std::string &virtual_name, Diagnostics &diags) {
  if (f.template_path.empty()) {
    diags.error(p.bench_range, "family '" + f.name + "' has no template");
    return std::nullopt;
  }
  std::string header_path = families.include_dir() + "/bpfbench_shared.h", err;
  std::optional<InputFile> header;
  if (!families.include_dir().empty()) header = read_input_file(header_path, kMaxTextInputBytes, err);
  if (!header) {
    diags.error(p.bench_range, "cannot read bpfbench_shared.h (looked for include/bpfbench_shared.h "
                               "in the template dirs)" +
                                   (err.empty() ? "" : ": " + header_path + ": " + err));
    return std::nullopt;
  }
  std::vector<TemplateKey> keys = template_keys(p, f);
  for (auto &k : code_template_keys(p, f, sm)) keys.push_back(std::move(k));
  auto body = render_template(f.template_path, f.template_text, keys, diags);
  if (!body) return std::nullopt;

  Out out(virtual_name);
  out.add("/* Generated by bpfbench from " + c_comment_text(f.template_path) + " (family " + c_comment_text(f.name) +
          "). */");
  out.add("#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>");
  out.map_to(header_path, 1);
  out.add(header->data);
  out.unmap();
  out.add("/* builtin: the bpfbench process tgid (the runtime sets it) */");
  out.add("const volatile __u32 bb_tgid = 0;");
  // Manifest defaults, not this point's values: the C (and so the cached object) is the
  // same for every point; the runtime writes the real values into .rodata before load.
  for (const auto &spec : f.params)
    if (spec.dest == ParamDest::Rodata)
      out.add("const volatile " + spec.c_type + " " + spec.name + " = " + c_value(spec, spec.default_value) + ";");
  for (auto emit : {emit_template_param, emit_template_assert})
    for (const auto &spec : f.params) {
      if (spec.dest != ParamDest::Template) continue;
      SourceRange r;
      const ParamValue *v = value_of(p, spec.name, &r);
      emit(out, spec, v ? *v : spec.default_value, r, sm);
    }
  out.map_to(f.template_path, 1);
  out.add(*body);
  return out.take();
}

}  // namespace

std::vector<EmitUnit> emit_programs(const RunPlan &plan, const FamilyRegistry &families, const SourceManager &sm,
                                    Diagnostics &diags) {
  std::vector<EmitUnit> units;
  // (family, template values) -> index into `units`, or -1 when that program failed.
  std::map<std::pair<std::string, std::vector<ParamValue>>, long> seen;
  std::map<std::string, size_t> per_family;
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
      if (it->second >= 0) units[static_cast<size_t>(it->second)].points.push_back(i);
      continue;
    }
    std::string name = f->name + "-" + std::to_string(per_family[f->name]) + ".bpf.c";
    auto c = render_c(p, *f, families, sm, name, diags);
    if (!c) {
      seen.emplace(key, -1);
      continue;
    }
    ++per_family[f->name];
    seen.emplace(key, static_cast<long>(units.size()));
    units.push_back(EmitUnit{f->name, name, std::move(*c), {i}, std::move(tparams)});
  }
  return units;
}

std::optional<std::string> emit_point(const PlanPoint &p, const FamilyManifest &f, const FamilyRegistry &families,
                                      const SourceManager &sm, Diagnostics &diags) {
  return render_c(p, f, families, sm, f.name + ".bpf.c", diags);
}

}  // namespace bpfbench
