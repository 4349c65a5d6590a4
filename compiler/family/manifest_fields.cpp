#include "compiler/family/manifest_fields.hpp"

#include <algorithm>

#include "compiler/bdsl/names.hpp"
#include "compiler/family/setup_spec.hpp"
#include "compiler/family/units.hpp"

namespace bpfbench {

std::string join_names(const std::vector<std::string> &v, const char *last) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += (i + 1 == v.size()) ? last : ", ";
    out += v[i];
  }
  return out;
}

void ManifestFields::error(SourceRange r, const std::string &where, const std::string &msg,
                           std::vector<std::string> hints) {
  // Located: the renderer prints the path. Not (no such node): the message names it.
  std::string text = (where.empty() ? "" : where + ": ") + msg;
  diags_.error(r, r.valid() ? text : path_ + ": " + text, std::move(hints));
  ok_ = false;
}

// A key typo rarely hits the first letter: among close keys, one that starts like the
// typo wins ("ctype" is one edit from both "type" and "c_type").
std::string ManifestFields::nearest_key(const std::string &key, const Names &allowed) {
  Names same_start;
  for (const auto &a : allowed)
    if (!key.empty() && !a.empty() && a[0] == key[0]) same_start.push_back(a);
  std::string close = did_you_mean(key, same_start);
  return close.empty() ? did_you_mean(key, allowed) : close;
}

bool ManifestFields::keys(const json &obj, const std::string &where, const Names &allowed, const Names &required) {
  bool good = true;
  for (const auto &item : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
    std::string close = nearest_key(item.key(), allowed);
    error(at_key(obj, item.key()), where, "unknown key '" + item.key() + "'",
          {close.empty() ? "allowed keys: " + join_names(allowed, ", ") : "did you mean '" + close + "'?"});
    good = false;
  }
  for (const auto &k : required) {
    if (obj.contains(k)) continue;
    error(at(obj), where, "missing required key '" + k + "'");
    good = false;
  }
  return good;
}

void ManifestFields::wrong_type(const std::string &where, const std::string &key, const char *expected, const json &v) {
  error(at(v), where, "'" + key + "' must be " + expected + ", got " + v.type_name());
}

bool ManifestFields::get_string(const json &obj, const std::string &key, const std::string &where, std::string &out) {
  if (!obj.contains(key)) return true;
  const json &v = obj[key];
  if (!v.is_string()) {
    wrong_type(where, key, "a string", v);
    return false;
  }
  out = v.get<std::string>();
  return true;
}

bool ManifestFields::get_bool(const json &obj, const std::string &key, const std::string &where, bool &out) {
  if (!obj.contains(key)) return true;
  const json &v = obj[key];
  if (!v.is_boolean()) {
    wrong_type(where, key, "true or false", v);
    return false;
  }
  out = v.get<bool>();
  return true;
}

bool ManifestFields::get_string_list(const json &obj, const std::string &key, const std::string &where, Names &out) {
  if (!obj.contains(key)) return true;
  const json &v = obj[key];
  bool good = v.is_array();
  if (good)
    for (const auto &e : v) good = good && e.is_string();
  if (!good) {
    wrong_type(where, key, "an array of strings", v);
    return false;
  }
  for (const auto &e : v) out.push_back(e.get<std::string>());
  return true;
}

bool ManifestFields::get_enum(const json &obj, const std::string &key, const std::string &where,
                              const std::string &noun, const Names &choices, std::string &out) {
  std::string s;
  if (!obj.contains(key)) return true;
  if (!get_string(obj, key, where, s)) return false;
  if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
    std::string close = did_you_mean(s, choices);
    std::vector<std::string> hints;
    if (!close.empty()) hints.push_back("did you mean '" + close + "'?");
    error(at(obj[key]), where, "unknown " + noun + " '" + s + "' (expected " + join_names(choices) + ")", hints);
    return false;
  }
  out = s;
  return true;
}

bool ManifestFields::read_number(const json &v, ParamType type, const std::string &where, const std::string &key,
                                 int64_t &out) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      error(at(v), where, "'" + key + "' is too large");
      return false;
    }
    out = v.get<int64_t>();
    return true;
  }
  if (v.is_string()) {
    auto x = parse_quantity(v.get<std::string>(), type);
    if (!x) {
      error(at(v), where, "bad '" + key + "': " + x.error().message);
      return false;
    }
    out = *x;
    return true;
  }
  wrong_type(where, key, v.is_number_float() ? "an integer" : "a number or a string like \"512K\"", v);
  return false;
}

SourceRange ManifestFields::inside(const json &v, size_t skip, size_t len) const {
  SourceRange r = at(v);
  const size_t size = v.is_string() ? v.get<std::string>().size() : 0;
  if (!r.valid() || r.line != r.end_line || r.end_col + 1 != r.col + size + 2 || len == 0 || skip + len > size)
    return r;
  r.col += static_cast<uint32_t>(1 + skip);
  r.end_col = r.col + static_cast<uint32_t>(len) - 1;
  return r;
}

void ManifestFields::add_ref(FamilyManifest &f, ObjectRef::Kind kind, const json &v, size_t skip,
                             const std::string &where, const std::string &program, const std::string &metric) const {
  if (!v.is_string()) return;
  const std::string s = v.get<std::string>();
  skip = std::min(skip, s.size());
  SourceRange r = inside(v, skip, s.size() - skip);
  r.file = 0;  // the manifest's id once a ref is reported (ObjectRefChecker)
  f.object_refs.push_back(ObjectRef{kind, s.substr(skip), where, program, metric, r});
}

void ManifestFields::add_source_ref(FamilyManifest &f, const MetricSource &src, const json &v, const std::string &where,
                                    const std::string &program, const std::string &metric) const {
  if (src.kind != MetricSourceKind::Counter) return;
  add_ref(f, ObjectRef::Kind::Counter, v, std::string(kind_name(src.kind)).size() + 1, where, program, metric);
}

void ManifestFields::add_setup_refs(const json &obj, const std::string &where, const std::string &program,
                                    FamilyManifest &f) const {
  if (!obj.contains("setup") || !obj["setup"].is_array()) return;
  const json &arr = obj["setup"];
  for (size_t i = 0; i < arr.size(); ++i) {
    const json &e = arr[i];
    if (!e.is_object() || !e.contains("action") || !e["action"].is_string()) continue;
    auto kind = parse_kind<SetupActionKind>(e["action"].get<std::string>());
    if (!kind) continue;
    std::string at_action =
        (where.empty() ? "" : where + ": ") + "setup[" + std::to_string(i) + "] (" + kind_name(*kind) + ")";
    for (const auto &item : e.items())
      if (is_map_argument(*kind, item.key())) add_ref(f, ObjectRef::Kind::Map, item.value(), 0, at_action, program);
  }
}

bool template_defines_function(const std::string &text, const std::string &name) {
  for (size_t pos = text.find(name); pos != std::string::npos; pos = text.find(name, pos + 1)) {
    if (pos > 0 && is_c_ident_char(text[pos - 1])) continue;
    size_t end = pos + name.size();
    if (end < text.size() && is_c_ident_char(text[end])) continue;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t' || text[end] == '\n')) ++end;
    if (end < text.size() && text[end] == '(') return true;
  }
  return false;
}

}  // namespace bpfbench
