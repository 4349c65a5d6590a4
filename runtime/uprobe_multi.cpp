#include "runtime/uprobe_multi.hpp"

#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace bpfbench {
namespace {

// The head of union bpf_attr's link_create and its uprobe_multi member, laid out as in
// the kernel's uapi (6.6+): the kernel zero-extends a shorter attr.
struct UprobeMultiLinkAttr {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint64_t path;
  uint64_t offsets;
  uint64_t ref_ctr_offsets;
  uint64_t cookies;
  uint32_t cnt;
  uint32_t multi_flags;  // BPF_F_UPROBE_MULTI_RETURN = 1
  uint32_t pid;          // 0: every process
};
static_assert(offsetof(UprobeMultiLinkAttr, path) == 16 && offsetof(UprobeMultiLinkAttr, pid) == 56);

bool starts_with(const char *s, const char *prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

}  // namespace

void prepare_uprobe_multi_programs(bpf_object *obj) {
  bpf_program *p;
  bpf_object__for_each_program(p, obj) {
    const char *sec = bpf_program__section_name(p);
    if (!sec || bpf_program__type(p) != BPF_PROG_TYPE_UNSPEC) continue;
    if (*sec == '?') ++sec;
    if (!starts_with(sec, "uprobe.multi") && !starts_with(sec, "uretprobe.multi")) continue;
    bpf_program__set_type(p, BPF_PROG_TYPE_KPROBE);
    bpf_program__set_expected_attach_type(p, static_cast<bpf_attach_type>(kAttachTraceUprobeMulti));
  }
}

Result<uint64_t> file_offset_of(const void *addr) {
  FILE *f = std::fopen("/proc/self/maps", "re");
  if (!f) return Error("cannot open /proc/self/maps: " + errno_text(errno));
  const auto a = reinterpret_cast<uintptr_t>(addr);
  char line[512];
  while (std::fgets(line, sizeof(line), f)) {
    uintptr_t start = 0, end = 0;
    uint64_t off = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %" SCNx64, &start, &end, perms, &off) != 4) continue;
    if (a < start || a >= end) continue;
    std::fclose(f);
    if (perms[2] != 'x') return Error("the uprobe target is not in an executable mapping");
    return a - start + off;
  }
  std::fclose(f);
  return Error("the uprobe target is in no mapping of /proc/self/maps");
}

Result<int> create_uprobe_multi_link(int prog_fd, const std::string &binary, uint64_t offset, bool retprobe) {
  UprobeMultiLinkAttr attr{};
  attr.prog_fd = static_cast<uint32_t>(prog_fd);
  attr.attach_type = kAttachTraceUprobeMulti;
  attr.path = reinterpret_cast<uintptr_t>(binary.c_str());
  attr.offsets = reinterpret_cast<uintptr_t>(&offset);
  attr.cnt = 1;
  attr.multi_flags = retprobe ? 1u : 0u;
  long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
  if (fd < 0) {
    return BpfError{BpfPhase::Attach, errno, "BPF_LINK_CREATE (uprobe.multi) failed", ""};
  }
  return static_cast<int>(fd);
}

}  // namespace bpfbench
