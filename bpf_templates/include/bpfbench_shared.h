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

#endif /* BPFBENCH_SHARED_H */
