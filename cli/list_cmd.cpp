// `bpfbench list`: the families, read from their manifests.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "util/escape.hpp"
#include "compiler/family/builtins.hpp"
#include "compiler/family/kinds_text.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan_dump.hpp"
#include "compiler/family/template_path.hpp"

namespace bpfbench::cli {

namespace {

std::string show_value(const ParamSpec &p, const ParamValue &v) {
  if (!v.is_int) return v.s.empty() ? "\"\"" : v.s;
  if (p.type == ParamType::Duration) return format_duration_ns(v.i);
  if (p.type == ParamType::Bool) return v.i ? "true" : "false";
  return std::to_string(v.i);
}

std::string show_range(const ParamSpec &p) {
  if (p.type == ParamType::Enum) return fmt::format("{}", fmt::join(p.choices, "|"));
  if (p.type == ParamType::Bool || p.type == ParamType::Cpuset || p.type == ParamType::Address) return "";
  std::string hi = p.max == INT64_MAX ? "max" : show_value(p, ParamValue{true, p.max, {}});
  return fmt::format("[{}..{}]{}", show_value(p, ParamValue{true, p.min, {}}), hi,
                     p.power_of_two ? " power of two" : "");
}

// An enum with choice docs or presets: a line per choice, with the params its preset sets.
void print_choices(const ParamSpec &p) {
  if (p.choice_docs.empty() && p.presets.empty()) return;
  for (const auto &c : p.choices) {
    auto doc = p.choice_docs.find(c);
    std::vector<std::string> sets;
    if (auto it = p.presets.find(c); it != p.presets.end())
      for (const auto &[name, v] : it->second) sets.push_back(name);
    fmt::print("      {:<24} {}{}\n", c, doc == p.choice_docs.end() ? "" : doc->second,
               sets.empty() ? "" : fmt::format(" (presets {})", fmt::join(sets, ", ")));
  }
}

nlohmann::json param_json(const ParamSpec &p) {
  nlohmann::json j = {{"name", p.name},
                      {"type", to_string(p.type)},
                      {"dest", to_string(p.dest)},
                      {"default", show_value(p, p.default_value)},
                      {"sweepable", p.sweepable},
                      {"doc", p.doc}};
  if (p.type == ParamType::Enum) j["choices"] = p.choices;
  else if (p.type != ParamType::Bool && p.type != ParamType::Cpuset && p.type != ParamType::Address) {
    j["min"] = p.min;
    j["max"] = p.max;
  }
  if (!p.choice_docs.empty()) j["choice_docs"] = p.choice_docs;
  if (!p.presets.empty()) {
    nlohmann::json presets = nlohmann::json::object();
    for (const auto &[choice, values] : p.presets)
      for (const auto &[name, v] : values) presets[choice][name] = v.to_string();
    j["presets"] = presets;
  }
  return j;
}

// The families of the same name that `f` hides, first the one it hides directly.
std::vector<const ShadowedFamily *> shadowed_by(const FamilyRegistry &reg, const FamilyManifest &f) {
  std::vector<const ShadowedFamily *> out;
  for (const auto &s : reg.shadowed())
    if (s.name == f.name) out.push_back(&s);
  return out;
}

nlohmann::json shadows_json(const FamilyRegistry &reg, const FamilyManifest &f) {
  nlohmann::json out = nlohmann::json::array();
  for (const ShadowedFamily *s : shadowed_by(reg, f)) out.push_back({{"dir", s->dir}, {"origin", s->origin}});
  return out;
}

}  // namespace

int cmd_list(const ListArgs &a) {
  if (a.kinds) {
    fmt::print("{}", kinds_reference());
    return kExitOk;
  }
  Diagnostics diags;
  SourceManager sources;  // the manifests with problems, for the renderer
  FamilyRegistry reg = FamilyRegistry::load(template_search_path(a.template_dirs, a.file), sources, diags);
  std::string errors = render_all(diags, sources);
  if (!errors.empty()) std::fputs(errors.c_str(), stderr);
  if (diags.has_errors()) return kExitBadInput;

  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto &f : reg.all()) {
      nlohmann::json params = nlohmann::json::array(), programs = nlohmann::json::array(),
                     metrics = nlohmann::json::array();
      for (const auto &p : f.params) params.push_back(param_json(p));
      for (const auto &p : f.programs)
        programs.push_back({{"name", p.name},
                            {"section", p.section},
                            {"attach", kind_name(p.attach)},
                            {"requires", p.requires_features},
                            {"doc", p.doc}});
      for (const auto &m : f.metrics) metrics.push_back({{"name", m.name}, {"unit", m.unit}, {"doc", m.doc}});
      nlohmann::json hooks = nlohmann::json::array();
      for (const auto &h : f.hooks) hooks.push_back({{"name", h.name}, {"doc", h.doc}});
      out.push_back({{"family", f.name},
                     {"description", f.description},
                     {"dir", f.dir},
                     {"origin", f.origin},
                     {"shadows", shadows_json(reg, f)},
                     {"hooks", hooks},
                     {"params", params},
                     {"programs", programs},
                     {"metrics", metrics},
                     {"report", f.default_report}});
    }
    fmt::print("{}\n", json_text(out, 2));
    return kExitOk;
  }
  for (const auto &f : reg.all()) {
    fmt::print("{} — {}\n  from: {} ({})\n", f.name, f.description, f.dir, f.origin);
    for (const ShadowedFamily *s : shadowed_by(reg, f)) fmt::print("  shadows: {} ({})\n", s->dir, s->origin);
    fmt::print("  programs:\n");
    for (const auto &p : f.programs)
      fmt::print("    {:<18} {}{}\n", p.name, p.doc, p.name == f.default_program ? " (default)" : "");
    fmt::print("  params:\n");
    for (const auto &p : f.params) {
      fmt::print("    {:<18} {:<8} default {:<8} {:<22} {}\n", p.name, to_string(p.type),
                 show_value(p, p.default_value), p.choice_docs.empty() ? show_range(p) : "(below)", p.doc);
      print_choices(p);
    }
    fmt::print("  metrics: ");
    for (size_t i = 0; i < f.metrics.size(); ++i)
      fmt::print("{}{} ({})", i ? ", " : "", f.metrics[i].name, f.metrics[i].unit);
    fmt::print("\n  reported by default: {}\n", fmt::join(f.default_report, ", "));
    if (!f.hooks.empty()) fmt::print("  code hooks:\n");
    for (const auto &h : f.hooks) fmt::print("    {:<18} {}\n", h.name, h.doc);
    fmt::print("\n");
  }
  fmt::print("settings every bench has:\n");
  // The defaults of a family with a consumer (`consumers` is 0 in one without), as this
  // list has always shown them.
  FamilyManifest any;
  any.consumer = ConsumerKind::Ringbuf;
  for (const auto &p : builtin_settings(any))
    if (p.name != "prog")
      fmt::print("    {:<18} {:<8} default {:<8} {}\n", p.name, to_string(p.type), show_value(p, p.default_value),
                 p.doc);
  return kExitOk;
}

}  // namespace bpfbench::cli
