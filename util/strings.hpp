#pragma once
// Small string helpers shared across the layers (one definition: unity builds put several
// files into one translation unit, so file-local copies of the same name collide).

#include <string>

namespace bpfbench {

// `s` without leading and trailing whitespace (space, tab, CR, LF, FF, VT).
inline std::string trim_blanks(const std::string &s) {
  constexpr const char *kBlanks = " \t\r\n\f\v";
  const size_t b = s.find_first_not_of(kBlanks);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(kBlanks) - b + 1);
}

}  // namespace bpfbench
