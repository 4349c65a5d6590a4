/* Cost of a BPF program on task renames, after the kernel's rename bench: the producer
 * writes a name to a /proc comm file (producer `rename`, param `comm`), which calls
 * __set_task_comm() and fires the task_rename tracepoint; the programs hook one or the
 * other. The rate is the producers' (user-space) count; bb_runs counts program runs for
 * the self-check. Emitted around this text (docs/families.md): <linux/bpf.h>,
 * <bpf/bpf_helpers.h>, bpfbench_shared.h, bb_tgid and the rodata params. */

char _license[] SEC("license") = "GPL";

struct bb_counter bb_runs[BB_MAX_CPUS] = {};

/* count_runs and pid_filter are rodata: with count_runs off the verifier drops it all and
 * the programs are as empty as the kernel bench's. */
static __always_inline void bb_run(void)
{
	if (count_runs && (!pid_filter || (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid))
		bb_inc(bb_runs);
}

SEC("?kprobe/__set_task_comm")
int bench_kprobe(void *ctx)
{
	bb_run();
	return 0;
}

SEC("?kretprobe/__set_task_comm")
int bench_kretprobe(void *ctx)
{
	bb_run();
	return 0;
}

SEC("?raw_tp/task_rename")
int bench_rawtp(struct bpf_raw_tracepoint_args *ctx)
{
	bb_run();
	return 0;
}

SEC("?fentry/__set_task_comm")
int bench_fentry(void *ctx)
{
	bb_run();
	return 0;
}

SEC("?fexit/__set_task_comm")
int bench_fexit(void *ctx)
{
	bb_run();
	return 0;
}
