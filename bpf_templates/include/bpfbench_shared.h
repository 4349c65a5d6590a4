/* Structs and constants both the BPF templates and the bpfbench runtime read.
 * Included by every generated program (the emitter inlines it) and by runtime/. */
#ifndef BPFBENCH_SHARED_H
#define BPFBENCH_SHARED_H

#include <linux/types.h>

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

#endif /* BPFBENCH_SHARED_H */
