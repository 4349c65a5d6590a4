/* Ring buffer and perf buffer producers, after the kernel's ringbuf/perfbuf benches:
 * every getpgid() of the bpfbench process emits `batch` 8-byte records, so the cost
 * measured is the buffer's, not the syscall's. Emitted around this text (see
 * docs/families.md): <linux/bpf.h>, <bpf/bpf_helpers.h>, bpfbench_shared.h, bb_tgid and
 * the rodata params batch, sample_rate, sampled. */

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	/* Placeholder: the runtime sets max_entries from `ring_size` before load. */
	__uint(max_entries, 512 * 1024);
} ringbuf SEC(".maps");

/* libbpf sizes a perf event array to the number of CPUs when max_entries is absent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} perfbuf SEC(".maps");

/* Records the buffer had no room for. Hits are counted by the consumer, in user space:
 * records consumed, as the kernel bench counts them. */
struct bb_counter bb_drops[BB_MAX_CPUS] = {};
/* Records the program tried to emit: the self-check `records_accounted` (family.json) wants
 * each of them consumed or dropped. */
struct bb_counter bb_records[BB_MAX_CPUS] = {};

/* Only the bpfbench process produces: getpgid() elsewhere on the machine is noise. */
static __always_inline int bb_foreign(void)
{
	return bb_tgid && (__u32)(bpf_get_current_pid_tgid() >> 32) != bb_tgid;
}

/* Sampled notification: wake the consumer only once sample_rate records (16 bytes each
 * with the ringbuf record header) are waiting; otherwise every record may wake it. */
static __always_inline __u64 bb_wakeup_flags(void)
{
	if (!sampled)
		return 0;
	return bpf_ringbuf_query(&ringbuf, BPF_RB_AVAIL_DATA) >= (__u64)sample_rate * 16 ?
		       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* Drops are summed locally and added once per batch: two atomics per trigger (drops and
 * records) keep the accounting out of the per-record cost. No `if (drops)`: a branch on
 * the local count would make the verifier track it exactly and stop pruning loop states. */
static __always_inline void bb_account(__u64 drops)
{
	bb_add(bb_drops, drops);
	bb_add(bb_records, batch);
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_reserve_commit(void *ctx)
{
	__u64 drops = 0;
	__u32 i;

	if (bb_foreign())
		return 0;
	for (i = 0; i < batch; i++) {
		__u64 *rec = bpf_ringbuf_reserve(&ringbuf, sizeof(*rec), 0);

		if (!rec) {
			drops++;
			continue;
		}
		*rec = 42;
		bpf_ringbuf_submit(rec, bb_wakeup_flags());
	}
	bb_account(drops);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_output(void *ctx)
{
	__u64 val = 42, drops = 0;
	__u32 i;

	if (bb_foreign())
		return 0;
	for (i = 0; i < batch; i++) {
		if (bpf_ringbuf_output(&ringbuf, &val, sizeof(val), bb_wakeup_flags()))
			drops++;
	}
	bb_account(drops);
	return 0;
}

/* Perf buffer sampling is the consumer's wakeup_events setting, not a BPF-side flag. */
SEC("?tp/syscalls/sys_enter_getpgid")
int bench_perfbuf(void *ctx)
{
	__u64 val = 42, drops = 0;
	__u32 i;

	if (bb_foreign())
		return 0;
	for (i = 0; i < batch; i++) {
		if (bpf_perf_event_output(ctx, &perfbuf, BPF_F_CURRENT_CPU, &val, sizeof(val)))
			drops++;
	}
	bb_account(drops);
	return 0;
}
