// Inline C keeps its .bdsl coordinates: the emitter writes `#line` before each block and
// pads its first line to the column after '{', so a clang error in it names the .bdsl
// line and column the user typed, not a line of generated C.
#include "compiler/bpf/code_hooks.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "util/escape.hpp"

#include <fmt/format.h>

namespace bpfbench {

namespace {

bool contains(const SourceRange &r, const SourceRange &loc) {
  if (!r.valid() || loc.file != r.file || loc.line < r.line || loc.line > r.end_line) return false;
  if (loc.line == r.line && loc.col < r.col) return false;
  return !(loc.line == r.end_line && loc.col > r.end_col + 1);
}

}  // namespace

std::vector<TemplateKey> code_template_keys(const PlanPoint &p, const FamilyManifest &f, const SourceManager &sm) {
  std::vector<TemplateKey> keys;
  for (const auto &h : f.hooks) {
    std::string text;
    for (const auto &c : p.code) {
      if (c.hook != h.name) continue;
      const SourceRange &r = c.text_range;
      if (r.valid() && r.file < sm.size()) {
        text += fmt::format("#line {} {}\n", r.line, c_string_literal(sm.file(r.file).path));
        text += std::string(r.col > 0 ? r.col - 1 : 0, ' ');
      }
      text += c.text;
      if (text.empty() || text.back() != '\n') text += '\n';
    }
    keys.push_back(TemplateKey{"has_code_" + h.name, true, !text.empty(), {}});
    keys.push_back(TemplateKey{"code_" + h.name, false, false, text});
  }
  return keys;
}

std::string code_identity(const PlanPoint &p) {
  std::string id;
  for (const auto &c : p.code)
    id += fmt::format("{}@{}:{}:{}:{}\n{}\n", c.hook, c.text_range.file, c.text_range.line, c.text_range.col,
                      c.text.size(), c.text);
  return id;
}

const PlanCode *code_block_at(const PlanPoint &p, const SourceRange &loc) {
  for (const auto &c : p.code)
    if (contains(c.text_range, loc)) return &c;
  return nullptr;
}

}  // namespace bpfbench
