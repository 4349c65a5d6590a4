// The precompiled vmlinux.h of a kernel: generated from its BTF (compiler/bpf/vmlinux_header.hpp),
// precompiled in the compile child, cached beside the objects as `<key>.vmlinux.pch`.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bpf/clang_compile.hpp"

namespace bpfbench {

struct VmlinuxOptions {
  std::string btf_path;   // "" = default_kernel_btf_path()
  std::string cache_dir;  // "" = default_cache_dir()
  bool use_cache = true;
  ChildLimits limits = kCompileLimits;
  const std::atomic<bool> *stop = nullptr;  // kills the precompile (may be null)
};

struct VmlinuxResult {
  std::optional<PrecompiledVmlinux> vmlinux;  // set on success
  std::string btf_path, btf_hash;             // what it was made from (hash "" = BTF unread)
  bool cached = false;                        // read from the cache, not built
  double build_seconds = 0;                   // generating and precompiling, when built
  std::string error;                          // why there is none ("" when there is)
  std::vector<CompileDiag> diags;             // clang's, when vmlinux.h did not precompile
  bool interrupted = false;                   // the stop flag ended the precompile
  std::string cache_warning;                  // it could not be stored: why
  std::string cache_repaired;                 // a cached one failed its check: why
};

// The key of the precompiled vmlinux.h of BTF `btf_hash`: it also covers libbpf (which
// writes the header), clang and the flags it is built with.
std::string vmlinux_pch_key(const std::string &btf_hash);

// Reads the BTF and hashes it; takes the cached PCH of that key when it passes its checks
// (key, BLAKE3 hash, sizes, clang's PCH magic), else generates vmlinux.h, precompiles it
// in the compile child and stores both. Never throws; a cache that cannot be written
// costs only time (cache_warning), a bad cache file is rebuilt and replaced.
VmlinuxResult prepare_vmlinux(const VmlinuxOptions &opts);

}  // namespace bpfbench
