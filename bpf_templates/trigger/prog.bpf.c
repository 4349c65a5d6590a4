/* BPF triggering overhead, after the kernel's trigger bench: how fast can a program of
 * each attach kind be made to run? Syscall-driven variants hook getpgid(); batched
 * variants run a driver through BPF_PROG_TEST_RUN that calls a cheap helper (or the
 * bpf_modify_return_test_tp kfunc) batch_iters times, and the benchmarked program is
 * attached to that helper/kfunc/tracepoint. Emitted around this text (docs/families.md):
 * <linux/bpf.h>, <bpf/bpf_helpers.h>, bpfbench_shared.h, bb_tgid and the rodata param
 * batch_iters. */
#include <asm/unistd.h>

char _license[] SEC("license") = "GPL";

/* Every program run the benchmark exists to count. */
struct bb_counter bb_hits[BB_MAX_CPUS] = {};

/* Inline BPF C from the .bdsl (family.json "hooks"): `code globals { ... }` lands here
 * (maps, globals, helper functions); `code body { ... }` runs once per counted hit, before
 * it is counted, with the program's context as `ctx` (`return;` leaves it uncounted). */
{{code_globals}}
static __always_inline void bb_hit(void *ctx)
{
{{code_body}}
	bb_inc(bb_hits);
}

/* The kfunc behind the bpf_test_run:bpf_trigger_tp tracepoint (6.10+); weak so the
 * object still loads where it is missing (programs using it `require` it). */
extern int bpf_modify_return_test_tp(int nonce) __ksym __weak;

/* Syscall tracepoints fire for every process: count only the bpfbench process. */
static __always_inline int bb_ours(void)
{
	/* pid_filter is rodata: with it off the verifier drops the check. */
	return !pid_filter || (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid;
}

/* --- syscall-driven ---------------------------------------------------------------- */

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_tp(void *ctx)
{
	if (bb_ours())
		bb_hit(ctx);
	return 0;
}

/* raw_tp/sys_enter sees every syscall: args[1] is the syscall number. */
SEC("?raw_tp/sys_enter")
int bench_rawtp(struct bpf_raw_tracepoint_args *ctx)
{
	if (ctx->args[1] == __NR_getpgid && bb_ours())
		bb_hit(ctx);
	return 0;
}

/* --- drivers (run with BPF_PROG_TEST_RUN) ------------------------------------------ */

SEC("?raw_tp")
int bench_driver(void *ctx)
{
	for (__u32 i = 0; i < batch_iters; i++)
		(void)bpf_get_numa_node_id(); /* the attach point of the batched variants */
	return 0;
}

SEC("?raw_tp")
int bench_driver_kfunc(void *ctx)
{
	for (__u32 i = 0; i < batch_iters; i++)
		(void)bpf_modify_return_test_tp(0); /* fires bpf_trigger_tp; fmod_ret target */
	return 0;
}

/* The limit: a loop that only counts, nothing called or attached (the kernel bench's
 * trig-kernel-count; a helper call per iteration here cost a third of its rate). */
SEC("?raw_tp")
int bench_kernel_count(void *ctx)
{
	for (__u32 i = 0; i < batch_iters; i++)
		bb_hit(ctx);
	return 0;
}

/* --- attached to the driver's helper ---------------------------------------------- */

SEC("?kprobe/bpf_get_numa_node_id")
int bench_kprobe(void *ctx)
{
	bb_hit(ctx);
	return 0;
}

SEC("?kretprobe/bpf_get_numa_node_id")
int bench_kretprobe(void *ctx)
{
	bb_hit(ctx);
	return 0;
}

SEC("?kprobe.multi/bpf_get_numa_node_id")
int bench_kprobe_multi(void *ctx)
{
	bb_hit(ctx);
	return 0;
}

SEC("?kretprobe.multi/bpf_get_numa_node_id")
int bench_kretprobe_multi(void *ctx)
{
	bb_hit(ctx);
	return 0;
}

/* Empty programs for the *-multi-all variants: the section pattern "*" is attached to
 * every function of available_filter_functions but the driver's helper (and the kernel
 * bench's skip list; runtime/kprobe_multi_all.cpp), so each helper call also pays for
 * fprobe's lookup among them all. */
SEC("?kprobe.multi/*")
int bench_kprobe_multi_empty(void *ctx)
{
	return 0;
}

SEC("?kretprobe.multi/*")
int bench_kretprobe_multi_empty(void *ctx)
{
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int bench_fentry(void *ctx)
{
	bb_hit(ctx);
	return 0;
}

SEC("?fexit/bpf_get_numa_node_id")
int bench_fexit(void *ctx)
{
	bb_hit(ctx);
	return 0;
}

/* --- attached to the kfunc driver -------------------------------------------------- */

SEC("?fmod_ret/bpf_modify_return_test_tp")
int bench_fmodret(void *ctx)
{
	bb_hit(ctx);
	return -22; /* -EINVAL: a modified return, as the kernel bench does */
}

SEC("?tp/bpf_test_run/bpf_trigger_tp")
int bench_tp_kfunc(void *ctx)
{
	bb_hit(ctx);
	return 0;
}

SEC("?raw_tp/bpf_trigger_tp")
int bench_rawtp_kfunc(void *ctx)
{
	bb_hit(ctx);
	return 0;
}
