// Params are checked in the order their meaning builds up: what the param is (type, dest,
// name), which keys fit that, where its values may lie (min, max, c_type), then its default.
#include "compiler/family/manifest_params.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "compiler/bdsl/names.hpp"
#include "compiler/bdsl/resolve_value.hpp"
#include "compiler/family/address.hpp"
#include "compiler/family/builtins.hpp"
#include "compiler/family/enum_choices.hpp"
#include "compiler/family/units.hpp"

namespace bpfbench {
namespace {

using json = nlohmann::json;
using Names = ManifestFields::Names;

const Names kParamTypes = {"int", "size", "duration", "bool", "enum", "cpuset", "address"};  // ParamType order
const Names kParamDests = {"rodata", "map_size", "map_extra", "template", "runtime"};        // ParamDest order

struct CType {
  const char *name;
  int64_t min, max;
};
// __u64 stops at INT64_MAX: values are held as int64 everywhere.
constexpr CType kCTypes[] = {
    {"__u8", 0, 255},    {"__u16", 0, 65535},      {"__u32", 0, 4294967295},        {"__u64", 0, INT64_MAX},
    {"__s8", -128, 127}, {"__s16", -32768, 32767}, {"__s32", INT32_MIN, INT32_MAX}, {"__s64", INT64_MIN, INT64_MAX},
};

bool names_contain(const Names &v, const std::string &s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// One param object; each step reports its problems and says whether the next can run.
class ParamReader {
 public:
  ParamReader(ManifestFields &mf, const json &j, const std::string &where, ParamSpec &p)
      : mf_(mf),
        j_(j),
        where_(where),
        p_(p) {}

  bool read() {
    if (!read_kind() || !keys_fit_kind() || !dest_fits_type() || !read_bounds()) return false;
    read_choice_docs(mf_, j_, where_, p_);
    return read_default();
  }

 private:
  bool numeric() const {
    return p_.type == ParamType::Int || p_.type == ParamType::Size || p_.type == ParamType::Duration;
  }
  bool of_map() const { return p_.dest == ParamDest::MapSize || p_.dest == ParamDest::MapExtra; }
  void error(SourceRange r, const std::string &msg) { mf_.error(r, where_, msg); }

  // The keys, the plain fields, and what the param is: its type, dest and name.
  bool read_kind() {
    if (!mf_.keys(j_, where_,
                  {"name", "type", "dest", "default", "min", "max", "choices", "c_type", "map", "power_of_two",
                   "sweepable", "c_assert", "presets", "choice_docs", "doc"},
                  {"name", "type", "dest"}))
      return false;
    std::string type, dest;
    const std::string &w = where_;
    bool good = mf_.get_string(j_, "name", w, p_.name) && mf_.get_enum(j_, "type", w, "type", kParamTypes, type) &&
                mf_.get_enum(j_, "dest", w, "dest", kParamDests, dest) &&
                mf_.get_bool(j_, "power_of_two", w, p_.power_of_two) &&
                mf_.get_bool(j_, "sweepable", w, p_.sweepable) && mf_.get_string(j_, "doc", w, p_.doc) &&
                mf_.get_string(j_, "map", w, p_.map) && mf_.get_string(j_, "c_assert", w, p_.c_assert) &&
                mf_.get_string_list(j_, "choices", w, p_.choices);
    if (!good) return false;
    p_.type = static_cast<ParamType>(std::find(kParamTypes.begin(), kParamTypes.end(), type) - kParamTypes.begin());
    p_.dest = static_cast<ParamDest>(std::find(kParamDests.begin(), kParamDests.end(), dest) - kParamDests.begin());
    return name_is_free(mf_.at(j_["name"]));
  }

  bool name_is_free(SourceRange r) {
    const std::string &name = p_.name;
    if (!is_identifier(name)) {
      error(r, "bad param name '" + name + "' (it becomes a C identifier)");
      return false;
    }
    if (names_contain(builtin_names(), name) || name == "family") {
      error(r, "param name '" + name + "' is reserved (a builtin setting)");
      return false;
    }
    if (name.rfind("bb_", 0) == 0) {
      error(r, "param names starting with 'bb_' are reserved for bpfbench globals");
      return false;
    }
    return true;
  }

  // Keys that only make sense for some types/dests: misplaced ones are mistakes.
  bool keys_fit_kind() {
    bool good = true;
    auto only = [&](const char *key, bool allowed, const char *what) {
      if (j_.contains(key) && !allowed) {
        error(mf_.at_key(j_, key), std::string("'") + key + "' applies only to " + what);
        good = false;
      }
    };
    only("min", numeric(), "int, size and duration params");
    only("max", numeric(), "int, size and duration params");
    only("power_of_two", numeric(), "int, size and duration params");
    only("choices", p_.type == ParamType::Enum, "enum params");
    only("c_type", p_.dest == ParamDest::Rodata, "rodata params");
    only("map", of_map(), "map_size and map_extra params");
    only("c_assert", p_.dest == ParamDest::Template, "template params");
    return good;
  }

  // A rodata param becomes a C integer; a map param sets a size or map_extra of a named map.
  bool dest_fits_type() {
    if (p_.dest == ParamDest::Rodata && !numeric() && p_.type != ParamType::Bool) {
      error(mf_.at(j_["dest"]), "a rodata param must be int, size, duration or bool (it becomes a C integer)");
      return false;
    }
    if (!of_map()) return true;
    const bool size = p_.dest == ParamDest::MapSize;
    if (size ? p_.type != ParamType::Int && p_.type != ParamType::Size : p_.type != ParamType::Int) {
      error(mf_.at(j_["type"]), size ? "a map_size param must be int or size" : "a map_extra param must be int");
      return false;
    }
    if (!is_identifier(p_.map)) {
      error(p_.map.empty() ? mf_.at(j_) : mf_.at(j_["map"]),
            p_.map.empty() ? std::string("missing required key 'map' (the map whose ") + (size ? "size" : "map_extra") +
                                 " it sets)"
                           : "bad map name '" + p_.map + "'");
      return false;
    }
    return true;
  }

  // min and max as written (a bool is 0..1), narrowed by a rodata param's C type.
  bool read_bounds() {
    if (numeric()) {
      if (j_.contains("min") && !mf_.read_number(j_["min"], p_.type, where_, "min", p_.min)) return false;
      if (j_.contains("max") && !mf_.read_number(j_["max"], p_.type, where_, "max", p_.max)) return false;
    } else if (p_.type == ParamType::Bool) {
      p_.min = 0;
      p_.max = 1;
    }
    if (p_.dest == ParamDest::Rodata && !apply_c_type()) return false;
    if (p_.min > p_.max) {
      error(mf_.at(j_.contains("min") ? j_["min"] : j_),
            "min " + format_quantity(p_.min, p_.type) + " is greater than max " + format_quantity(p_.max, p_.type));
      return false;
    }
    return true;
  }

  // The C type bounds the value: an explicit min/max outside it is an error, an absent
  // one is clamped to it, so the checker rejects values the runtime would truncate.
  bool apply_c_type() {
    if (j_.contains("c_type") && !mf_.get_string(j_, "c_type", where_, p_.c_type)) return false;
    const CType *ct = nullptr;
    Names names;
    for (const CType &c : kCTypes) {
      names.push_back(c.name);
      if (p_.c_type == c.name) ct = &c;
    }
    if (!ct) {
      error(mf_.at(j_["c_type"]), "unknown c_type '" + p_.c_type + "' (expected " + join_names(names) + ")");
      return false;
    }
    if (!j_.contains("min")) p_.min = std::max(p_.min, ct->min);
    if (!j_.contains("max")) p_.max = std::min(p_.max, ct->max);
    if (p_.min < ct->min || p_.max > ct->max) {
      const std::string range = "[" + format_quantity(p_.min, p_.type) + ", " + format_quantity(p_.max, p_.type) + "]";
      error(mf_.at(j_.contains("c_type") ? j_["c_type"] : j_), range + " does not fit c_type " + p_.c_type);
      return false;
    }
    return true;
  }

  // Numbers, enums and addresses must say their default; a bool's is false, a CPU set's "".
  bool read_default() {
    if ((numeric() || p_.type == ParamType::Enum || p_.type == ParamType::Address) && !j_.contains("default")) {
      error(mf_.at(j_), "missing required key 'default'");
      return false;
    }
    if (numeric()) return numeric_default();
    switch (p_.type) {
    case ParamType::Bool: {
      bool b = false;
      if (!mf_.get_bool(j_, "default", where_, b)) return false;
      p_.default_value = ParamValue{true, b ? 1 : 0, {}};
      return true;
    }
    case ParamType::Enum: return enum_default();
    case ParamType::Cpuset:
    case ParamType::Address: return text_default();
    default: return true;
    }
  }

  // Within [min, max], and a power of two when the param asks for one.
  bool numeric_default() {
    int64_t v = 0;
    if (!mf_.read_number(j_["default"], p_.type, where_, "default", v)) return false;
    p_.default_value = ParamValue{true, v, {}};
    if (v < p_.min || v > p_.max) {
      error(mf_.at(j_["default"]), "default " + bound_violation(v, p_.min, p_.max, p_.type));
      return false;
    }
    if (p_.power_of_two && (v <= 0 || (v & (v - 1)) != 0)) {
      error(mf_.at(j_["default"]), "default " + format_quantity(v, p_.type) + " is not a power of two");
      return false;
    }
    return true;
  }

  // The choices are names, each once; the default is one of them.
  bool enum_default() {
    if (p_.choices.empty()) {
      error(j_.contains("choices") ? mf_.at(j_["choices"]) : mf_.at(j_),
            "an enum param needs a non-empty 'choices' list");
      return false;
    }
    std::set<std::string> seen;
    for (const auto &c : p_.choices) {
      if (!is_name(c)) error(mf_.at(j_["choices"]), "bad choice '" + c + "' (letters, digits, '_', '-')");
      if (!seen.insert(c).second) error(mf_.at(j_["choices"]), "duplicate choice '" + c + "'");
    }
    std::string s;
    if (!mf_.get_string(j_, "default", where_, s)) return false;
    if (!names_contain(p_.choices, s)) {
      error(mf_.at(j_["default"]),
            "default '" + s + "' is not one of its choices (" + join_names(p_.choices, ", ") + ")");
      return false;
    }
    p_.default_value = ParamValue{false, 0, s};
    return mf_.ok();
  }

  // A CPU set ("" = none) or an address, as the .bdsl would write it.
  bool text_default() {
    std::string s;
    if (!mf_.get_string(j_, "default", where_, s)) return false;
    if (p_.type == ParamType::Cpuset && !s.empty())
      if (auto ok = check_cpuset(s); !ok) {
        error(mf_.at(j_["default"]), "bad default CPU set '" + s + "': " + ok.error().message);
        return false;
      }
    if (p_.type == ParamType::Address)
      if (auto a = parse_address(s); !a) {
        error(mf_.at(j_["default"]), "bad default: " + a.error().message);
        return false;
      }
    p_.default_value = ParamValue{false, 0, s};
    return true;
  }

  ManifestFields &mf_;
  const json &j_;
  const std::string &where_;
  ParamSpec &p_;
};

}  // namespace

bool read_param(ManifestFields &mf, const json &j, const std::string &where, ParamSpec &p) {
  return ParamReader(mf, j, where, p).read();
}

}  // namespace bpfbench
