#pragma once
// JSON for values that may be missing: null, never a made-up number. Shared by every
// results/ writer (one definition: unity builds put several writers in one unit).

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

namespace bpfbench {

// A finite number as itself; NaN or infinity (no value) as null.
inline nlohmann::json json_number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// An optional value as itself, or null when absent.
template <class T>
nlohmann::json json_or_null(const std::optional<T> &v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace bpfbench
