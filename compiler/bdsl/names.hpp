// Which characters names hold: the one definition every layer uses (the parser, manifests,
// setup specs, code hooks, integer expressions, the runtime's object names, the CLI).
// The language's own definition is the grammar (grammar/bdsl.hpp: ident_first,
// ident_other); tests/unit/test_names.cpp checks these functions against its rules byte by
// byte. Header-only and constexpr, so the lowest layer can use it without a library.
#pragma once

#include <string_view>

namespace bpfbench {

// [A-Za-z_]: what starts an identifier, of .bdsl (ident_first) and of C.
constexpr bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
// [A-Za-z0-9_]: what a C identifier holds after its start (params become C globals and
// macros, programs C functions, counters C variables).
constexpr bool is_c_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
// [A-Za-z0-9_-]: what a .bdsl identifier holds after its start (ident_other: `rb-custom`),
// and every character of a name.
constexpr bool is_bdsl_ident_char(char c) { return is_c_ident_char(c) || c == '-'; }

// A C identifier: [A-Za-z_][A-Za-z0-9_]*.
constexpr bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (char c : s.substr(1))
    if (!is_c_ident_char(c)) return false;
  return true;
}

// A name of a family, program, enum choice or self-check, which may also hold '-' (a task
// comm such as "kworker-x") and start with a digit: [A-Za-z0-9_-]+.
constexpr bool is_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_bdsl_ident_char(c)) return false;
  return true;
}

}  // namespace bpfbench
