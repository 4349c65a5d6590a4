// Source files and locations: every AST node and diagnostic points into a SourceManager.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bpfbench {

// A 1-based, inclusive range inside one file; `file` indexes SourceManager.
// end_col is the column of the last character (inclusive). An invalid range has line 0.
struct SourceRange {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t end_line = 0;
  uint32_t end_col = 0;

  bool valid() const { return line != 0; }
  // The smallest range covering both (same file assumed).
  static SourceRange cover(const SourceRange &a, const SourceRange &b);
};

struct SourceFile {
  std::string path;
  std::string text;
  std::vector<size_t> line_starts;  // offset of each line's first byte

  std::string_view line_text(uint32_t line) const;  // without the newline
};

class SourceManager {
 public:
  // Adds a file and returns its id (stable for the manager's lifetime).
  uint32_t add(std::string path, std::string text);
  // The id of the file added under `path`, or -1. A template, a header or a generated C
  // text is added once, by the first diagnostic located in it (its text does not change
  // within a run), so every later one finds it here.
  int64_t find(const std::string &path) const;
  const SourceFile &file(uint32_t id) const { return files_.at(id); }
  size_t size() const { return files_.size(); }

 private:
  std::vector<SourceFile> files_;
};

}  // namespace bpfbench
