// uprobe.multi links (kernel 6.6+) with libbpf 1.1, which predates them: the section
// name is given its program type before load, and the link is made with the raw
// BPF_LINK_CREATE command (libbpf 1.1 has no bpf_program__attach_uprobe_multi).
#pragma once

#include <cstdint>
#include <string>

#include "util/error.hpp"

struct bpf_object;

namespace bpfbench {

// BPF_TRACE_UPROBE_MULTI of enum bpf_attach_type (the <linux/bpf.h> here is older).
inline constexpr uint32_t kAttachTraceUprobeMulti = 48;

// Before load: programs of SEC("uprobe.multi[...]") / SEC("uretprobe.multi[...]") that
// libbpf did not recognize become kprobe programs expecting BPF_TRACE_UPROBE_MULTI.
void prepare_uprobe_multi_programs(bpf_object *obj);

// The offset in its file of `addr`, a function of this process (from /proc/self/maps).
Result<uint64_t> file_offset_of(const void *addr);

// A uprobe.multi (or, with `retprobe`, uretprobe.multi) link of `prog_fd` at `offset` of
// `binary`, every process; returns the link's fd (closing it detaches). The error is a
// BpfError (phase attach, the errno).
Result<int> create_uprobe_multi_link(int prog_fd, const std::string &binary, uint64_t offset, bool retprobe);

}  // namespace bpfbench
