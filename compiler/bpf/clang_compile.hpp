// Compiles generated BPF C to a BPF ELF object with in-process clang, in a forked child.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/bdsl/diagnostics.hpp"
#include "util/limited_child.hpp"

namespace bpfbench {

// A fix-it clang attached to a diagnostic: `text` replaces columns col..end_col of
// `line` (inclusive; end_col < col inserts it before col).
struct CompileFixIt {
  uint32_t line = 0, col = 0, end_col = 0;
  std::string text;
};

// One message clang's own printer would print: an error or warning, or a note (its own,
// like "'utime' declared here", or the printer's: "expanded from macro 'X'", "in file
// included from here"); a note belongs to the error or warning before it.
// `file`/`line`/`col` are the presumed location, so `#line N "x.bdsl"` directives in the
// generated C point them back at the .bdsl; line 0 = none. `end_col` (0 = none): the last
// column of the source range clang underlines around `col` on that line.
struct CompileDiag {
  Severity severity = Severity::Error;
  std::string file;
  uint32_t line = 0, col = 0;
  std::string message;
  uint32_t end_col = 0;
  std::vector<CompileFixIt> fixits;
};

struct CompileResult {
  bool ok = false;
  std::vector<uint8_t> object;     // BPF ELF (EM_BPF) when ok
  std::vector<CompileDiag> diags;  // errors + warnings (+ their notes) from clang
  std::string error;               // non-clang failure (fork, crash, pipe, a limit), "" otherwise
  bool interrupted = false;        // the stop flag ended the compile (the child is killed)
  bool cached = false;             // served from the cache
  std::string cache_key;           // hex hash
  std::string cache_warning;       // the object could not be cached: why ("" = cached or not asked)
  std::string cache_repaired;      // a cached object failed its check and was replaced: why
};

// The limits of the compile child (docs/security.md). Measured here: the compile of
// every shipped example takes at most 0.044 s CPU and 64 MiB peak RSS (the inherited
// pages included); these only end a runaway compile (a macro bomb in inline code, an
// include of a FIFO).
inline constexpr ChildLimits kCompileLimits{
    .memory_bytes = uint64_t{1} << 30,
    .cpu_seconds = 60,
    .wall_seconds = 120,
};

// vmlinux.h for CO-RE, precompiled (compiler/bpf/vmlinux_pch.hpp). A compile given one
// includes the PCH before its C (clang's -include-pch), and `#include <vmlinux.h>` finds
// the header's text at kVmlinuxHeaderPath; both are handed to clang in memory.
struct PrecompiledVmlinux {
  std::string key;     // covers the BTF, clang and the flags; part of every object key
  std::string header;  // vmlinux.h
  std::string pch;     // clang's precompiled form of it
};
// A folder that exists only in the compile's file system: `-I` of every compile that uses
// vmlinux.h (so `<vmlinux.h>` and "vmlinux.h" find it) and the name clang records.
inline constexpr const char *kVmlinuxDir = "/bpfbench-generated";
inline constexpr const char *kVmlinuxHeaderPath = "/bpfbench-generated/vmlinux.h";
inline constexpr const char *kVmlinuxPchPath = "/bpfbench-generated/vmlinux.h.pch";

struct CompileOptions {
  std::string virtual_name = "bpfbench.bpf.c";
  std::vector<std::string> extra_args;  // appended cc1 args (e.g. -D, -I)
  bool use_cache = true;
  std::string cache_dir;  // "" = default_cache_dir()
  ChildLimits limits = kCompileLimits;
  // Polled while the child compiles: when set, the child is killed and the result is
  // `interrupted` (may be null).
  const std::atomic<bool> *stop = nullptr;
  // Set when the C includes vmlinux.h (it must then not include <linux/bpf.h>).
  const PrecompiledVmlinux *vmlinux = nullptr;
};

// Never throws and never lets a clang crash take the caller down: a crash in the child
// becomes `error = "clang crashed (signal N)"`.
CompileResult compile_bpf(const std::string &c_source, const CompileOptions &opts);

// compile_bpf in three steps, for a caller that compiles several programs side by side
// (compiler/pipeline.cpp). cached_compile: the cache lookup (ok and `cached` on a hit;
// else not ok, with `cache_key` and any `cache_repaired`). compile_uncached: the compile
// in the child, which is the only step to run on several threads at once: its parent
// side builds strings, forks and waits (the lookup parses the cached object with LLVM and
// stays on one thread). store_compiled: takes the lookup's key and repair note into the
// compile's result and caches a clean compile (sets `cache_warning`).
CompileResult cached_compile(const std::string &c_source, const CompileOptions &opts);
CompileResult compile_uncached(const std::string &c_source, const CompileOptions &opts);
void store_compiled(CompileResult &r, CompileResult &&probe, const CompileOptions &opts);

// "clang 19.1.7": the version compiled in, which is also part of every cache key.
std::string clang_version_string();

// Precompiles `header` (vmlinux.h's text) in the compile child, with the flags every
// compile uses (so each can include the result) and opts' limits and stop flag; the PCH
// is `object` when ok. Nothing is cached here (compiler/bpf/vmlinux_pch.hpp caches it).
CompileResult build_vmlinux_pch(const std::string &header, const CompileOptions &opts);

// The cc1 arguments of that build: what a precompiled vmlinux.h's key covers.
std::vector<std::string> vmlinux_pch_args();

}  // namespace bpfbench
