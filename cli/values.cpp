#include "cli/values.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "compiler/family/builtins.hpp"
#include "compiler/family/units.hpp"

namespace bpfbench::cli {

namespace {

template <typename T>
std::optional<T> fail(std::string *why, std::string msg) {
  if (why) *why = std::move(msg);
  return std::nullopt;
}

// "{x} is below the {min} minimum" with both written the same way (units, %, plain).
template <typename T, typename Fmt>
std::optional<T> within(T x, T min, T max, const std::string &text, Fmt show, std::string *why) {
  if (x < min) return fail<T>(why, fmt::format("{} is below the {} minimum", text, show(min)));
  if (x > max) return fail<T>(why, fmt::format("{} is above the {} maximum", text, show(max)));
  return x;
}

// strtod over the whole text; nullopt for "", trailing garbage, NaN and infinities.
std::optional<double> finite_number(const std::string &t) {
  if (t.empty() || std::isspace(static_cast<unsigned char>(t.front()))) return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

ValueParser<int64_t> duration_in(int64_t min_ns, int64_t max_ns) {
  return [=](const std::string &text, std::string *why) -> std::optional<int64_t> {
    // parse_quantity checks every step of the ns arithmetic for int64 overflow.
    auto ns = parse_quantity(text, ParamType::Duration);
    if (!ns) {
      const std::string &err = ns.error().message;
      if (err.find("too large") != std::string::npos)
        return fail<int64_t>(why, fmt::format("{} is too large (the maximum is {})", text, format_duration_ns(max_ns)));
      // "500 has no unit: write 500s, 500ms, 500us or 500ns" says it all.
      if (err.find("has no unit") != std::string::npos) return fail<int64_t>(why, err);
      return fail<int64_t>(why, fmt::format("expected a duration like 500ms or 2s, got '{}' ({})", text, err));
    }
    return within<int64_t>(*ns, min_ns, max_ns, text, format_duration_ns, why);
  };
}

ValueParser<int64_t> integer_in(int64_t min, int64_t max) {
  return [=](const std::string &text, std::string *why) -> std::optional<int64_t> {
    int64_t v = 0;
    const char *first = text.data(), *last = text.data() + text.size();
    if (first != last && *first == '+') ++first;
    auto [end, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range)
      return fail<int64_t>(why, fmt::format("{} is out of range (from {} to {})", text, min, max));
    if (text.empty() || ec != std::errc() || end != last)
      return fail<int64_t>(why, fmt::format("expected a whole number, got '{}'", text));
    return within<int64_t>(
        v, min, max, text, [](int64_t x) { return std::to_string(x); }, why);
  };
}

ValueParser<double> number_in(double min, double max, bool open) {
  return [=](const std::string &text, std::string *why) -> std::optional<double> {
    auto v = finite_number(text);
    if (!v) return fail<double>(why, fmt::format("expected a number, got '{}'", text));
    if (open && (*v <= min || *v >= max))
      return fail<double>(why, fmt::format("{} is not between {} and {} (both excluded)", text, min, max));
    return within<double>(
        *v, min, max, text, [](double x) { return fmt::format("{}", x); }, why);
  };
}

ValueParser<double> percent_in(double min, double max) {
  return [=](const std::string &text, std::string *why) -> std::optional<double> {
    std::string t = text;
    if (!t.empty() && t.back() == '%') t.pop_back();
    auto v = finite_number(t);
    if (!v) return fail<double>(why, fmt::format("expected a percentage like 1% or 0.5%, got '{}'", text));
    return within<double>(
        *v, min, max, text, [](double x) { return fmt::format("{}%", x); }, why);
  };
}

ValueParser<std::string> non_empty(const std::string &what) {
  return [=](const std::string &text, std::string *why) -> std::optional<std::string> {
    if (text.empty()) return fail<std::string>(why, fmt::format("expected {}, got an empty string", what));
    return text;
  };
}

std::pair<int64_t, int64_t> builtin_range(const std::string &name) {
  for (const auto &spec : builtin_settings(FamilyManifest{}))
    if (spec.name == name) return {spec.min, spec.max};
  return {0, 0};  // not reached: every caller names a builtin (a test pins each one)
}

}  // namespace bpfbench::cli
