/* Fidelity baseline for the ringbuf family: the same records bpfbench's template emits
 * (batch 8-byte records per getpgid() of one process), written out by hand. Our own code. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} pb SEC(".maps");

const volatile __u32 my_tgid = 0; /* the only .rodata variable: the loader writes it */
#define batch 500
__u64 drops = 0;

SEC("?tp/syscalls/sys_enter_getpgid")
int rb_prog(void *ctx)
{
	__u64 lost = 0;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != my_tgid)
		return 0;
	for (__u32 i = 0; i < batch; i++) {
		__u64 *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

		if (!r) {
			lost++;
			continue;
		}
		*r = 42;
		bpf_ringbuf_submit(r, 0);
	}
	__sync_fetch_and_add(&drops, lost);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int pb_prog(void *ctx)
{
	__u64 v = 42, lost = 0;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != my_tgid)
		return 0;
	for (__u32 i = 0; i < batch; i++)
		if (bpf_perf_event_output(ctx, &pb, BPF_F_CURRENT_CPU, &v, sizeof(v)))
			lost++;
	__sync_fetch_and_add(&drops, lost);
	return 0;
}
