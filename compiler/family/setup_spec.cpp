#include "compiler/family/setup_spec.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest_fields.hpp"
#include "compiler/bdsl/names.hpp"

namespace bpfbench {
namespace {

using json = nlohmann::json;

enum class ArgKind { Map, Program, Count, Keys, Socket, Sockets, Input, Flag };  // what an argument holds

struct ActionKeys {
  std::map<std::string, ArgKind> required, optional;
};

// The keys of each action (its name, doc and implementation: compiler/family/kinds.cpp).
const std::map<SetupActionKind, ActionKeys> &actions() {
  static const std::map<SetupActionKind, ActionKeys> a = {
      {SetupActionKind::CalibrateBatch, {{}, {}}},
      {SetupActionKind::InnerMaps,
       {{{"outer", ArgKind::Map}, {"count", ArgKind::Count}},
        {{"prefill", ArgKind::Keys}, {"max_entries", ArgKind::Count}}}},
      {SetupActionKind::Prefill, {{{"map", ArgKind::Map}, {"keys", ArgKind::Keys}}, {}}},
      {SetupActionKind::Fork, {{{"count", ArgKind::Count}}, {{"pause_max", ArgKind::Count}}}},
      {SetupActionKind::RunProgram,
       {{{"program", ArgKind::Program}},
        {{"expect", ArgKind::Count}, {"input", ArgKind::Input}, {"compare_output", ArgKind::Flag}}}},
      {SetupActionKind::SocketPairs,
       {{{"count", ArgKind::Count}}, {{"send", ArgKind::Socket}, {"receive", ArgKind::Socket}}}},
      {SetupActionKind::Sockmap,
       {{{"map", ArgKind::Map}, {"program", ArgKind::Program}, {"sockets", ArgKind::Sockets}}, {}}},
  };
  return a;
}

// A number, or a param whose value the runtime reads at the point.
Result<std::string> read_count(const json &v, ArgKind kind, const FamilyManifest &f) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() || v.get<int64_t>() >= 0) return std::to_string(v.get<int64_t>());
    return Error("must not be negative");
  }
  if (!v.is_string()) return Error("must be an integer or a param name");
  std::string s = v.get<std::string>();
  if (kind == ArgKind::Keys && s == "max_entries") return s;
  if (s == "possible_cpus") return s;  // the machine's possible CPUs (libbpf_num_possible_cpus)
  const ParamSpec *p = f.param(s);
  if (!p) {
    std::vector<std::string> names;
    for (const auto &ps : f.params) names.push_back(ps.name);
    std::string close = did_you_mean(s, names);
    return Error("names unknown param '" + s + "'" + (close.empty() ? "" : " (did you mean '" + close + "'?)"));
  }
  if (p->type != ParamType::Int && p->type != ParamType::Size) return Error("param '" + s + "' must be int or size");
  return s;
}

// A socket name (c1, p2, ...: runtime/socket_pairs.hpp), or with `list` a non-empty
// array of them, joined by ',' for the runtime.
Result<std::string> read_sockets(const json &v, bool list) {
  const char *shape = "a socket name of socket_pairs (c<k> or p<k>, k from 1)";
  if (!list) {
    if (v.is_string() && is_socket_name(v.get<std::string>())) return v.get<std::string>();
    return Error(std::string("must be ") + shape);
  }
  const Error bad(std::string("must be a non-empty array, each ") + shape);
  if (!v.is_array() || v.empty()) return bad;
  std::string out;
  for (const auto &e : v) {
    if (!e.is_string() || !is_socket_name(e.get<std::string>())) return bad;
    out += (out.empty() ? "" : ",") + e.get<std::string>();
  }
  return out;
}

// One argument's value as the runtime reads it (a name, "1"/"0" for a flag, "packet", a
// comma list of sockets, a count), or why it is none.
Result<std::string> read_arg(const json &v, ArgKind kind, const FamilyManifest &f) {
  if (kind == ArgKind::Map || kind == ArgKind::Program) {
    std::string value = v.is_string() ? v.get<std::string>() : "";
    if (!is_identifier(value))
      return Error(kind == ArgKind::Map ? "must be a map name (a C identifier)"
                                        : "must be a program (a C function of the template)");
    if (kind == ArgKind::Program && !f.template_path.empty() && !template_defines_function(f.template_text, value))
      return Error("'" + value + "' is not defined in template " + f.template_path);
    return value;
  }
  if (kind == ArgKind::Flag) {
    if (!v.is_boolean()) return Error("must be true or false");
    return std::string(v.get<bool>() ? "1" : "0");
  }
  if (kind == ArgKind::Input) {
    std::string value = v.is_string() ? v.get<std::string>() : "";
    if (value != "packet") return Error("must be \"packet\" (the point's test_run packet: docs/families.md)");
    return value;
  }
  if (kind == ArgKind::Socket || kind == ArgKind::Sockets) return read_sockets(v, kind == ArgKind::Sockets);
  return read_count(v, kind, f);
}

// The kind of key `k` among the action's keys; nothing after an "unknown key" problem.
std::optional<ArgKind> arg_kind(const ActionKeys &keys, const json &e, const std::string &k, const std::string &where,
                                std::vector<ManifestProblem> &errors) {
  if (auto kt = keys.required.find(k); kt != keys.required.end()) return kt->second;
  if (auto kt = keys.optional.find(k); kt != keys.optional.end()) return kt->second;
  std::vector<std::string> allowed;
  for (const auto &[n, _] : keys.required) allowed.push_back(n);
  for (const auto &[n, _] : keys.optional) allowed.push_back(n);
  std::string close = ManifestFields::nearest_key(k, allowed);
  errors.push_back(
      {&e, k, where + ": unknown key '" + k + "'" + (close.empty() ? "" : " (did you mean '" + close + "'?)")});
  return std::nullopt;
}

