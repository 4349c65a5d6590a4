// Kernel modules for the initramfs: find them in a modules folder, read their dependencies
// from the ELF .modinfo section, and order them so each loads after what it needs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench::vm {

// The modules the guest needs for a 9p root with an overlay (what the stock Debian
// kernels lack built in varies: on 6.1 virtio is a module, on 6.12 it is built in).
const std::vector<std::string> &guest_modules();

// "9pnet-virtio" and "9pnet_virtio" are the same module.
std::string normalize_module_name(std::string name);

// The `depends=` list of a module's .modinfo section; nullopt when `elf` is not a
// 64-bit little-endian ELF with one.
std::optional<std::vector<std::string>> modinfo_depends(const std::string &elf);

struct LoadedModule {
  std::string name;
  std::string path;  // as found (may be compressed)
  std::string data;  // uncompressed .ko
};

struct ModulePlan {
  std::vector<LoadedModule> load_order;  // dependencies first
  std::vector<std::string> builtin;      // wanted or needed, but built into the kernel
};

// `modules_dir` is lib/modules/<release>. Reads modules.builtin when present; a wanted
// module that is neither a file nor built in is an error.
Result<ModulePlan> plan_modules(const std::string &modules_dir, const std::vector<std::string> &wanted);

}  // namespace bpfbench::vm
