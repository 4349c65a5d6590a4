/* Structs and constants both the BPF templates and the bpfbench runtime read.
 * Included by every generated program (the emitter inlines it) and by runtime/. */
#ifndef BPFBENCH_SHARED_H
#define BPFBENCH_SHARED_H

/* With vmlinux.h (the emitter puts it first when a template or inline C includes it) the
 * __u32 & co. are the kernel's, and linux/types.h would declare some of them again. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Per-CPU counter slots: one cache-line pair each, so CPUs never false-share.
 * The runtime reads them with an atomic exchange, so each read is one interval's delta. */
#define BB_MAX_CPUS 256
#define BB_COUNTER_ALIGN 128

struct bb_counter {
	__u64 value;
} __attribute__((aligned(BB_COUNTER_ALIGN)));

/* A metric with source "counter:<var>" is a global `struct bb_counter <var>[BB_MAX_CPUS]`
 * in .bss; the runtime sums the slots. */

#ifdef __bpf__
static __always_inline void bb_add(struct bb_counter *slots, __u64 n)
{
	__u32 cpu = bpf_get_smp_processor_id() & (BB_MAX_CPUS - 1);

	__sync_fetch_and_add(&slots[cpu].value, n);
}
#define bb_inc(slots) bb_add(slots, 1)
#endif

/* Latency histograms: per CPU, BB_HIST_BUCKETS log2 buckets of nanoseconds. Bucket 0
 * holds 0, bucket k >= 1 the values [2^(k-1), 2^k), the last one everything above
 * (results/histogram.hpp reads them the same way). A template that times an operation
 * declares `struct bb_hist bb_lat_hist[BB_MAX_CPUS]` in .bss and defines BB_LAT_HIST as
 * it, or as BB_NO_HIST when the histogram is off (then the macros only time):
 *
 *   BB_TIME_BEGIN(t0);            // __u64 t0 = bpf_ktime_get_ns()
 *   ... the operation ...
 *   ns = BB_TIME_END(t0);         // bpf_ktime_get_ns() - t0, counted in BB_LAT_HIST
 *
 * BB_HIST_ADD(ns) counts a duration taken another way (a cycle counter). The runtime
 * reads bb_lat_hist when the object has it (the measured part only). */
#define BB_HIST_BUCKETS 64

struct bb_hist {
	__u64 buckets[BB_HIST_BUCKETS];
} __attribute__((aligned(BB_COUNTER_ALIGN)));

#define BB_NO_HIST ((struct bb_hist *)0)

#ifdef __bpf__
/* floor(log2(v)) + 1 for v > 0, 0 for 0: a branch-free binary search (BPF has no clz). */
static __always_inline __u32 bb_hist_bucket(__u64 v)
{
	__u32 r = 0, shift;

	if (!v)
		return 0;
	shift = (v > 0xffffffffULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xffff) << 4; v >>= shift; r |= shift;
	shift = (v > 0xff) << 3; v >>= shift; r |= shift;
	shift = (v > 0xf) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (__u32)(v >> 1);
	r += 1;
	return r < BB_HIST_BUCKETS ? r : BB_HIST_BUCKETS - 1;
}

static __always_inline void bb_hist_add(struct bb_hist *h, __u64 ns)
{
	__u32 cpu, b;

	if (!h)
		return;
	cpu = bpf_get_smp_processor_id() & (BB_MAX_CPUS - 1);
	b = bb_hist_bucket(ns) & (BB_HIST_BUCKETS - 1);
	__sync_fetch_and_add(&h[cpu].buckets[b], 1);
}

static __always_inline __u64 bb_time_end(__u64 start, struct bb_hist *h)
{
	__u64 ns = bpf_ktime_get_ns() - start;

	bb_hist_add(h, ns);
	return ns;
}

#define BB_TIME_BEGIN(t) __u64 t = bpf_ktime_get_ns()
#define BB_TIME_END(t) bb_time_end((t), BB_LAT_HIST)
#define BB_HIST_ADD(ns) bb_hist_add(BB_LAT_HIST, (ns))
#endif

/* In-BPF batch timing (runtime/batch_timing.hpp; after the kernel bench's bench_bpf_timing):
 * a program runs an operation bb_batch_iters times between two bpf_ktime_get_ns() reads,
 * keeps the elapsed time as one sample (at most BB_BATCH_SAMPLES per CPU, while the runtime
 * has bb_batch_on set: the measured part), then runs it once more, untimed, and returns
 * that run's value, so a validation run can check it. The runtime sets bb_batch_iters
 * (calibrated to ~10 ms a batch, or the point's `batch_iters`) before the producers start.
 * A template opts in with BB_BATCH_TIMING; at file scope, then writes
 *
 *     return BB_BATCH_LOOP(process(ctx), ({ undo what process() changed; }));
 *
 * `reset` runs after each timed run and may read that run's value as bb_result. The loop
 * is bounded by may_goto (bb_can_loop), so its length needs no verifier walk. */
#define BB_BATCH_SAMPLES 4096

#ifdef __bpf__
#define BB_BATCH_TIMING                                                                   \
	__u64 bb_batch_ns[BB_MAX_CPUS][BB_BATCH_SAMPLES] = {};                                 \
	__u32 bb_batch_idx[BB_MAX_CPUS] = {};                                                  \
	volatile __u32 bb_batch_on = 0;                                                        \
	volatile __u32 bb_batch_iters = 0;                                                     \
	static __always_inline void bb_batch_record(__u64 ns)                                  \
	{                                                                                      \
		__u32 cpu = bpf_get_smp_processor_id() & (BB_MAX_CPUS - 1), i;                 \
                                                                                               \
		if (!bb_batch_on)                                                              \
			return;                                                                \
		i = bb_batch_idx[cpu];                                                         \
		if (i >= BB_BATCH_SAMPLES)                                                     \
			return;                                                                \
		bb_batch_ns[cpu][i] = ns;                                                      \
		bb_batch_idx[cpu] = i + 1;                                                     \
	}

/* True until the kernel's may_goto budget for this program run is spent (the kernel
 * bench's can_loop). */
#define bb_can_loop                                                                       \
	({                                                                                \
		__label__ bb_out, bb_on;                                                  \
		int bb_more = 1;                                                          \
		asm volatile goto("may_goto %l[bb_out]" :::: bb_out);                     \
		goto bb_on;                                                               \
	bb_out:                                                                           \
		bb_more = 0;                                                              \
	bb_on:                                                                            \
		bb_more;                                                                  \
	})

#define BB_BATCH_LOOP(body, reset)                                                        \
	({                                                                                \
		__u64 bb_t0 = bpf_ktime_get_ns();                                         \
		int bb_result = 0;                                                        \
                                                                                          \
		for (__u32 bb_i = 0; bb_i < bb_batch_iters && bb_can_loop; bb_i++) {      \
			bb_result = (body);                                               \
			reset;                                                            \
		}                                                                         \
		bb_batch_record(bpf_ktime_get_ns() - bb_t0);                              \
		bb_result = (body);                                                       \
		bb_result;                                                                \
	})
#endif

#endif /* BPFBENCH_SHARED_H */