// setup[i]: the action with its arguments, or nothing after its problems went to `errors`.
std::optional<SetupActionSpec> read_setup_action(const json &e, size_t i, const FamilyManifest &f,
                                                 std::vector<ManifestProblem> &errors) {
  std::string where = "setup[" + std::to_string(i) + "]";
  if (!e.is_object() || !e.contains("action") || !e["action"].is_string()) {
    errors.push_back({&e, "", where + ": must be an object with a string 'action'"});
    return std::nullopt;
  }
  SetupActionSpec a;
  const std::string name = e["action"].get<std::string>();
  auto kind = parse_kind<SetupActionKind>(name);
  if (!kind) {
    std::string close = did_you_mean(name, kind_names<SetupActionKind>());
    errors.push_back({&e["action"], "",
                      where + ": unknown action '" + name + "'" + (close.empty() ? "" : " (did you mean '" + close + "'?)")});
    return std::nullopt;
  }
  a.action = *kind;
  where += " (" + name + ")";
  const ActionKeys &keys = actions().find(a.action)->second;
  bool good = true;
  for (const auto &item : e.items()) {
    const std::string &k = item.key();
    if (k == "action") continue;
    auto arg = arg_kind(keys, e, k, where, errors);
    if (!arg) {
      good = false;
      continue;
    }
    auto value = read_arg(item.value(), *arg, f);
    if (!value) {
      errors.push_back({&item.value(), "", where + ": '" + k + "' " + value.error().message});
      good = false;
      continue;
    }
    a.args[k] = *value;
  }
  for (const auto &[k, _] : keys.required)
    if (!e.contains(k)) {
      errors.push_back({&e, "", where + ": missing required key '" + k + "'"});
      good = false;
    }
  if (!good) return std::nullopt;
  return a;
}

}  // namespace

void read_setup_actions(const json &arr, const FamilyManifest &f, std::vector<SetupActionSpec> &out,
                        std::vector<ManifestProblem> &errors) {
  if (!arr.is_array()) {
    errors.push_back({&arr, "", std::string("'setup' must be an array, got ") + arr.type_name()});
    return;
  }
  for (size_t i = 0; i < arr.size(); ++i)
    if (auto a = read_setup_action(arr[i], i, f, errors)) out.push_back(std::move(*a));
}

bool is_map_argument(SetupActionKind action, const std::string &key) {
  auto it = actions().find(action);
  if (it == actions().end()) return false;
  for (const auto *keys : {&it->second.required, &it->second.optional})
    if (auto kt = keys->find(key); kt != keys->end() && kt->second == ArgKind::Map) return true;
  return false;
}

namespace {

// The placeholders a per_cpu line may use (results/point_result.hpp says what each is).
constexpr const char *kPerCpuFields[] = {"{cpu}", "{cpu02}", "{rate}", "{mean_m}", "{spread_m}", "{samples}", "{sample_ms}"};

// "" or the first {...} in `line` that is not a per_cpu placeholder.
std::string unknown_per_cpu_field(const std::string &line) {
  for (size_t b = line.find('{'); b != std::string::npos; b = line.find('{', b + 1)) {
    const size_t e = line.find('}', b);
    const std::string f = line.substr(b, e == std::string::npos ? std::string::npos : e - b + 1);
    if (std::find(std::begin(kPerCpuFields), std::end(kPerCpuFields), f) == std::end(kPerCpuFields)) return f;
  }
  return "";
}

}  // namespace

void read_per_cpu(const json &obj, PerCpuSpec &out, std::vector<ManifestProblem> &errors) {
  if (!obj.is_object()) {
    errors.push_back({&obj, "", std::string("'per_cpu' must be an object, got ") + obj.type_name()});
    return;
  }
  for (const auto &item : obj.items()) {
    const std::string &k = item.key();
    if (k == "total") {
      if (item.value().is_boolean()) out.total = item.value().get<bool>();
      else errors.push_back({&item.value(), "", "per_cpu: 'total' must be true or false"});
      continue;
    }
    std::string *dst = k == "ops" ? &out.ops : k == "ns" ? &out.ns : k == "line" ? &out.line : nullptr;
    if (!dst) {
      std::string close = ManifestFields::nearest_key(k, {"ops", "ns", "line", "total"});
      errors.push_back({&obj, k,
                        "per_cpu: unknown key '" + k + "'" +
                            (close.empty() ? " (allowed keys: ops, ns, line, total)" : " (did you mean '" + close + "'?)")});
      continue;
    }
    if (!item.value().is_string()) {
      errors.push_back({&item.value(), "", "per_cpu: '" + k + "' must be a string"});
      continue;
    }
    *dst = item.value().get<std::string>();
  }
  if (!is_identifier(out.ops) || !is_identifier(out.ns))
    errors.push_back({&obj, "", "per_cpu: 'ops' and 'ns' must name bb_counter arrays (C identifiers)"});
  const char *where = obj.contains("line") ? "line" : "";
  if (out.line.find("{rate}") == std::string::npos && out.line.find("{mean_m}") == std::string::npos)
    errors.push_back({&obj, where, "per_cpu: 'line' must contain {rate} or {mean_m}"});
  else if (std::string f = unknown_per_cpu_field(out.line); !f.empty())
    errors.push_back({&obj, where,
                      "per_cpu: 'line' has an unknown field '" + f +
                          "' (known: {cpu}, {cpu02}, {rate}, {mean_m}, {spread_m}, {samples}, {sample_ms})"});
  if (!errors.empty()) out = PerCpuSpec{};
}

}  // namespace bpfbench
