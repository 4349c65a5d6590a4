// Mustache rendering of BPF C templates that keeps template line numbers exact for clang.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/diagnostics.hpp"

namespace bpfbench {

// One mustache key. Bool keys drive sections ({{#k}}..{{/k}}, {{^k}}..{{/k}}); string keys
// are substituted as written (HTML escaping is off: this is C, not HTML).
struct TemplateKey {
  std::string name;
  bool is_bool = false;
  bool flag = false;
  std::string value;
};

// Renders `text` (the template read from `path`). Every key the template uses must be in
// `keys`; a problem becomes a diagnostic "template <path>:<line>: ..." and nullopt.
// The result carries `#line N "<path>"` directives wherever the output line does not
// come from the template line after the previous one (a section removed or repeated),
// so the caller emits `#line 1 "<path>"` right before it.
std::optional<std::string> render_template(const std::string &path, const std::string &text,
                                           const std::vector<TemplateKey> &keys, Diagnostics &diags);

}  // namespace bpfbench
