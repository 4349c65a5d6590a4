// The names family.json gives the BPF object's globals and maps, checked against each
// compiled object: a typo (`counter:bb_cals`) is an error at its family.json line and column
// at `check --compile` and before `run` loads anything, not a failed point at the .bdsl.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"

#include "util/error.hpp"

namespace bpfbench {

// The data symbols of a BPF ELF object (globals and maps): name -> the section holding it
// (".bss", ".data", ".rodata", ".maps", ...). An error (LLVM's) when it is no ELF object.
Result<std::map<std::string, std::string>> read_object_globals(const std::vector<uint8_t> &elf);

class ObjectRefChecker {
 public:
  ObjectRefChecker(SourceManager &sources, Diagnostics &diags) : sources_(sources), diags_(diags) {}

  // Checks the object refs of `f` that points of `program` use (the family's, except the
  // metric sources `program` overrides, and the program's own) against `elf`, the object
  // compiled for them (`object_name` names it in messages). Each ref is reported once.
  void check(const FamilyManifest &f, const std::string &program, const std::vector<uint8_t> &elf,
             const std::string &object_name);

 private:
  void report(const FamilyManifest &f, size_t ref, const std::map<std::string, std::string> &globals,
              const std::string &object_name);

  SourceManager &sources_;
  Diagnostics &diags_;
  std::map<std::string, uint32_t> files_;              // family -> its manifest's id in sources_
  std::set<std::pair<std::string, size_t>> reported_;  // (family, index in object_refs)
};

}  // namespace bpfbench
