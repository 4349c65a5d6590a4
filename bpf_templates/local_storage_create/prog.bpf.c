/* The cost of creating BPF local storage, after the kernel's local-storage-create bench:
 * the producers create sockets (or threads) in batches and a program on their creation
 * makes a 64-byte storage for each with BPF_LOCAL_STORAGE_GET_F_CREATE. A raw_tp on the
 * kmalloc tracepoint counts the bpfbench process's kmallocs meanwhile.
 * Emitted around this text (docs/families.md): the shared header and bb_tgid. */

char _license[] SEC("license") = "GPL";

struct task_struct;

struct storage {
	__u8 data[64];
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct storage);
} sk_storage_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct storage);
} task_storage_map SEC(".maps");

struct bb_counter bb_creates[BB_MAX_CPUS] = {};
struct bb_counter bb_create_errs[BB_MAX_CPUS] = {};
struct bb_counter bb_kmallocs[BB_MAX_CPUS] = {};

static __always_inline int bb_ours(void)
{
	return (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid;
}

static __always_inline void count(void *stg)
{
	if (stg)
		bb_inc(bb_creates);
	else
		bb_inc(bb_create_errs);
}

/* Every socket created in the cgroup (attach: cgroup, the v2 root): the bpfbench
 * process's get a storage. The kernel bench used lsm.s/socket_post_create, which needs
 * BPF trampolines. Returning 1 lets the socket be made. */
SEC("?cgroup/sock_create")
int bench_sock_create(struct bpf_sock *sk)
{
	if (bb_ours())
		count(bpf_sk_storage_get(&sk_storage_map, sk, 0, BPF_LOCAL_STORAGE_GET_F_CREATE));
	return 1;
}

/* A fork by the bpfbench process (a pthread_create is one): storage for the child.
 * tp_btf gives BTF-typed arguments: ctx[0] the parent, ctx[1] the child. */
SEC("?tp_btf/sched_process_fork")
int bench_task_create(__u64 *ctx)
{
	struct task_struct *child = (struct task_struct *)ctx[1];

	if (bb_ours())
		count(bpf_task_storage_get(&task_storage_map, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE));
	return 0;
}

SEC("?raw_tp/kmalloc")
int bench_kmalloc(void *ctx)
{
	if (bb_ours())
		bb_inc(bb_kmallocs);
	return 0;
}
