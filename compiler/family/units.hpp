// Unit suffixes of numeric values (512K, 3ms, 1M), shared by manifests and .bdsl values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/family/manifest.hpp"
#include "util/error.hpp"

namespace bpfbench {

// Scales `number` by `unit` for a value of `type`:
//   size     K/M/G = 2^10/2^20/2^30 bytes
//   int      K/M/G = 10^3/10^6/10^9
//   duration s/ms/us/ns -> nanoseconds; no unit is an error (but for 0)
// Other types take no unit. An error for an unknown unit, a unit that does not fit the type
// ("unit 'ms' does not apply to a size") or an overflow of int64.
Result<int64_t> apply_unit(int64_t number, const std::string &unit, ParamType type);

// Parses "512K", "-3", "250ms" (an optional '-', decimal digits, an optional unit) and
// applies the unit as above.
Result<int64_t> parse_quantity(const std::string &text, ParamType type);

// "write 500s, 500ms, 500us or 500ns": the units a bare number `number` could have meant.
std::string duration_units_hint(int64_t number);

// A duration in the largest unit that writes it exactly: "1s", "500ms", "86400s", "-1s"
// (the units a .bdsl file and the command line accept, so a message can be typed back).
std::string format_duration_ns(int64_t ns);

// A value of `type` written the way one types it: a duration as above, a size in the
// largest of K/M/G that writes it exactly ("4K", "1G", "3000"), any other number as is.
std::string format_quantity(int64_t v, ParamType type);

// "500ms is below the 1s minimum", "2G is above the 1G maximum" (format_quantity); ""
// when min <= v <= max. bound_phrase is the same without the value ("is below the ...").
std::string bound_violation(int64_t v, int64_t min, int64_t max, ParamType type);
std::string bound_phrase(int64_t v, int64_t min, int64_t max, ParamType type);

}  // namespace bpfbench
