// An unknown hook gets the family's hooks as a hint (and the nearest one, when close).
#include "compiler/bdsl/code_blocks.hpp"

#include <fmt/format.h>

namespace bpfbench {

std::vector<PlanCode> check_code_blocks(const std::vector<ast::CodeBlock> &blocks, const FamilyManifest &f,
                                        Diagnostics &diags) {
  std::vector<PlanCode> out;
  std::vector<std::string> names;
  for (const auto &h : f.hooks) names.push_back(h.name);
  for (const auto &b : blocks) {
    bool known = false;
    for (const auto &h : f.hooks) known = known || h.name == b.hook.text;
    if (known) {
      out.push_back(PlanCode{b.hook.text, b.text, b.text_range, b.range});
      continue;
    }
    std::vector<std::string> hints;
    if (names.empty()) {
      hints.push_back(fmt::format("family '{}' declares no hooks (family.json \"hooks\")", f.name));
    } else {
      std::string close = did_you_mean(b.hook.text, names);
      if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
      hints.push_back(fmt::format("'{}' has hooks: {}", f.name, fmt::join(names, ", ")));
    }
    diags.error(b.hook.range, fmt::format("unknown code hook '{}' for family '{}'", b.hook.text, f.name), hints);
  }
  return out;
}

}  // namespace bpfbench
