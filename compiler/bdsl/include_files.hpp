// The files `include` may bring in: .bdsl files only, each read once, within a budget.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/source.hpp"

namespace bpfbench {

// Budget of one parse (the main file and everything it includes, a file counted each
// time it is spliced in). Without it a tree where each file includes the next twice
// expands 2^depth times. 16 MiB matches the single-file limit: spliced together, a
// .bdsl program is bounded like one file.
inline constexpr size_t kMaxIncludeSites = 1024;
inline constexpr uint64_t kMaxSourceBytes = uint64_t{16} << 20;

struct IncludedFile {
  uint32_t id;      // in the SourceManager
  std::string key;  // canonical path, for the include stack
};

class IncludeFiles {
 public:
  IncludeFiles(SourceManager &sm, Diagnostics &diags) : sm_(sm), diags_(diags) {}

  // The main file's bytes count toward kMaxSourceBytes.
  void add_main(size_t bytes) { bytes_ += bytes; }

  // The file `inc` names (relative to the directory of `from`), or nullopt after a
  // located error. Refused before reading: names that are not `*.bdsl` (as written or
  // once symlinks are resolved), includes of a file on `stack` (canonical paths of the
  // files being parsed), and anything past the budget. Read with read_input_file (regular
  // files only); a file included again is not read again.
  std::optional<IncludedFile> open(const ast::Name &inc, const std::string &from,
                                   const std::vector<std::string> &stack);

  static std::string canonical_key(const std::string &path);

 private:
  bool within_budget(const ast::Name &inc, uint64_t more_bytes);

  SourceManager &sm_;
  Diagnostics &diags_;
  std::map<std::string, uint32_t> ids_;  // canonical path -> SourceManager id
  size_t sites_ = 0;
  uint64_t bytes_ = 0;
  bool exhausted_ = false;  // the budget error is reported once
};

}  // namespace bpfbench
