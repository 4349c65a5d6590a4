// Functions in the bpfbench binary that uprobe benchmarks attach to and producers call.
#pragma once

extern "C" {
// First instruction a nop (uprobes on nops are emulated cheaply).
void bpfbench_uprobe_target_nop(void);
// First instruction a push (a real frame): uprobes must single-step or emulate it.
void bpfbench_uprobe_target_push(void);
// Just a ret.
void bpfbench_uprobe_target_ret(void);
// First instruction the 5-byte nop (x86-64; a 1-byte nop elsewhere).
void bpfbench_uprobe_target_nop5(void);
// Each holds one USDT probe, provider "bpfbench", name "usdt_nop" (sys/sdt.h's 1-byte
// nop) or "usdt_nop5" (the 5-byte nop), in runtime/usdt_targets.cpp.
void bpfbench_usdt_target_nop(void);
void bpfbench_usdt_target_nop5(void);
}

namespace bpfbench {
// The symbol names, as families write them in a program's `target`.
inline constexpr const char *kUprobeTargetNop = "bpfbench_uprobe_target_nop";
inline constexpr const char *kUprobeTargetPush = "bpfbench_uprobe_target_push";
inline constexpr const char *kUprobeTargetRet = "bpfbench_uprobe_target_ret";
inline constexpr const char *kUprobeTargetNop5 = "bpfbench_uprobe_target_nop5";
inline constexpr const char *kUsdtTargetNop = "bpfbench:usdt_nop";  // USDT provider:name

// The address of a target function by its symbol name (the five functions above), or
// nullptr: uprobe.multi attaches by file offset, computed from where it is mapped.
void *uprobe_target_address(const char *name);

// Whether the USDT probes were built in (sys/sdt.h was there at build time).
bool usdt_targets_built();
}  // namespace bpfbench
