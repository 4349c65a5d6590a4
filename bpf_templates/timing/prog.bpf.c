/* Cost of taking timestamps in BPF, after the ktime vs cpu-cycles kfunc bench: each
 * getpgid() of the bpfbench process (raw_tp/sys_enter, as the seed switched to) takes
 * batch_iters pairs of timestamps and sums their differences. The cycle/time-counter
 * kfuncs are weak: the object loads without them, and their programs `require` them.
 * Emitted around this text (docs/families.md): the shared header, bb_tgid, batch_iters. */
#include <asm/unistd.h>

char _license[] SEC("license") = "GPL";

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
/* `latency_hist`: every pair's difference in a log2 histogram (bpfbench_shared.h). */
{{#latency_hist}}
struct bb_hist bb_lat_hist[BB_MAX_CPUS] = {};
#define BB_LAT_HIST bb_lat_hist
{{/latency_hist}}
{{^latency_hist}}
#define BB_LAT_HIST BB_NO_HIST
{{/latency_hist}}

extern __u64 bpf_get_cpu_cycles(void) __ksym __weak;
extern __u64 bpf_cpu_cycles_to_ns(__u64 cycles) __ksym __weak;
extern __u64 bpf_get_cpu_time_counter(void) __ksym __weak;
extern __u64 bpf_cpu_time_counter_to_ns(__u64 counter) __ksym __weak;

static __always_inline int bb_triggered(struct bpf_raw_tracepoint_args *ctx)
{
	return ctx->args[1] == __NR_getpgid &&
	       (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid;
}

SEC("?raw_tp/sys_enter")
int bench_ktime(struct bpf_raw_tracepoint_args *ctx)
{
	volatile __u64 total = 0; /* volatile: the sums must happen */

	if (!bb_triggered(ctx))
		return 0;
	for (__u32 i = 0; i < batch_iters; i++) {
		BB_TIME_BEGIN(start);

		total += BB_TIME_END(start);
	}
	bb_add(bb_hits, batch_iters);
	return 0;
}

SEC("?raw_tp/sys_enter")
int bench_cycles(struct bpf_raw_tracepoint_args *ctx)
{
	volatile __u64 total = 0;

	if (!bb_triggered(ctx))
		return 0;
	for (__u32 i = 0; i < batch_iters; i++) {
		__u64 start = bpf_get_cpu_cycles();
		__u64 end = bpf_get_cpu_cycles();

		__u64 ns = bpf_cpu_cycles_to_ns(end - start);

		total += ns;
		BB_HIST_ADD(ns);
	}
	bb_add(bb_hits, batch_iters);
	return 0;
}

SEC("?raw_tp/sys_enter")
int bench_time_counter(struct bpf_raw_tracepoint_args *ctx)
{
	volatile __u64 total = 0;

	if (!bb_triggered(ctx))
		return 0;
	for (__u32 i = 0; i < batch_iters; i++) {
		__u64 start = bpf_get_cpu_time_counter();
		__u64 end = bpf_get_cpu_time_counter();

		__u64 ns = bpf_cpu_time_counter_to_ns(end - start);

		total += ns;
		BB_HIST_ADD(ns);
	}
	bb_add(bb_hits, batch_iters);
	return 0;
}
