#include "results/floor_file.hpp"

#include <fmt/format.h>

#include <cmath>

#include "util/escape.hpp"
#include "util/json_input.hpp"

namespace bpfbench {

namespace {

// Keeps the document's fields but its arrays and objects other than "floors": a control
// run's points are most of it and say nothing about the floors.
class FloorReader final : public JsonReader {
 protected:
  Role role(bool is_array) override {
    if (depth() == 0) return is_array ? Role::Skip : Role::Keep;
    return depth() == 1 && key() != "floors" ? Role::Skip : Role::Keep;
  }
};

std::string described(const nlohmann::json &v) {
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  const std::string t = v.type_name();
  return (t == "array" || t == "object" ? "an " : "a ") + t;
}

// A floor: a finite number >= 0, or null (none); else why `v` is not one.
Result<void> check_floor(const nlohmann::json &v) {
  if (v.is_null() || (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0)) return {};
  return Error("expected a number >= 0, got " + described(v));
}

Result<FloorMap> floors_of(JsonSource &src, const std::string &name) {
  FloorReader r;
  if (!r.read(src)) return Error(r.error().text(name));
  auto floors = floors_from_control_json(r.take());
  if (!floors) return Error(name + ": " + floors.error().message);
  return floors;
}

}  // namespace

Result<FloorMap> floors_from_control_json(const nlohmann::json &j) {
  const char *not_control = "not the JSON of a control run (bpfbench ab --control --format json)";
  if (!j.is_object() || !j.contains("bpfbench_ab") || !j.contains("control")) return Error(not_control);
  if (const auto &c = j["control"]; !c.is_boolean() || !c.get<bool>())
    return Error(c.is_boolean() ? not_control : "control: expected true or false, got " + described(c));
  FloorMap out;
  if (auto it = j.find("noise_floor_pct"); it != j.end()) {
    if (auto ok = check_floor(*it); !ok) return Error("noise_floor_pct: " + ok.error().message);
    if (!it->is_null()) out[""] = it->get<double>();
  }
  if (auto it = j.find("floors"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return Error("floors: expected an object, got " + described(*it));
    for (const auto &[k, v] : it->items()) {
      if (auto ok = check_floor(v); !ok)
        return Error(fmt::format("floors[\"{}\"]: {}", printable_text(k), ok.error().message));
      if (!v.is_null()) out[k] = v.get<double>();
    }
  }
  if (out.empty()) return Error("the control run holds no noise floor (no point of it has a ratio)");
  return out;
}

Result<FloorMap> read_floor_file(const std::string &path) {
  auto in = open_input_stream(path, kMaxTextInputBytes);
  if (!in) return Error("cannot read " + path + ": " + in.error().message);
  JsonSource src(*in);
  return floors_of(src, path);
}

Result<FloorMap> floors_from_text(std::string_view text, const std::string &name) {
  JsonSource src(text);
  return floors_of(src, name);
}

}  // namespace bpfbench
