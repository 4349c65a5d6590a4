// Mustache rendering of BPF C templates that keeps template line numbers exact for clang.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"

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
// `keys` and its sections must nest; a problem becomes a diagnostic located at the tag in
// the template (added to `sm` under `path` once, so its line is shown) and nullopt.
// The result carries `#line N "<path>"` directives wherever the output line does not
// come from the template line after the previous one (a section removed or repeated),
// so the caller emits `#line 1 "<path>"` right before it.
std::optional<std::string> render_template(const std::string &path, const std::string &text,
                                           const std::vector<TemplateKey> &keys, SourceManager &sm, Diagnostics &diags);

}  // namespace bpfbench
