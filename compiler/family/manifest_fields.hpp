// Checked access to the fields of one family.json: each problem becomes a diagnostic at the
// key or value it is about (`family.json:12:5: error: param 'x': unknown key 'ctype'`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/json_locations.hpp"
#include "compiler/family/kinds.hpp"
#include "compiler/family/manifest.hpp"

namespace bpfbench {

// True when `name(` stands in a template's text as a whole word: a C function it defines
// (a program's `function`, a setup action's `program`).
bool template_defines_function(const std::string &text, const std::string &name);

class ManifestFields {
 public:
  using json = nlohmann::json;
  using Names = std::vector<std::string>;

  // `file` is the id the manifest's text will have in the SourceManager diagnostics are
  // rendered with.
  ManifestFields(std::string path, uint32_t file, Diagnostics &diags)
      : path_(std::move(path)),
        file_(file),
        diags_(diags) {}

  // Ties the nodes of `root` (parsed from `text`) to their places in `text`.
  void locate(const std::string &text, const json &root) { where_ = JsonLocations::build(text, root, file_); }
  uint32_t file() const { return file_; }
  const std::string &path() const { return path_; }
  bool ok() const { return ok_; }

  SourceRange at(const json &v) const { return where_.value(v); }
  SourceRange at_key(const json &obj, const std::string &key) const { return where_.key(obj, key); }

  // `where` names the entry ("param 'batch'"; "" for the top level) and leads the message.
  void error(SourceRange r, const std::string &where, const std::string &msg, std::vector<std::string> hints = {});

  // `obj` holds every key of `required` and nothing outside `allowed` (a typo gets the
  // nearest allowed key as a hint).
  bool keys(const json &obj, const std::string &where, const Names &allowed, const Names &required);
  static std::string nearest_key(const std::string &key, const Names &allowed);
  void wrong_type(const std::string &where, const std::string &key, const char *expected, const json &v);
  bool get_string(const json &obj, const std::string &key, const std::string &where, std::string &out);
  bool get_bool(const json &obj, const std::string &key, const std::string &where, bool &out);
  bool get_string_list(const json &obj, const std::string &key, const std::string &where, Names &out);
  // A string that must be one of `choices` ("unknown dest 'rodta' (expected ...)").
  bool get_enum(const json &obj, const std::string &key, const std::string &where, const std::string &noun,
                const Names &choices, std::string &out);
  // A kind (compiler/family/kinds.hpp) named by its table.
  template <typename Kind>
  bool get_kind(const json &obj, const std::string &key, const std::string &where, const std::string &noun, Kind &out) {
    std::string s;
    if (!obj.contains(key)) return true;
    if (!get_enum(obj, key, where, noun, kind_names<Kind>(), s)) return false;
    out = *parse_kind<Kind>(s);
    return true;
  }
  // Bytes [skip, skip+len) of string `v` (a name inside "counter:<var>"), when its token is
  // the plain string on one line (no escapes); the whole token otherwise.
  SourceRange inside(const json &v, size_t skip, size_t len) const;

  // Object refs (compiler/bpf/object_check.hpp): where the manifest names a global or a map of
  // the BPF object, to check once it is compiled. add_ref: the string `v` from byte `skip`.
  void add_ref(FamilyManifest &f, ObjectRef::Kind kind, const json &v, size_t skip, const std::string &where,
               const std::string &program = "", const std::string &metric = "") const;
  // The counter of a `counter:<var>` source at `v` (other sources name nothing in the object).
  void add_source_ref(FamilyManifest &f, const MetricSource &src, const json &v, const std::string &where,
                      const std::string &program, const std::string &metric) const;
  // The maps the `setup` actions of `obj` (the family's, or program `program`'s) name.
  void add_setup_refs(const json &obj, const std::string &where, const std::string &program, FamilyManifest &f) const;

  // A bound or default of a numeric param: a JSON integer or a string with a unit.
  bool read_number(const json &v, ParamType type, const std::string &where, const std::string &key, int64_t &out);

  // Calls fn(element, where) for each object of array `obj[key]`; `where` is "param 'x'"
  // for an element named x of "params", else "params[3]".
  template <typename Fn>
  void read_array(const json &obj, const std::string &key, const std::string &where, Fn &&fn) {
    if (!obj.contains(key)) return;
    const json &arr = obj[key];
    if (!arr.is_array()) {
      wrong_type(where, key, "an array", arr);
      return;
    }
    for (size_t i = 0; i < arr.size(); ++i) {
      const json &e = arr[i];
      std::string fallback = key + "[" + std::to_string(i) + "]";
      if (!e.is_object()) {
        error(at(e), "", fallback + " must be an object, got " + e.type_name());
        continue;
      }
      std::string where_e = fallback;
      if (e.contains("name") && e["name"].is_string()) {
        // "params" -> "param 'batch'": messages name the entry the way people think of it.
        where_e = key.substr(0, key.size() - 1) + " '" + e["name"].get<std::string>() + "'";
      }
      fn(e, where_e);
    }
  }

 private:
  std::string path_;
  uint32_t file_;
  Diagnostics &diags_;
  JsonLocations where_;
  bool ok_ = true;
};

std::string join_names(const std::vector<std::string> &v, const char *last = " or ");

}  // namespace bpfbench
