// Functions in the bpfbench binary that uprobe benchmarks attach to and producers call.
#pragma once

extern "C" {
// First instruction a nop (uprobes on nops are emulated cheaply).
void bpfbench_uprobe_target_nop(void);
// First instruction a push (a real frame): uprobes must single-step or emulate it.
void bpfbench_uprobe_target_push(void);
// Just a ret.
void bpfbench_uprobe_target_ret(void);
}

namespace bpfbench {
// The symbol names, as families write them in a program's `target`.
inline constexpr const char *kUprobeTargetNop = "bpfbench_uprobe_target_nop";
inline constexpr const char *kUprobeTargetPush = "bpfbench_uprobe_target_push";
inline constexpr const char *kUprobeTargetRet = "bpfbench_uprobe_target_ret";
}  // namespace bpfbench
