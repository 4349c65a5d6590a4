#include "compiler/family/enum_choices.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "compiler/family/address.hpp"
#include "compiler/bdsl/resolve_value.hpp"
#include "compiler/family/units.hpp"

namespace bpfbench {
namespace {

using json = nlohmann::json;

// `v` as a value of `spec`, checked as a default is; nullopt when read_number reported
// its problem already.
Result<std::optional<ParamValue>> preset_value(ManifestFields &mf, const json &v, const ParamSpec &spec,
                                               const std::string &where) {
  if (is_numeric(spec.type)) {
    int64_t x = 0;
    if (!mf.read_number(v, spec.type, where, spec.name, x)) return std::optional<ParamValue>();  // reported there
    if (std::string why = bound_violation(x, spec.min, spec.max, spec.type); !why.empty()) return Error(why);
    if (spec.power_of_two && (x <= 0 || (x & (x - 1)) != 0))
      return Error(format_quantity(x, spec.type) + " is not a power of two");
    return std::optional(ParamValue{true, x, {}});
  }
  if (spec.type == ParamType::Bool) {
    if (!v.is_boolean()) return Error("'" + spec.name + "' is a bool: write true or false");
    return std::optional(ParamValue{true, v.get<bool>() ? 1 : 0, {}});
  }
  if (!v.is_string()) return Error("'" + spec.name + "' takes a string");
  const std::string s = v.get<std::string>();
  if (spec.type == ParamType::Enum && std::find(spec.choices.begin(), spec.choices.end(), s) == spec.choices.end())
    return Error("'" + s + "' is not one of " + spec.name + "'s choices (" + join_names(spec.choices, ", ") + ")");
  if (spec.type == ParamType::Cpuset && !s.empty())
    if (auto ok = check_cpuset(s); !ok) return ok.error();
  if (spec.type == ParamType::Address)
    if (auto a = parse_address(s); !a) return a.error();
  return std::optional(ParamValue{false, 0, s});
}

std::vector<std::string> param_names(const FamilyManifest &f) {
  std::vector<std::string> out;
  for (const auto &p : f.params) out.push_back(p.name);
  return out;
}

// One choice's object: { "param": value, ... }.
void read_choice(ManifestFields &mf, const json &obj, const std::string &where, const ParamSpec &owner,
                 const FamilyManifest &f, const std::set<std::string> &owners,
                 std::vector<std::pair<std::string, ParamValue>> &out) {
  if (!obj.is_object()) {
    mf.error(mf.at(obj), where, std::string("a preset must be an object of param values, got ") + obj.type_name());
    return;
  }
  for (const auto &item : obj.items()) {
    const ParamSpec *target = f.param(item.key());
    if (!target || target->name == owner.name || owners.count(target->name)) {
      std::string close = target ? "" : did_you_mean(item.key(), param_names(f));
      mf.error(mf.at_key(obj, item.key()), where,
               target ? "'" + item.key() + "' cannot be preset (a param with presets of its own)"
                      : "unknown param '" + item.key() + "'",
               close.empty() ? std::vector<std::string>{} : std::vector<std::string>{"did you mean '" + close + "'?"});
      continue;
    }
    auto value = preset_value(mf, item.value(), *target, where);
    if (!value) mf.error(mf.at(item.value()), where, "'" + item.key() + "': " + value.error().message);
    else if (*value) out.emplace_back(item.key(), **value);
  }
}

// `p[key]` when it is an object of a per-choice table of enum param `spec`; nullptr (and an
// error) when it is not.
const json *choice_table(ManifestFields &mf, const json &p, const char *key, const std::string &where,
                         const ParamSpec &spec, const char *shape) {
  const json &table = p[key];
  if (spec.type != ParamType::Enum) {
    mf.error(mf.at_key(p, key), where, std::string("'") + key + "' applies only to enum params");
    return nullptr;
  }
  if (!table.is_object()) {
    mf.wrong_type(where, key, shape, table);
    return nullptr;
  }
  return &table;
}

// Whether `choice`, a key of `table`, is a choice of `spec` (else an error saying what for).
bool known_choice(ManifestFields &mf, const json &table, const std::string &choice, const std::string &where,
                  const ParamSpec &spec, const char *what) {
  if (std::find(spec.choices.begin(), spec.choices.end(), choice) != spec.choices.end()) return true;
  std::string close = did_you_mean(choice, spec.choices);
  mf.error(mf.at_key(table, choice), where, std::string(what) + " for unknown choice '" + choice + "'",
           close.empty() ? std::vector<std::string>{} : std::vector<std::string>{"did you mean '" + close + "'?"});
  return false;
}

void read_presets(ManifestFields &mf, const json &p, const std::string &where, ParamSpec &spec, const FamilyManifest &f,
                  const std::set<std::string> &owners) {
  const json *presets = choice_table(mf, p, "presets", where, spec, "an object of choices");
  if (!presets) return;
  for (const auto &item : presets->items()) {
    if (!known_choice(mf, *presets, item.key(), where, spec, "preset")) continue;
    std::vector<std::pair<std::string, ParamValue>> values;
    read_choice(mf, item.value(), where + ": preset '" + item.key() + "'", spec, f, owners, values);
    spec.presets[item.key()] = std::move(values);
  }
}

}  // namespace

void read_param_presets(ManifestFields &mf, const json &params, FamilyManifest &f) {
  if (!params.is_array()) return;  // reported with the params
  // The owners first: a preset may not set a param that has presets of its own.
  std::set<std::string> owners;
  for (const auto &p : params)
    if (p.is_object() && p.contains("presets") && p.contains("name") && p["name"].is_string())
      owners.insert(p["name"].get<std::string>());
  for (const auto &p : params) {
    if (!p.is_object() || !p.contains("presets") || !p.contains("name") || !p["name"].is_string()) continue;
    auto spec = std::find_if(f.params.begin(), f.params.end(),
                             [&](const ParamSpec &s) { return s.name == p["name"].get<std::string>(); });
    if (spec == f.params.end()) continue;  // the param itself was in error
    read_presets(mf, p, "param '" + spec->name + "'", *spec, f, owners);
  }
}

void read_choice_docs(ManifestFields &mf, const json &p, const std::string &where, ParamSpec &spec) {
  if (!p.contains("choice_docs")) return;
  const json *docs = choice_table(mf, p, "choice_docs", where, spec, "an object of strings");
  if (!docs) return;
  for (const auto &item : docs->items()) {
    if (!known_choice(mf, *docs, item.key(), where, spec, "doc")) continue;
    if (!item.value().is_string())
      mf.error(mf.at(item.value()), where, "the doc of choice '" + item.key() + "' must be a string");
    else spec.choice_docs[item.key()] = item.value().get<std::string>();
  }
}

const std::vector<std::pair<std::string, ParamValue>> *preset_of(const ParamSpec &spec, const std::string &choice) {
  auto it = spec.presets.find(choice);
  return it == spec.presets.end() ? nullptr : &it->second;
}

}  // namespace bpfbench
