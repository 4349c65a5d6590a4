#include "compiler/bdsl/source.hpp"

#include <tuple>

namespace bpfbench {

SourceRange SourceRange::cover(const SourceRange &a, const SourceRange &b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  SourceRange r = a;
  if (std::tie(b.line, b.col) < std::tie(r.line, r.col)) {
    r.line = b.line;
    r.col = b.col;
  }
  if (std::tie(b.end_line, b.end_col) > std::tie(r.end_line, r.end_col)) {
    r.end_line = b.end_line;
    r.end_col = b.end_col;
  }
  return r;
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts.size()) return {};
  size_t begin = line_starts[line - 1];
  size_t end = line < line_starts.size() ? line_starts[line] : text.size();
  std::string_view v(text.data() + begin, end - begin);
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.remove_suffix(1);
  return v;
}

uint32_t SourceManager::add(std::string path, std::string text) {
  SourceFile f{std::move(path), std::move(text), {0}};
  for (size_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n' && i + 1 < f.text.size()) f.line_starts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size() - 1);
}

int64_t SourceManager::find(const std::string &path) const {
  for (size_t i = 0; i < files_.size(); ++i)
    if (files_[i].path == path) return static_cast<int64_t>(i);
  return -1;
}

}  // namespace bpfbench
