#include "compiler/bdsl/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bpfbench {

Diagnostic &Diagnostics::error(SourceRange r, std::string msg, std::vector<std::string> hints) {
  add(Diagnostic{Severity::Error, r, std::move(msg), std::move(hints), {}, {}});
  return diags_.back();
}

Diagnostic &Diagnostics::warning(SourceRange r, std::string msg, std::vector<std::string> hints) {
  add(Diagnostic{Severity::Warning, r, std::move(msg), std::move(hints), {}, {}});
  return diags_.back();
}

void Diagnostics::add(Diagnostic d) {
  if (d.severity == Severity::Error) ++errors_;
  diags_.push_back(std::move(d));
}

namespace {

const char *severity_name(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

// Tabs are expanded to one space so the underline lines up with what the terminal shows.
std::string printable_line(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    unsigned char u = static_cast<unsigned char>(c);
    out.push_back(c == '\t' ? ' ' : (u < 0x20 || u == 0x7f) ? '?' : c);
  }
  return out;
}

// The fix-its' new text at their columns (of a line shown from column `first` + 1), in
// column order; one that would overlap the previous one follows it after a space.
std::string fixit_line(std::vector<FixIt> fixits, size_t first) {
  std::stable_sort(fixits.begin(), fixits.end(), [](const FixIt &a, const FixIt &b) { return a.col < b.col; });
  std::string out;
  for (const auto &f : fixits) {
    if (f.text.empty() || f.col == 0 || f.col - 1 < first) continue;
    size_t at = f.col - 1 - first;
    if (!out.empty() && out.size() >= at) at = out.size() + 1;
    out.resize(at, ' ');
    out += printable_line(f.text);
  }
  return out;
}

void render_into(std::string &out, const Diagnostic &d, const SourceManager &sm) {
  const SourceRange &r = d.range;
  if (!r.valid() || r.file >= sm.size()) {
    out += fmt::format("{}: {}\n", severity_name(d.severity), d.message);
  } else {
    const SourceFile &f = sm.file(r.file);
    bool same_line = r.end_line == r.line || r.end_line == 0;
    uint32_t end_col = same_line ? std::max(r.end_col, r.col) : 0;
    std::string where = fmt::format("{}:{}:{}", f.path, r.line, r.col);
    if (same_line && end_col > r.col) where += fmt::format("-{}", end_col);
    out += fmt::format("{}: {}: {}\n", where, severity_name(d.severity), d.message);
    std::string_view line = f.line_text(r.line);
    // Very long lines (minified input, 1 MB lines) are cut around the range.
    constexpr size_t kMaxShown = 160;
    size_t first = 0;
    if (line.size() > kMaxShown && r.col > kMaxShown / 2) first = r.col - kMaxShown / 2;
    first = std::min(first, line.size());
    std::string shown = printable_line(line.substr(first, kMaxShown));
    out += shown + "\n";
    size_t start = r.col > first ? r.col - 1 - first : 0;
    size_t len =
        same_line ? (end_col >= r.col ? end_col - r.col + 1 : 1) : (line.size() >= r.col ? line.size() - r.col + 1 : 1);
    start = std::min(start, shown.size());
    len = std::max<size_t>(1, std::min(len, shown.size() + 1 - start));
    out += std::string(start, ' ') + std::string(len, '~') + "\n";
    if (std::string fix = fixit_line(d.fixits, first); !fix.empty()) out += fix + "\n";
  }
  for (const auto &h : d.hints) out += "hint: " + h + "\n";
  for (const auto &n : d.notes) render_into(out, n, sm);
}

// Optimal string alignment distance: like Levenshtein, but a swap of two neighbours
// ("bacth") costs one edit, the most common typo.
size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string render(const Diagnostic &d, const SourceManager &sm) {
  std::string out;
  render_into(out, d, sm);
  return out;
}

std::string render_all(const Diagnostics &ds, const SourceManager &sm) {
  std::string out;
  for (const auto &d : ds.all()) render_into(out, d, sm);
  return out;
}

std::string did_you_mean(const std::string &name, const std::vector<std::string> &candidates) {
  if (name.size() > 64) return {};  // no name is that long; don't spend O(n*m) on garbage
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto &c : candidates) {
    size_t d = edit_distance(name, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // Close enough: at most a third of the name wrong (and at least one edit allowed).
  size_t limit = std::max<size_t>(1, name.size() / 3);
  return best_d <= limit ? best : std::string();
}

}  // namespace bpfbench
