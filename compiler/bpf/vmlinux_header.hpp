// vmlinux.h for CO-RE: the kernel's BTF, read once and hashed, written out as C declarations
// with libbpf's btf_dump (what `bpftool btf dump file … format c` prints), in-process.
#pragma once

#include <optional>
#include <string>

#include "util/error.hpp"

namespace bpfbench {

inline constexpr const char *kKernelBtfPath = "/sys/kernel/btf/vmlinux";
// A test hook, documented in docs/families.md: another raw BTF file stands in for the
// running kernel's (a different BTF is a different vmlinux.h, PCH and object keys).
inline constexpr const char *kKernelBtfEnv = "BPFBENCH_VMLINUX_BTF";
// BTF of a distribution kernel is ~5-6 MiB; allyesconfig kernels stay far below this.
inline constexpr uint64_t kMaxBtfBytes = uint64_t{256} << 20;

// $BPFBENCH_VMLINUX_BTF when set and not empty, else /sys/kernel/btf/vmlinux.
std::string default_kernel_btf_path();

struct KernelBtf {
  std::string path;
  std::string bytes;  // raw BTF, as the kernel exports it
  std::string hash;   // hex BLAKE3 of `bytes` (32 bytes)
};

// Reads the BTF at `path` through the checked input path. On failure the error says why in
// a sentence that names the file: "/sys/kernel/btf/vmlinux is missing: there is no BTF to
// generate vmlinux.h from (a kernel built without CONFIG_DEBUG_INFO_BTF has none)",
// "cannot read the kernel's BTF '/tmp/x': is a FIFO, not a regular file".
Result<KernelBtf> read_kernel_btf(const std::string &path);

// The C text of vmlinux.h for `btf`: an include guard (__VMLINUX_H__), every struct and
// union marked preserve_access_index (unless BPF_NO_PRESERVE_ACCESS_INDEX) so field
// accesses are CO-RE relocations, and every type of the BTF. An error when libbpf cannot
// parse or dump it (saying which).
Result<std::string> vmlinux_header_text(const KernelBtf &btf);

// "libbpf 1.1": the dumper's version, part of the precompiled header's key (another
// libbpf may write the same BTF differently).
std::string btf_dump_version();

}  // namespace bpfbench
