// family.json -> FamilyManifest. Strict on purpose: an unknown key is an error, because a
// typo ("defualt") silently ignored would change what a benchmark measures.
#include "compiler/manifest_json.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "compiler/builtins.hpp"
#include "compiler/code_hooks.hpp"
#include "compiler/constraints.hpp"
#include "compiler/input_file.hpp"
#include "compiler/resolve_value.hpp"
#include "compiler/setup_spec.hpp"
#include "compiler/units.hpp"

namespace bpfbench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Names = std::vector<std::string>;

const Names kTypes = {"int", "size", "duration", "bool", "enum", "cpuset"};
const Names kDests = {"rodata", "map_size", "template", "runtime"};
const Names kAttach = {"auto", "uprobe", "uretprobe", "test_run", "none"};
const Names kProducers = {"syscall", "test_run", "uprobe_nop", "uprobe_push", "uprobe_ret", "none"};
const Names kConsumers = {"none", "ringbuf", "perfbuf"};
const Names kFeatureKinds = {"prog_type", "attach", "helper", "kfunc"};

struct CType {
  const char *name;
  int64_t min, max;
};
// __u64 stops at INT64_MAX: values are held as int64 everywhere.
constexpr CType kCTypes[] = {
    {"__u8", 0, 255},          {"__u16", 0, 65535},
    {"__u32", 0, 4294967295},  {"__u64", 0, INT64_MAX},
    {"__s8", -128, 127},       {"__s16", -32768, 32767},
    {"__s32", INT32_MIN, INT32_MAX}, {"__s64", INT64_MIN, INT64_MAX},
};

std::string join(const Names &v, const char *last = " or ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += (i + 1 == v.size()) ? last : ", ";
    out += v[i];
  }
  return out;
}

bool contains(const Names &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool is_ident_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
}

// A C identifier: param names become C globals/macros, functions are C functions.
bool is_identifier(const std::string &s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (!is_ident_char(s[i], i == 0)) return false;
  return true;
}

// Names users write in .bdsl (families, programs) may also hold '-' ("uprobe-nop").
bool is_name(const std::string &s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_ident_char(c, false) && c != '-') return false;
  return true;
}

// True when `name(` appears in the template as a whole word: the program's C function.
bool defines_function(const std::string &text, const std::string &name) {
  for (size_t pos = text.find(name); pos != std::string::npos; pos = text.find(name, pos + 1)) {
    if (pos > 0 && is_ident_char(text[pos - 1], false)) continue;
    size_t end = pos + name.size();
    if (end < text.size() && is_ident_char(text[end], false)) continue;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t' || text[end] == '\n')) ++end;
    if (end < text.size() && text[end] == '(') return true;
  }
  return false;
}

class Reader {
 public:
  Reader(std::string path, Diagnostics &diags) : path_(std::move(path)), diags_(diags) {}

