// Inline C keeps its .bdsl coordinates: the emitter writes `#line` before each block and
// pads its first line to the column after '{', so a clang error in it names the .bdsl
// line and column the user typed, not a line of generated C.
#include "compiler/bpf/code_hooks.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "util/escape.hpp"
#include "compiler/family/manifest_fields.hpp"
#include "compiler/bdsl/names.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace bpfbench {

namespace {

// `{{code_x}}`, `{{ code_x }}`, `{{{code_x}}}` or `{{&code_x}}`: the key as a whole word
// right after a tag opening.
bool template_uses(const std::string &text, const std::string &key) {
  for (size_t pos = text.find("{{"); pos != std::string::npos; pos = text.find("{{", pos + 2)) {
    size_t i = pos + 2;
    while (i < text.size() && (text[i] == '{' || text[i] == '&' || text[i] == ' ')) ++i;
    if (text.compare(i, key.size(), key) != 0) continue;
    size_t end = i + key.size();
    if (end < text.size() && (text[end] == ' ' || text[end] == '}')) return true;
  }
  return false;
}

bool contains(const SourceRange &r, const SourceRange &loc) {
  if (!r.valid() || loc.file != r.file || loc.line < r.line || loc.line > r.end_line) return false;
  if (loc.line == r.line && loc.col < r.col) return false;
  return !(loc.line == r.end_line && loc.col > r.end_col + 1);
}

}  // namespace

void read_hooks(const nlohmann::json &arr, FamilyManifest &f, std::vector<ManifestProblem> &errors) {
  if (!arr.is_array()) {
    errors.push_back({&arr, "", "'hooks' must be an array of names or {\"name\", \"doc\"} objects"});
    return;
  }
  for (size_t i = 0; i < arr.size(); ++i) {
    const auto &j = arr[i];
    std::string where = fmt::format("hooks[{}]: ", i);
    HookSpec h;
    if (j.is_string()) {
      h.name = j.get<std::string>();
    } else if (j.is_object()) {
      bool ok = true;
      for (const auto &[k, v] : j.items()) {
        if ((k != "name" && k != "doc") || !v.is_string()) {
          std::string close = ManifestFields::nearest_key(k, {"name", "doc"});
          std::string unknown =
              "unknown key '" + k + "' " + (close.empty() ? "(name, doc)" : "(did you mean '" + close + "'?)");
          errors.push_back({&j, k, where + (k == "name" || k == "doc" ? "'" + k + "' must be a string" : unknown)});
          ok = false;
        }
      }
      if (!ok) continue;
      if (!j.contains("name")) {
        errors.push_back({&j, "", where + "missing 'name'"});
        continue;
      }
      h.name = j["name"].get<std::string>();
      if (j.contains("doc")) h.doc = j["doc"].get<std::string>();
    } else {
      errors.push_back({&j, "", where + "expected a hook name or a {\"name\", \"doc\"} object"});
      continue;
    }
    if (!is_identifier(h.name)) {
      errors.push_back({&j, "", where + "hook name '" + h.name + "' is not a C identifier"});
      continue;
    }
    bool dup = false;
    for (const auto &o : f.hooks) dup = dup || o.name == h.name;
    if (dup) {
      errors.push_back({&j, "", where + "hook '" + h.name + "' is declared twice"});
      continue;
    }
    if (!f.template_text.empty() && !template_uses(f.template_text, "code_" + h.name)) {
      errors.push_back(
          {&j, "", where + "hook '" + h.name + "' is declared but the template never writes {{code_" + h.name + "}}"});
      continue;
    }
    f.hooks.push_back(std::move(h));
  }
}

std::vector<PlanCode> check_code_blocks(const std::vector<ast::CodeBlock> &blocks, const FamilyManifest &f,
                                        Diagnostics &diags) {
  std::vector<PlanCode> out;
  std::vector<std::string> names;
  for (const auto &h : f.hooks) names.push_back(h.name);
  for (const auto &b : blocks) {
    bool known = false;
    for (const auto &h : f.hooks) known = known || h.name == b.hook.text;
    if (known) {
      out.push_back(PlanCode{b.hook.text, b.text, b.text_range, b.range});
      continue;
    }
    std::vector<std::string> hints;
    if (names.empty()) {
      hints.push_back(fmt::format("family '{}' declares no hooks (family.json \"hooks\")", f.name));
    } else {
      std::string close = did_you_mean(b.hook.text, names);
      if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
      hints.push_back(fmt::format("'{}' has hooks: {}", f.name, fmt::join(names, ", ")));
    }
    diags.error(b.hook.range, fmt::format("unknown code hook '{}' for family '{}'", b.hook.text, f.name), hints);
  }
  return out;
}

std::vector<TemplateKey> code_template_keys(const PlanPoint &p, const FamilyManifest &f, const SourceManager &sm) {
  std::vector<TemplateKey> keys;
  for (const auto &h : f.hooks) {
    std::string text;
    for (const auto &c : p.code) {
      if (c.hook != h.name) continue;
      const SourceRange &r = c.text_range;
      if (r.valid() && r.file < sm.size()) {
        text += fmt::format("#line {} {}\n", r.line, c_string_literal(sm.file(r.file).path));
        text += std::string(r.col > 0 ? r.col - 1 : 0, ' ');
      }
      text += c.text;
      if (text.empty() || text.back() != '\n') text += '\n';
    }
    keys.push_back(TemplateKey{"has_code_" + h.name, true, !text.empty(), {}});
    keys.push_back(TemplateKey{"code_" + h.name, false, false, text});
  }
  return keys;
}

std::string code_identity(const PlanPoint &p) {
  std::string id;
  for (const auto &c : p.code)
    id += fmt::format("{}@{}:{}:{}:{}\n{}\n", c.hook, c.text_range.file, c.text_range.line, c.text_range.col,
                      c.text.size(), c.text);
  return id;
}

const PlanCode *code_block_at(const PlanPoint &p, const SourceRange &loc) {
  for (const auto &c : p.code)
    if (contains(c.text_range, loc)) return &c;
  return nullptr;
}

}  // namespace bpfbench
