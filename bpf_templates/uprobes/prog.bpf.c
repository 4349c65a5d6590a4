/* Uprobe/uretprobe triggering overhead, after the kernel's trigger bench uprobe variants:
 * producers call a function of the bpfbench binary in a loop (its first instruction a
 * nop, a push, just a ret, or the 5-byte nop; or a function holding a USDT probe); the
 * program attached to it counts. Emitted around this text (docs/families.md):
 * <linux/bpf.h>, <bpf/bpf_helpers.h>, bpfbench_shared.h and bb_tgid. */
#ifndef __VMLINUX_H__ /* inline C that includes vmlinux.h has the kernel's struct pt_regs */
#include <linux/ptrace.h>
#endif
/* usdt.bpf.h uses C99 bool; <stdbool.h> is clang's own header, which no shipped family
 * needs (docs/install.md: it is only recommended). */
#ifndef bool
#define bool _Bool
#endif
#include <bpf/usdt.bpf.h> /* the maps libbpf's USDT attach fills (usdt-* programs) */

char _license[] SEC("license") = "GPL";

struct bb_counter bb_hits[BB_MAX_CPUS] = {};

/* The probe is on a file, so every process running the same bpfbench binary hits it
 * (a parallel test run, say): count the bpfbench process only, unless pid_filter is off
 * (rodata: the verifier then drops the check), as in the kernel bench. */
/* Inline BPF C from the .bdsl (family.json "hooks"): `code globals { ... }` lands here
 * (maps, globals, helper functions); `code body { ... }` runs once per counted probe hit,
 * before it is counted, with the probe's registers as `ctx` (`return;` leaves it
 * uncounted). */
{{code_globals}}
static __always_inline void bb_hit(void *ctx)
{
{{code_body}}
	bb_inc(bb_hits);
}

static __always_inline void bb_count(void *ctx)
{
	if (!pid_filter || (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid)
		bb_hit(ctx);
}

/* uprobe and uretprobe (the attach kind decides). */
SEC("?uprobe")
int bench_uprobe(void *ctx)
{
	bb_count(ctx);
	return 0;
}

/* uprobe.multi and uretprobe.multi links (the return flag is the link's). */
SEC("?uprobe.multi")
int bench_uprobe_multi(void *ctx)
{
	bb_count(ctx);
	return 0;
}

SEC("?usdt")
int bench_usdt(void *ctx)
{
	bb_count(ctx);
	return 0;
}