  std::optional<FamilyManifest> read(const std::string &text) {
    json root;
    try {
      // Comments are allowed: a manifest is documentation as much as data.
      root = json::parse(text, nullptr, true, true);
    } catch (const json::parse_error &e) {
      bad_json(text, e);
      return std::nullopt;
    }
    FamilyManifest f;
    if (!root.is_object()) {
      error("", std::string("the manifest must be a JSON object, got ") + root.type_name());
      return std::nullopt;
    }
    if (!keys(root, "",
              {"family", "description", "template", "producer", "consumer", "default_program",
               "params", "programs", "metrics", "report", "setup", "per_cpu", "constraints", "hooks"},
              {"family", "description", "template", "programs"}))
      return std::nullopt;
    get_string(root, "family", "", f.name);
    get_string(root, "description", "", f.description);
    std::string tpl;
    get_string(root, "template", "", tpl);
    f.producer = "none";
    f.consumer = "none";
    get_enum(root, "producer", "", "producer", kProducers, f.producer);
    get_enum(root, "consumer", "", "consumer", kConsumers, f.consumer);
    if (!ok_) return std::nullopt;

    fs::path dir = fs::absolute(fs::path(path_)).lexically_normal().parent_path();
    f.dir = dir.string();
    if (!is_name(f.name)) error("", "bad family name '" + f.name + "' (letters, digits, '_', '-')");
    else if (f.name != dir.filename().string())
      error("", "family '" + f.name + "' must be in a folder of the same name, not '" +
                    dir.filename().string() + "'");
    read_template(dir, tpl, f);

    read_array(root, "params", "", [&](const json &j, const std::string &where) {
      ParamSpec p;
      if (read_param(j, where, p)) add_unique(f.params, std::move(p), "param");
    });
    read_setup(root, "", f, f.setup);
    if (root.contains("per_cpu")) {
      std::vector<std::string> errs;
      read_per_cpu(root["per_cpu"], f.per_cpu, errs);
      for (const auto &e : errs) error("", e);
    }
    if (root.contains("hooks")) {  // after read_template: each hook must be used there
      std::vector<std::string> errs;
      read_hooks(root["hooks"], f, errs);
      for (const auto &e : errs) error("", e);
    }
    read_array(root, "metrics", "", [&](const json &j, const std::string &where) {
      MetricSpec m;
      if (read_metric(j, where, m)) add_unique(f.metrics, std::move(m), "metric");
    });
    read_array(root, "programs", "", [&](const json &j, const std::string &where) {
      ProgramSpec p;
      if (read_program(j, where, f, p)) add_unique(f.programs, std::move(p), "program");
    });
    if (root.contains("programs") && root["programs"].is_array() && root["programs"].empty())
      error("", "'programs' must list at least one program");
    check_metrics(f);
    check_family_refs(root, f);
    read_array(root, "constraints", "", [&](const json &j, const std::string &where) {
      ConstraintSpec c;
      if (!keys(j, where, {"when", "require", "message"}, {"require", "message"})) return;
      if (!get_string(j, "when", where, c.when) || !get_string(j, "require", where, c.require) ||
          !get_string(j, "message", where, c.message))
        return;
      std::string why;  // the names exist and the literals fit (params and programs are read)
      if (!parse_condition(c.when, f, why) || !parse_condition(c.require, f, why)) error(where, why);
      else f.constraints.push_back(std::move(c));
    });
    if (!ok_) return std::nullopt;
    return f;
  }

 private:
  void error(const std::string &where, const std::string &msg, std::vector<std::string> hints = {}) {
    diags_.error(SourceRange{}, path_ + ": " + (where.empty() ? "" : where + ": ") + msg,
                 std::move(hints));
    ok_ = false;
  }

  // `setup` of the family or of one program (compiler/setup_spec.cpp checks each action).
  void read_setup(const json &obj, const std::string &where, const FamilyManifest &f,
                  std::vector<SetupActionSpec> &out) {
    if (!obj.contains("setup")) return;
    std::vector<std::string> errs;
    read_setup_actions(obj["setup"], f, out, errs);
    for (const auto &e : errs) error(where, e);
  }

