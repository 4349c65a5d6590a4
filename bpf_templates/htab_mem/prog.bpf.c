/* Hash map element churn, after the kernel's htab-mem bench: every getpgid() of the
 * bpfbench process updates (and deletes) 64 keys of a hash map through bpf_loop; the memory
 * the map's elements take, and the freed elements still waiting for an RCU grace period
 * with them, is read from the point's own memory cgroup (metric source cgroup_memory,
 * docs/families.md). Thread t runs on some CPU c and touches keys c, c + step, ...:
 * step is the producer count (pairs: half of it). Emitted around this text
 * (docs/families.md): the shared header, bb_tgid, BB_VALUE_SIZE, BB_MAX_ENTRIES and
 * BB_PREALLOCATED. */

char _license[] SEC("license") = "GPL";

#define HTAB_OP_BATCH 64

/* The point's producer count, set by the runtime at load. */
const volatile __u32 bb_producers = 1;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, 4);
	__uint(value_size, BB_VALUE_SIZE);
	__uint(max_entries, BB_MAX_ENTRIES);
#if !BB_PREALLOCATED
	__uint(map_flags, BPF_F_NO_PREALLOC);
#endif
} htab SEC(".maps");

struct bb_counter bb_hits[BB_MAX_CPUS] = {};

/* The value every update writes (zeroes; at most the kernel bench's 4096 bytes). */
unsigned char zeroed_value[4096] = {};

struct htab_walk {
	__u32 key;
	__u32 step;
};

static __always_inline int own_process(void)
{
	return (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid;
}

static int overwrite_cb(__u32 i, struct htab_walk *w)
{
	bpf_map_update_elem(&htab, &w->key, zeroed_value, BPF_ANY);
	w->key += w->step;
	return 0;
}

static int add_new_cb(__u32 i, struct htab_walk *w)
{
	bpf_map_update_elem(&htab, &w->key, zeroed_value, BPF_NOEXIST);
	w->key += w->step;
	return 0;
}

static int delete_cb(__u32 i, struct htab_walk *w)
{
	bpf_map_delete_elem(&htab, &w->key);
	w->key += w->step;
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int overwrite(void *ctx)
{
	struct htab_walk w = { bpf_get_smp_processor_id(), bb_producers };

	if (!own_process())
		return 0;
	bpf_loop(HTAB_OP_BATCH, overwrite_cb, &w, 0);
	bb_add(bb_hits, 1);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int batch_add_batch_del(void *ctx)
{
	struct htab_walk w = { bpf_get_smp_processor_id(), bb_producers };

	if (!own_process())
		return 0;
	bpf_loop(HTAB_OP_BATCH, overwrite_cb, &w, 0);
	w.key = bpf_get_smp_processor_id();
	bpf_loop(HTAB_OP_BATCH, delete_cb, &w, 0);
	bb_add(bb_hits, 2);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int add_only(void *ctx)
{
	struct htab_walk w = { bpf_get_smp_processor_id() / 2, bb_producers / 2 };

	if (!own_process())
		return 0;
	bpf_loop(HTAB_OP_BATCH, add_new_cb, &w, 0);
	bb_add(bb_hits, 1);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getppid")
int del_only(void *ctx)
{
	struct htab_walk w = { bpf_get_smp_processor_id() / 2, bb_producers / 2 };

	if (!own_process())
		return 0;
	bpf_loop(HTAB_OP_BATCH, delete_cb, &w, 0);
	bb_add(bb_hits, 1);
	return 0;
}
