#include "compiler/bdsl/param_override.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

#include "compiler/family/kinds.hpp"
#include "compiler/bdsl/names.hpp"
#include "compiler/bdsl/resolve_value.hpp"
#include "util/strings.hpp"

namespace bpfbench {

namespace {

bool is_unit(const std::string &u) {
  for (const char *known : {"", "s", "ms", "us", "ns", "K", "M", "G"})
    if (u == known) return true;
  return false;
}

// "512", "-1", "4K", "500ms", "0x1f": the number and its unit; nullopt when it is none.
std::optional<std::pair<int64_t, std::string>> number_with_unit(const std::string &t) {
  size_t i = t.size() > 0 && t[0] == '-' ? 1 : 0;
  bool hex = t.size() > i + 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X');
  size_t digits = hex ? i + 2 : i;
  size_t end = digits;
  while (end < t.size() && (hex ? std::isxdigit(static_cast<unsigned char>(t[end])) != 0
                                : std::isdigit(static_cast<unsigned char>(t[end])) != 0))
    ++end;
  if (end == digits) return std::nullopt;
  uint64_t mag = 0;
  auto [p, ec] = std::from_chars(t.data() + digits, t.data() + end, mag, hex ? 16 : 10);
  if (ec != std::errc() || p != t.data() + end || mag > uint64_t(INT64_MAX)) return std::nullopt;
  std::string unit = t.substr(end);
  if (!is_unit(unit)) return std::nullopt;
  return std::pair(i ? -int64_t(mag) : int64_t(mag), unit);
}

}  // namespace

std::string parse_param_override(const std::string &arg, const std::string &origin, ParamOverride &out) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos) return fmt::format("{} takes NAME=VALUE, got '{}'", origin, arg);
  out.origin = origin;
  out.name = trim_blanks(arg.substr(0, eq));
  out.text = trim_blanks(arg.substr(eq + 1));
  if (!is_identifier(out.name)) return fmt::format("{}: '{}' is not a parameter name", origin, out.name);
  if (out.text.empty()) return fmt::format("{}: no value for '{}'", origin, out.name);
  return "";
}

ast::Value override_value(const std::string &text) {
  ast::Value v;
  if (auto n = number_with_unit(text)) {
    v.kind = ast::Value::Kind::Int;
    v.number = n->first;
    v.unit = n->second;
    return v;
  }
  v.kind = is_identifier(text) ? ast::Value::Kind::Ident : ast::Value::Kind::String;
  v.text = text;
  return v;
}

std::optional<ParamValue> resolve_override(const ParamOverride &o, const ParamSpec &spec, Diagnostics &diags) {
  Diagnostics local;
  auto vals = resolve_values(override_value(o.text), spec, LetScope{}, local);
  if (vals && vals->values.size() == 1) return vals->values.front();
  for (const auto &d : local.all())
    diags.error(SourceRange{}, fmt::format("{} {}={}: {}", o.origin, o.name, o.text, d.message), d.hints);
  if (local.all().empty()) diags.error(SourceRange{}, fmt::format("{} {}: expected one value", o.origin, o.name));
  return std::nullopt;
}

}  // namespace bpfbench