  void bad_json(const std::string &text, const json::parse_error &e) {
    // e.byte is the 1-based index of the last byte read: the offending one.
    size_t off = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, text.size());
    size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + off, '\n'));
    size_t nl = text.rfind('\n', off == 0 ? std::string::npos : off - 1);
    size_t col = (off == 0 || nl == std::string::npos) ? off + 1 : off - nl;
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: ".
    size_t cut = what.find("parse error");
    if (cut != std::string::npos) cut = what.find(": ", cut);
    std::string reason = cut == std::string::npos ? what : what.substr(cut + 2);
    error("", "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(col) +
                  ": " + reason);
  }

  // `obj` must be an object holding every key of `required` and nothing outside `allowed`.
  bool keys(const json &obj, const std::string &where, const Names &allowed, const Names &required) {
    bool good = true;
    for (const auto &item : obj.items()) {
      if (contains(allowed, item.key())) continue;
      std::string close = did_you_mean(item.key(), allowed);
      error(where, "unknown key '" + item.key() + "'",
            {close.empty() ? "allowed keys: " + join(allowed, ", ") : "did you mean '" + close + "'?"});
      good = false;
    }
    for (const auto &k : required) {
      if (obj.contains(k)) continue;
      error(where, "missing required key '" + k + "'");
      good = false;
    }
    return good;
  }

  void wrong_type(const std::string &where, const std::string &key, const char *expected,
                  const json &v) {
    error(where, "'" + key + "' must be " + expected + ", got " + v.type_name());
  }

  bool get_string(const json &obj, const std::string &key, const std::string &where, std::string &out) {
    if (!obj.contains(key)) return true;
    const json &v = obj[key];
    if (!v.is_string()) {
      wrong_type(where, key, "a string", v);
      return false;
    }
    out = v.get<std::string>();
    return true;
  }

  bool get_bool(const json &obj, const std::string &key, const std::string &where, bool &out) {
    if (!obj.contains(key)) return true;
    const json &v = obj[key];
    if (!v.is_boolean()) {
      wrong_type(where, key, "true or false", v);
      return false;
    }
    out = v.get<bool>();
    return true;
  }

  bool get_string_list(const json &obj, const std::string &key, const std::string &where, Names &out) {
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

  // A string that must be one of `choices` ("unknown attach 'uprobes' (expected ...)").
  bool get_enum(const json &obj, const std::string &key, const std::string &where,
                const std::string &noun, const Names &choices, std::string &out) {
    std::string s;
    if (!obj.contains(key)) return true;
    if (!get_string(obj, key, where, s)) return false;
    if (!contains(choices, s)) {
      std::string close = did_you_mean(s, choices);
      std::vector<std::string> hints;
      if (!close.empty()) hints.push_back("did you mean '" + close + "'?");
      error(where, "unknown " + noun + " '" + s + "' (expected " + join(choices) + ")", hints);
      return false;
    }
    out = s;
    return true;
  }

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
        error("", fallback + " must be an object, got " + e.type_name());
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

  template <typename T>
  void add_unique(std::vector<T> &v, T x, const char *noun) {
    for (const auto &y : v)
      if (y.name == x.name) {
        error("", std::string("duplicate ") + noun + " '" + x.name + "'");
        return;
      }
    v.push_back(std::move(x));
  }

  void read_template(const fs::path &dir, const std::string &tpl, FamilyManifest &f) {
    if (tpl.empty()) {
      error("", "'template' must name the BPF C template file");
      return;
    }
    fs::path p = (dir / tpl).lexically_normal();
    std::string err;
    auto in = read_input_file(p.string(), kMaxTextInputBytes, err);
    if (!in) {
      error("", "cannot read template '" + p.string() + "': " + err);
      return;
    }
    f.template_path = p.string();
    f.template_text = std::move(in->data);
  }

  // A bound or default of a numeric param: a JSON integer or a string with a unit.
  bool read_number(const json &v, ParamType type, const std::string &where, const std::string &key,
                   int64_t &out) {
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        error(where, "'" + key + "' is too large");
        return false;
      }
      out = v.get<int64_t>();
      return true;
    }
    if (v.is_string()) {
      std::string err;
      auto x = parse_quantity(v.get<std::string>(), type, &err);
      if (!x) {
        error(where, "bad '" + key + "': " + err);
        return false;
      }
      out = *x;
      return true;
    }
    wrong_type(where, key, v.is_number_float() ? "an integer" : "a number or a string like \"512K\"", v);
    return false;
  }

  bool read_param(const json &j, const std::string &where, ParamSpec &p) {
    if (!keys(j, where,
              {"name", "type", "dest", "default", "min", "max", "choices", "c_type", "map",
               "power_of_two", "sweepable", "c_assert", "doc"},
              {"name", "type", "dest"}))
      return false;
    std::string type, dest;
    bool good = get_string(j, "name", where, p.name) && get_enum(j, "type", where, "type", kTypes, type) &&
                get_enum(j, "dest", where, "dest", kDests, dest) &&
                get_bool(j, "power_of_two", where, p.power_of_two) &&
                get_bool(j, "sweepable", where, p.sweepable) && get_string(j, "doc", where, p.doc) &&
                get_string(j, "map", where, p.map) && get_string(j, "c_assert", where, p.c_assert) &&
                get_string_list(j, "choices", where, p.choices);
    if (!good) return false;
    p.type = static_cast<ParamType>(std::find(kTypes.begin(), kTypes.end(), type) - kTypes.begin());
    p.dest = static_cast<ParamDest>(std::find(kDests.begin(), kDests.end(), dest) - kDests.begin());
    if (!check_param_name(p.name, where)) return false;
    const bool numeric = p.type == ParamType::Int || p.type == ParamType::Size ||
                         p.type == ParamType::Duration;

    // Keys that only make sense for some types/dests: misplaced ones are mistakes.
    auto only = [&](const char *key, bool allowed, const char *what) {
      if (j.contains(key) && !allowed) {
        error(where, std::string("'") + key + "' applies only to " + what);
        good = false;
      }
    };
    only("min", numeric, "int, size and duration params");
    only("max", numeric, "int, size and duration params");
    only("power_of_two", numeric, "int, size and duration params");
    only("choices", p.type == ParamType::Enum, "enum params");
    only("c_type", p.dest == ParamDest::Rodata, "rodata params");
    only("map", p.dest == ParamDest::MapSize, "map_size params");
    only("c_assert", p.dest == ParamDest::Template, "template params");
    if (!good) return false;

    if (p.dest == ParamDest::Rodata && !numeric && p.type != ParamType::Bool) {
      error(where, "a rodata param must be int, size, duration or bool (it becomes a C integer)");
      return false;
    }
    if (p.dest == ParamDest::MapSize) {
      if (p.type != ParamType::Int && p.type != ParamType::Size) {
        error(where, "a map_size param must be int or size");
        return false;
      }
      if (!is_identifier(p.map)) {
        error(where, p.map.empty() ? "missing required key 'map' (the map whose size it sets)"
                                   : "bad map name '" + p.map + "'");
        return false;
      }
    }
    if (numeric) {
      if (j.contains("min") && !read_number(j["min"], p.type, where, "min", p.min)) return false;
      if (j.contains("max") && !read_number(j["max"], p.type, where, "max", p.max)) return false;
    } else if (p.type == ParamType::Bool) {
      p.min = 0;
      p.max = 1;
    }
    if (p.dest == ParamDest::Rodata && !apply_c_type(j, where, p)) return false;
    if (p.min > p.max) {
      error(where, "min " + std::to_string(p.min) + " is greater than max " + std::to_string(p.max));
      return false;
    }
    return read_default(j, where, numeric, p);
  }

  bool check_param_name(const std::string &name, const std::string &where) {
    if (!is_identifier(name)) {
      error(where, "bad param name '" + name + "' (it becomes a C identifier)");
      return false;
    }
    if (contains(builtin_names(), name) || name == "family") {
      error(where, "param name '" + name + "' is reserved (a builtin setting)");
      return false;
    }
    if (name.rfind("bb_", 0) == 0) {
      error(where, "param names starting with 'bb_' are reserved for bpfbench globals");
      return false;
    }
    return true;
  }

  // The C type bounds the value: an explicit min/max outside it is an error, an absent
  // one is clamped to it, so the checker rejects values the runtime would truncate.
  bool apply_c_type(const json &j, const std::string &where, ParamSpec &p) {
    if (j.contains("c_type") && !get_string(j, "c_type", where, p.c_type)) return false;
    const CType *ct = nullptr;
    Names names;
    for (const CType &c : kCTypes) {
      names.push_back(c.name);
      if (p.c_type == c.name) ct = &c;
    }
    if (!ct) {
      error(where, "unknown c_type '" + p.c_type + "' (expected " + join(names) + ")");
      return false;
    }
    if (!j.contains("min")) p.min = std::max(p.min, ct->min);
    if (!j.contains("max")) p.max = std::min(p.max, ct->max);
    if (p.min < ct->min || p.max > ct->max) {
      error(where, "[" + std::to_string(p.min) + ", " + std::to_string(p.max) + "] does not fit c_type " +
                       p.c_type);
      return false;
    }
    return true;
  }

  bool read_default(const json &j, const std::string &where, bool numeric, ParamSpec &p) {
    const bool has = j.contains("default");
    if (numeric || p.type == ParamType::Enum) {
      if (!has) {
        error(where, "missing required key 'default'");
        return false;
      }
    }
    if (numeric) {
      int64_t v = 0;
      if (!read_number(j["default"], p.type, where, "default", v)) return false;
      p.default_value = ParamValue{true, v, {}};
      if (v < p.min || v > p.max) {
        error(where, "default " + std::to_string(v) + " is out of range [" + std::to_string(p.min) +
                         ", " + std::to_string(p.max) + "]");
        return false;
      }
      if (p.power_of_two && (v <= 0 || (v & (v - 1)) != 0)) {
        error(where, "default " + std::to_string(v) + " is not a power of two");
        return false;
      }
      return true;
    }
    switch (p.type) {
      case ParamType::Bool: {
        bool b = false;
        if (!get_bool(j, "default", where, b)) return false;
        p.default_value = ParamValue{true, b ? 1 : 0, {}};
        return true;
      }
      case ParamType::Enum: {
        std::string s;
        if (p.choices.empty()) {
          error(where, "an enum param needs a non-empty 'choices' list");
          return false;
        }
        std::set<std::string> seen;
        for (const auto &c : p.choices) {
          if (!is_name(c)) error(where, "bad choice '" + c + "' (letters, digits, '_', '-')");
          if (!seen.insert(c).second) error(where, "duplicate choice '" + c + "'");
        }
        if (!get_string(j, "default", where, s)) return false;
        if (!contains(p.choices, s)) {
          error(where, "default '" + s + "' is not one of its choices (" + join(p.choices, ", ") + ")");
          return false;
        }
        p.default_value = ParamValue{false, 0, s};
        return ok_;
      }
      case ParamType::Cpuset: {
        std::string s;
        if (!get_string(j, "default", where, s)) return false;
        if (!s.empty() && !cpuset_error(s).empty()) {
          error(where, "bad default CPU set '" + s + "': " + cpuset_error(s));
          return false;
        }
        p.default_value = ParamValue{false, 0, s};
        return true;
      }
      default: return true;
    }
  }

  bool read_program(const json &j, const std::string &where, const FamilyManifest &f, ProgramSpec &p) {
    if (!keys(j, where,
              {"name", "section", "function", "attach", "target", "producer", "consumer",
               "extra_programs", "requires", "metric_sources", "setup", "doc"},
              {"name"}))
      return false;
    p.attach = "auto";
    bool good = get_string(j, "name", where, p.name) && get_string(j, "section", where, p.section) &&
                get_string(j, "function", where, p.function) &&
                get_enum(j, "attach", where, "attach", kAttach, p.attach) &&
                get_string(j, "target", where, p.target) &&
                get_enum(j, "producer", where, "producer", kProducers, p.producer) &&
                get_enum(j, "consumer", where, "consumer", kConsumers, p.consumer) &&
                get_string_list(j, "extra_programs", where, p.extra_programs) &&
                get_string_list(j, "requires", where, p.requires_features) &&
                get_string(j, "doc", where, p.doc);
    if (!good) return false;
    read_setup(j, where, f, p.setup);
    if (!is_name(p.name)) {
      error(where, "bad program name '" + p.name + "' (letters, digits, '_', '-')");
      return false;
    }
    if (p.attach != "none" && (p.function.empty() || p.section.empty())) {
      error(where, "attach '" + p.attach + "' needs both 'function' and 'section'");
      good = false;
    }
    if ((p.attach == "uprobe" || p.attach == "uretprobe") && p.target.empty()) {
      error(where, "attach '" + p.attach + "' needs a 'target' function");
      good = false;
    }
    Names funcs = p.extra_programs;
    if (!p.function.empty()) funcs.insert(funcs.begin(), p.function);
    for (const auto &fn : funcs) {
      if (!is_identifier(fn)) {
        error(where, "bad function name '" + fn + "'");
        good = false;
      } else if (!f.template_path.empty() && !defines_function(f.template_text, fn)) {
        error(where, "function '" + fn + "' is not defined in template " + f.template_path);
        good = false;
      }
    }
    for (const auto &req : p.requires_features) {
      size_t colon = req.find(':');
      if (colon == std::string::npos || colon + 1 == req.size() ||
          !contains(kFeatureKinds, req.substr(0, colon))) {
        error(where, "bad requirement '" + req + "' (expected <kind>:<name>, kind one of " +
                         join(kFeatureKinds) + ")");
        good = false;
      }
    }
    if (j.contains("metric_sources")) {
      const json &ms = j["metric_sources"];
      bool strings = ms.is_object();
      if (strings)
        for (const auto &item : ms.items()) strings = strings && item.value().is_string();
      if (!strings) {
        wrong_type(where, "metric_sources", "an object of strings", ms);
        return false;
      }
      for (const auto &item : ms.items()) p.metric_sources[item.key()] = item.value().get<std::string>();
    }
    return good;
  }

  bool read_metric(const json &j, const std::string &where, MetricSpec &m) {
    if (!keys(j, where, {"name", "source", "unit", "doc"}, {"name", "source"})) return false;
    bool good = get_string(j, "name", where, m.name) && get_string(j, "source", where, m.source) &&
                get_string(j, "unit", where, m.unit) && get_string(j, "doc", where, m.doc);
    if (good && !is_identifier(m.name)) {
      error(where, "bad metric name '" + m.name + "'");
      return false;
    }
    return good;
  }

  void check_source(const std::string &src, const std::string &where, const FamilyManifest &f) {
    auto is_metric = [&](const std::string &n) {
      return std::any_of(f.metrics.begin(), f.metrics.end(), [&](const MetricSpec &m) { return m.name == n; });
    };
    if (src == "producer" || src == "consumer") return;
    if (src.rfind("counter:", 0) == 0 && is_identifier(src.substr(8))) return;
    // stime ticks of a kernel thread found by its comm (runtime/kthread_stat.cpp).
    if (src.rfind("kthread_stime:", 0) == 0 && is_name(src.substr(14))) return;
    if (src.rfind("ratio:", 0) == 0) {
      std::string rest = src.substr(6);
      size_t slash = rest.find('/');
      if (slash != std::string::npos) {
        std::string a = rest.substr(0, slash), b = rest.substr(slash + 1);
        for (const auto &n : {a, b})
          if (!is_metric(n)) error(where, "source '" + src + "' names unknown metric '" + n + "'");
        return;
      }
    }
    error(where, "bad metric source '" + src + "' (expected counter:<var>, producer, consumer, ratio:<a>/<b> or kthread_stime:<comm>)");
  }

  void check_metrics(const FamilyManifest &f) {
    for (const auto &m : f.metrics) check_source(m.source, "metric '" + m.name + "'", f);
    Names metric_names;
    for (const auto &m : f.metrics) metric_names.push_back(m.name);
    for (const auto &p : f.programs)
      for (const auto &[metric, src] : p.metric_sources) {
        std::string where = "program '" + p.name + "'";
        if (!contains(metric_names, metric))
          error(where, "metric_sources names unknown metric '" + metric + "'");
        else
          check_source(src, where, f);
      }
  }

  void check_family_refs(const json &root, FamilyManifest &f) {
    Names programs, metrics;
    for (const auto &p : f.programs) programs.push_back(p.name);
    for (const auto &m : f.metrics) metrics.push_back(m.name);
    if (get_string(root, "default_program", "", f.default_program)) {
      if (f.default_program.empty() && !programs.empty()) f.default_program = programs.front();
      else if (!f.default_program.empty() && !contains(programs, f.default_program))
        error("", "default_program '" + f.default_program + "' is not one of its programs (" +
                      join(programs, ", ") + ")");
    }
    if (!root.contains("report")) {
      f.default_report = metrics;
    } else if (get_string_list(root, "report", "", f.default_report)) {
      for (const auto &r : f.default_report)
        if (!contains(metrics, r)) error("", "report names unknown metric '" + r + "'");
    }
  }

  std::string path_;
  Diagnostics &diags_;
  bool ok_ = true;
};

}  // namespace

std::optional<FamilyManifest> parse_manifest(const std::string &path, const std::string &text,
                                             Diagnostics &diags) {
  try {
    return Reader(path, diags).read(text);
  } catch (const std::exception &e) {
    // Belt and braces: a json accessor we did not guard must not take the tool down.
    diags.error(SourceRange{}, path + ": cannot read manifest: " + e.what());
    return std::nullopt;
  }
}

}  // namespace bpfbench
