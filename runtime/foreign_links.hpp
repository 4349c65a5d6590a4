// BPF programs not ours on the hooks a point uses. The links this process holds name the
// hooks: a raw tracepoint's name; a perf link's tracepoint, kprobe function or uprobe file
// (kernels from 6.6 on say which); an uprobe.multi link's file (from 6.8 on); a tracing
// link's target (fentry/fexit). Every other link in the system on one of them is foreign.
// Programs attached without a link (the perf_event ioctl of old tools) are not seen.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/interference.hpp"

namespace bpfbench {

struct LinkHook {
  uint32_t id = 0, prog_id = 0;
  std::string hook;  // "tracepoint sys_enter", "kprobe f", "uprobe /bin/x", "fentry/fexit btf 1:123"; "" = not told
  std::string kind;  // the link's kind, for what cannot be compared ("perf_event", "kprobe_multi")
};

// The hook of the link `fd`; empty `hook` when the kernel does not say, or for kinds that
// hook no kernel event (cgroup, xdp, ...).
LinkHook link_hook(int fd);

// The links this process holds (its fds, /proc/self/fdinfo), each once.
std::vector<LinkHook> own_links();

// Whether a program on `theirs` runs where our program on `ours` does: the same hook, or
// the raw sys_enter/sys_exit tracepoint that feeds a syscall tracepoint of ours
// ("tracepoint sys_enter_getpgid" is reached through "tracepoint sys_enter").
bool hooks_overlap(const std::string &ours, const std::string &theirs);

// The links in the system not in `own` whose hook overlaps one of `own`'s, with their
// program's name and the processes that hold them.
std::vector<ForeignProgram> foreign_programs(const std::vector<LinkHook> &own);

}  // namespace bpfbench
