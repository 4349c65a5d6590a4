// Compiles generated BPF C to a BPF ELF object with in-process clang, in a forked child.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/diagnostics.hpp"

namespace bpfbench {

// One clang diagnostic. `file`/`line`/`col` are the presumed location, so `#line N
// "x.bdsl"` directives in the generated C point them back at the .bdsl; line 0 = none.
struct CompileDiag {
  Severity severity = Severity::Error;
  std::string file;
  uint32_t line = 0, col = 0;
  std::string message;
};

struct CompileResult {
  bool ok = false;
  std::vector<uint8_t> object;     // BPF ELF (EM_BPF) when ok
  std::vector<CompileDiag> diags;  // errors + warnings (+ their notes) from clang
  std::string error;               // non-clang failure (fork, crash, pipe), "" otherwise
  bool cached = false;             // served from the cache
  std::string cache_key;           // hex hash
  std::string cache_warning;       // the object could not be cached: why ("" = cached or not asked)
};

struct CompileOptions {
  std::string virtual_name = "bpfbench.bpf.c";
  std::vector<std::string> extra_args;  // appended cc1 args (e.g. -D, -I)
  bool use_cache = true;
  std::string cache_dir;  // "" = default_cache_dir()
};

// Never throws and never lets a clang crash take the caller down: a crash in the child
// becomes `error = "clang crashed (signal N)"`.
CompileResult compile_bpf(const std::string &c_source, const CompileOptions &opts);

// "clang 19.1.7": the version compiled in, which is also part of every cache key.
std::string clang_version_string();

}  // namespace bpfbench
