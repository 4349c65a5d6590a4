// Unit suffixes: one table per numeric type, overflow-checked scaling.
#include "compiler/family/units.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>
#include <vector>

namespace bpfbench {
namespace {

struct Unit {
  std::string_view name;
  int64_t scale;
};

constexpr std::array<Unit, 3> kSizeUnits{{{"K", int64_t{1} << 10}, {"M", int64_t{1} << 20}, {"G", int64_t{1} << 30}}};
constexpr std::array<Unit, 3> kIntUnits{{{"K", 1000}, {"M", 1000000}, {"G", 1000000000}}};
constexpr std::array<Unit, 4> kDurationUnits{{{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}, {"ns", 1}}};

const char *noun(ParamType t) {
  switch (t) {
  case ParamType::Int: return "an integer";
  case ParamType::Size: return "a size";
  case ParamType::Duration: return "a duration";
  case ParamType::Bool: return "a bool";
  case ParamType::Enum: return "an enum";
  case ParamType::Cpuset: return "a CPU set";
  case ParamType::Address: return "an address";
  }
  return "a value";
}

template <size_t N>
const Unit *lookup(const std::array<Unit, N> &table, const std::string &u) {
  for (const Unit &x : table)
    if (x.name == u) return &x;
  return nullptr;
}

template <size_t N>
std::string names(const std::array<Unit, N> &table) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i) out += (i + 1 == N) ? " or " : ", ";
    out += table[i].name;
  }
  return out;
}

bool is_known_unit(const std::string &u) {
  return lookup(kSizeUnits, u) || lookup(kIntUnits, u) || lookup(kDurationUnits, u);
}

template <size_t N>
Result<int64_t> scale(int64_t number, const std::string &unit, ParamType type, const std::array<Unit, N> &table) {
  const Unit *u = lookup(table, unit);
  if (!u) {
    if (is_known_unit(unit))
      return Error("unit '" + unit + "' does not apply to " + noun(type) + " (use " + names(table) + ")");
    return Error("unknown unit '" + unit + "' for " + noun(type) + " (use " + names(table) + ")");
  }
  int64_t out = 0;
  if (__builtin_mul_overflow(number, u->scale, &out)) return Error(std::to_string(number) + unit + " is too large");
  return out;
}

}  // namespace

Result<int64_t> apply_unit(int64_t number, const std::string &unit, ParamType type) {
  switch (type) {
  case ParamType::Size: return unit.empty() ? Result<int64_t>(number) : scale(number, unit, type, kSizeUnits);
  case ParamType::Int: return unit.empty() ? Result<int64_t>(number) : scale(number, unit, type, kIntUnits);
  case ParamType::Duration:
    // A bare number is no duration: `warmup 500` was meant as 500ms as often as 500s (it
    // was read as seconds). 0 is 0 in every unit.
    if (unit.empty() && number != 0)
      return Error(fmt::format("{} has no unit: {}", number, duration_units_hint(number)));
    return scale(number, unit.empty() ? "s" : unit, type, kDurationUnits);
  case ParamType::Bool:
  case ParamType::Enum:
  case ParamType::Cpuset:
  case ParamType::Address:
    if (unit.empty()) return number;
    return Error("unit '" + unit + "' does not apply to " + noun(type));
  }
  return Error("unknown type");
}

std::string duration_units_hint(int64_t number) {
  std::vector<std::string> each;
  for (const Unit &u : kDurationUnits) each.push_back(fmt::format("{}{}", number, u.name));
  std::string last = each.back();
  each.pop_back();
  return fmt::format("write {} or {}", fmt::join(each, ", "), last);
}

std::string format_duration_ns(int64_t ns) {
  if (ns == 0) return "0s";
  if (ns % 1'000'000'000 == 0) return fmt::format("{}s", ns / 1'000'000'000);
  if (ns % 1'000'000 == 0) return fmt::format("{}ms", ns / 1'000'000);
  if (ns % 1'000 == 0) return fmt::format("{}us", ns / 1'000);
  return fmt::format("{}ns", ns);
}

std::string format_quantity(int64_t v, ParamType type) {
  if (type == ParamType::Duration) return format_duration_ns(v);
  if (type != ParamType::Size || v == 0) return std::to_string(v);
  for (auto it = kSizeUnits.rbegin(); it != kSizeUnits.rend(); ++it)
    if (v % it->scale == 0) return fmt::format("{}{}", v / it->scale, it->name);
  return std::to_string(v);
}

std::string bound_phrase(int64_t v, int64_t min, int64_t max, ParamType type) {
  if (v < min) return fmt::format("is below the {} minimum", format_quantity(min, type));
  if (v > max) return fmt::format("is above the {} maximum", format_quantity(max, type));
  return "";
}

std::string bound_violation(int64_t v, int64_t min, int64_t max, ParamType type) {
  std::string phrase = bound_phrase(v, min, max, type);
  return phrase.empty() ? "" : format_quantity(v, type) + " " + phrase;
}

Result<int64_t> parse_quantity(const std::string &text, ParamType type) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  size_t digits_start = i;
  int64_t number = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    int d = text[i] - '0';
    if (__builtin_mul_overflow(number, 10, &number) || __builtin_add_overflow(number, negative ? -d : d, &number))
      return Error("'" + text + "' is too large");
  }
  if (i == digits_start) return Error("'" + text + "' is not a number");
  return apply_unit(number, text.substr(i), type);
}

}  // namespace bpfbench
