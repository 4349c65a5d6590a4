// Diagnostics are data: stages attach them, one place (render) prints them.
#pragma once

#include <string>
#include <vector>

#include "compiler/bdsl/source.hpp"

namespace bpfbench {

enum class Severity { Error, Warning, Note };

// A replacement on the diagnostic's line (clang's fix-it): shown as clang shows it, the
// text on a line of its own under the underline, starting at `col`.
struct FixIt {
  uint32_t col = 0;
  std::string text;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceRange range;  // may be invalid: then no location is printed
  std::string message;
  std::vector<std::string> hints;  // each rendered as "hint: ..."
  std::vector<Diagnostic> notes;   // follow-up located notes ("note: ...")
  std::vector<FixIt> fixits;       // on range.line
};

class Diagnostics {
 public:
  Diagnostic &error(SourceRange r, std::string msg, std::vector<std::string> hints = {});
  Diagnostic &warning(SourceRange r, std::string msg, std::vector<std::string> hints = {});
  void add(Diagnostic d);

  bool has_errors() const { return errors_ > 0; }
  size_t error_count() const { return errors_; }
  const std::vector<Diagnostic> &all() const { return diags_; }
  // Stop collecting after this many errors (a flood helps nobody).
  static constexpr size_t kMaxErrors = 20;
  bool full() const { return errors_ >= kMaxErrors; }

 private:
  std::vector<Diagnostic> diags_;
  size_t errors_ = 0;
};

// "file:line:col-col: error: message", the source line, "~~~" under the range, hints.
std::string render(const Diagnostic &d, const SourceManager &sm);
std::string render_all(const Diagnostics &ds, const SourceManager &sm);

// Closest candidate by edit distance, or "" when none is close enough.
std::string did_you_mean(const std::string &name, const std::vector<std::string> &candidates);

}  // namespace bpfbench
