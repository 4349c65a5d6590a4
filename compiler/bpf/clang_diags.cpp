#include "compiler/bpf/clang_diags.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/DiagnosticRenderer.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/SmallString.h>

namespace bpfbench {

namespace {

Severity severity_of(clang::DiagnosticsEngine::Level level) {
  switch (level) {
  case clang::DiagnosticsEngine::Warning: return Severity::Warning;
  case clang::DiagnosticsEngine::Error:
  case clang::DiagnosticsEngine::Fatal: return Severity::Error;
  default: return Severity::Note;
  }
}

// The columns a range covers on `line` of `fid` (inclusive; a token range ends at its
// last token's last character), or nullopt when it is elsewhere.
std::optional<std::pair<unsigned, unsigned>> columns_on(const clang::CharSourceRange &r, clang::FileID fid,
                                                        unsigned line, const clang::SourceManager &sm,
                                                        const clang::LangOptions &lo) {
  clang::SourceLocation b = r.getBegin(), e = r.getEnd();
  if (b.isInvalid() || e.isInvalid() || b.isMacroID() || e.isMacroID()) return std::nullopt;
  if (sm.getFileID(b) != fid || sm.getFileID(e) != fid) return std::nullopt;
  if (sm.getSpellingLineNumber(b) != line || sm.getSpellingLineNumber(e) != line) return std::nullopt;
  unsigned bc = sm.getSpellingColumnNumber(b), ec = sm.getSpellingColumnNumber(e);
  if (r.isTokenRange()) {
    unsigned len = clang::Lexer::MeasureTokenLength(e, sm, lo);
    ec += len > 0 ? len - 1 : 0;
  } else {
    ec = ec > 0 ? ec - 1 : 0;  // a character range ends before its end
  }
  return std::make_pair(bc, ec);
}

// clang's renderer walks the include stack and the macro expansions of a diagnostic and
// calls these for each message it would print; each becomes a CompileDiag.
class DataRenderer final : public clang::DiagnosticRenderer {
 public:
  DataRenderer(const clang::LangOptions &lo, clang::DiagnosticOptions *opts, std::vector<CompileDiag> &out)
      : DiagnosticRenderer(lo, opts),
        out_(out) {}

 protected:
  void emitDiagnosticMessage(clang::FullSourceLoc, clang::PresumedLoc ploc, clang::DiagnosticsEngine::Level level,
                             llvm::StringRef message, llvm::ArrayRef<clang::CharSourceRange>,
                             clang::DiagOrStoredDiag) override {
    CompileDiag d;
    d.severity = severity_of(level);
    d.message = message.str();
    if (ploc.isValid()) {
      d.file = ploc.getFilename();
      d.line = ploc.getLine();
      d.col = ploc.getColumn();
    }
    out_.push_back(std::move(d));
  }

  void emitDiagnosticLoc(clang::FullSourceLoc, clang::PresumedLoc, clang::DiagnosticsEngine::Level,
                         llvm::ArrayRef<clang::CharSourceRange>) override {}

  // Called right after the message it belongs to: the underlined range around the caret
  // and the fix-its (located by clang's own mapping out of macro arguments).
  void emitCodeContext(clang::FullSourceLoc loc, clang::DiagnosticsEngine::Level,
                       llvm::SmallVectorImpl<clang::CharSourceRange> &ranges,
                       llvm::ArrayRef<clang::FixItHint> hints) override {
    if (out_.empty() || loc.isInvalid() || !loc.isFileID()) return;
    CompileDiag &d = out_.back();
    const clang::SourceManager &sm = loc.getManager();
    const clang::FileID fid = sm.getFileID(loc);
    const unsigned line = sm.getSpellingLineNumber(loc), caret = sm.getSpellingColumnNumber(loc);
    // The caret stays clang's column; a range that starts there is underlined with it
    // (the member in "no member named 'x'"; one elsewhere on the line is not shown).
    for (const auto &r : ranges) {
      auto c = columns_on(r, fid, line, sm, LangOpts);
      if (c && c->first == caret && c->second > caret) d.end_col = std::max<unsigned>(d.end_col, c->second);
    }
    for (const auto &h : hints) {
      clang::SourceLocation b = h.RemoveRange.getBegin();
      if (b.isInvalid() || b.isMacroID() || sm.getFileID(b) != fid) continue;
      unsigned hl = sm.getSpellingLineNumber(b);
      auto c = columns_on(h.RemoveRange, fid, hl, sm, LangOpts);
      if (!c) continue;
      // The presumed line: the same shift as the caret's (#line moves whole lines).
      d.fixits.push_back(CompileFixIt{d.line + hl - line, c->first, c->second, h.CodeToInsert});
    }
  }

  // clang prints the include stack above the message; here it follows it, as notes.
  void emitIncludeLocation(clang::FullSourceLoc, clang::PresumedLoc ploc) override {
    if (ploc.isInvalid()) return;
    includes_.push_back(CompileDiag{
        Severity::Note, ploc.getFilename(), ploc.getLine(), ploc.getColumn(), "in file included from here", 0, {}});
  }
  void emitImportLocation(clang::FullSourceLoc, clang::PresumedLoc, llvm::StringRef) override {}
  void emitBuildingModuleLocation(clang::FullSourceLoc, clang::PresumedLoc, llvm::StringRef) override {}

  void beginDiagnostic(clang::DiagOrStoredDiag, clang::DiagnosticsEngine::Level) override {
    // Each error keeps its include stack, not only the first one in the header: they are
    // shown apart (and once each) by the caller.
    LastIncludeLoc = clang::SourceLocation();
  }
  void endDiagnostic(clang::DiagOrStoredDiag, clang::DiagnosticsEngine::Level) override {
    out_.insert(out_.end(), includes_.begin(), includes_.end());
    includes_.clear();
  }

 private:
  std::vector<CompileDiag> &out_;
  std::vector<CompileDiag> includes_;
};

class CollectingConsumer final : public clang::DiagnosticConsumer {
 public:
  explicit CollectingConsumer(std::vector<CompileDiag> &out)
      : out_(out),
        opts_(llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>()) {
    opts_->ShowPresumedLoc = true;  // honour `#line N "x.bdsl"`
  }

  void BeginSourceFile(const clang::LangOptions &lo, const clang::Preprocessor *) override {
    renderer_ = std::make_unique<DataRenderer>(lo, opts_.get(), out_);
  }
  void EndSourceFile() override { renderer_.reset(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level == clang::DiagnosticsEngine::Ignored) return;
    llvm::SmallString<256> msg;
    info.FormatDiagnostic(msg);
    if (!renderer_ || !info.hasSourceManager() || info.getLocation().isInvalid()) {
      // Before a source file (the arguments) or without a place: the message alone.
      out_.push_back(CompileDiag{severity_of(level), "", 0, 0, msg.str().str(), 0, {}});
      return;
    }
    renderer_->emitDiagnostic(clang::FullSourceLoc(info.getLocation(), info.getSourceManager()), level, msg,
                              info.getRanges(), info.getFixItHints(), &info);
  }

 private:
  std::vector<CompileDiag> &out_;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> opts_;
  std::unique_ptr<DataRenderer> renderer_;
};

}  // namespace

std::unique_ptr<clang::DiagnosticConsumer> collecting_consumer(std::vector<CompileDiag> &out) {
  return std::make_unique<CollectingConsumer>(out);
}

}  // namespace bpfbench
