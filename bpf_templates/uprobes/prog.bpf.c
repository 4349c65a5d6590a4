/* Uprobe/uretprobe triggering overhead, after the kernel's trigger bench uprobe variants:
 * producers call a function of the bpfbench binary in a loop (its first instruction a
 * nop, a push, or just a ret); the program attached to it counts. Emitted around this
 * text (docs/families.md): <linux/bpf.h>, <bpf/bpf_helpers.h>, bpfbench_shared.h and
 * bb_tgid. */

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

SEC("?uprobe")
int bench_uprobe(void *ctx)
{
	if (!pid_filter || (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid)
		bb_hit(ctx);
	return 0;
}
