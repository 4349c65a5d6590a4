// Attaching one kprobe.multi program to (almost) every traceable kernel function: the
// kernel bench's trig-kprobe-multi-all / trig-kretprobe-multi-all load. A program whose
// section pattern is "*" (SEC("kprobe.multi/*")) is attached this way, because libbpf 1.1
// would match "*" against /proc/kallsyms, which lists functions kprobes cannot attach to.
#pragma once

#include <string>
#include <vector>

#include "util/error.hpp"

struct bpf_program;
struct bpf_link;

namespace bpfbench {

// True for "kprobe.multi/*" and "kretprobe.multi/*" (with or without the leading '?').
bool is_kprobe_multi_all_section(const std::string &section);

// The function names of `available_filter_functions` text a kprobe.multi-all attaches to:
// vmlinux functions only (no "[module]" entries), each once, without the driver's helper
// bpf_get_numa_node_id (it has its own program) and without those fprobe must not trace
// (the kernel bench's skip list: arch_cpu_idle, default_idle, rcu_*,
// bpf_dispatcher_xdp_func, __ftrace_invalid_address__*).
std::vector<std::string> kprobe_multi_all_functions(const std::string &available_filter_functions);

// Attaches `prog` (kretprobe when `retprobe`) to every function above, read from tracefs.
Result<bpf_link *> attach_kprobe_multi_all(bpf_program *prog, bool retprobe);

}  // namespace bpfbench
