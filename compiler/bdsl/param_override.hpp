// `NAME=VALUE` from the command line (`bpfbench ab --a/--b`): a family param or builtin
// setting given one value for every point of the file that has it.
#pragma once

#include <optional>
#include <string>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"

namespace bpfbench {

struct ParamOverride {
  std::string origin;  // the option it came from ("--a"), for messages
  std::string name;
  std::string text;  // the value as typed
};

// Splits "NAME=VALUE" (spaces around either trimmed); "" when it parses, else why not.
std::string parse_param_override(const std::string &arg, const std::string &origin, ParamOverride &out);

// The value text as the .bdsl would read it: a number with an optional unit suffix
// (`512`, `4K`, `500ms`, `-1`, `0x10`), else an identifier, else a string.
ast::Value override_value(const std::string &text);

// The typed value for `spec`, checked as a .bdsl value is (type, unit, range, choices);
// problems become diagnostics that name the option.
std::optional<ParamValue> resolve_override(const ParamOverride &o, const ParamSpec &spec, Diagnostics &diags);

}  // namespace bpfbench
