// Unit suffixes of numeric values (512K, 3ms, 1M), shared by manifests and .bdsl values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/manifest.hpp"

namespace bpfbench {

// Scales `number` by `unit` for a value of `type`:
//   size     K/M/G = 2^10/2^20/2^30 bytes
//   int      K/M/G = 10^3/10^6/10^9
//   duration s/ms/us/ns -> nanoseconds; no unit means seconds
// Other types take no unit. Returns nullopt and sets *error (when non-null) for an unknown
// unit, a unit that does not fit the type ("unit 'ms' does not apply to a size") or an
// overflow of int64.
std::optional<int64_t> apply_unit(int64_t number, const std::string &unit, ParamType type, std::string *error);

// Parses "512K", "-3", "250ms" (an optional '-', decimal digits, an optional unit) and
// applies the unit as above.
std::optional<int64_t> parse_quantity(const std::string &text, ParamType type, std::string *error);

// A duration in the largest unit that writes it exactly: "1s", "500ms", "86400s", "-1s"
// (the units a .bdsl file and the command line accept, so a message can be typed back).
std::string format_duration_ns(int64_t ns);

}  // namespace bpfbench
