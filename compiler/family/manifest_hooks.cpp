// A hook is data of the manifest: a C identifier the template writes as {{code_<name>}}
// (compiler/bpf/code_hooks.cpp turns a bench's blocks into those keys).
#include "compiler/family/manifest_hooks.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "compiler/bdsl/names.hpp"
#include "compiler/family/manifest_fields.hpp"

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

}  // namespace bpfbench
