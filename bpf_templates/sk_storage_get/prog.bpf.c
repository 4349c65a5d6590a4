/* bpf_sk_storage_get() of an existing socket storage, after the kernel's sk-storage-get
 * bench: each producer thread calls getsockopt(0xdead, 0xbeef) on its own TCP socket in a
 * loop; a cgroup/getsockopt program on the cgroup v2 root answers the calls of the
 * bpfbench process with `gets` storage gets (the first call of a socket creates its
 * storage) and tells the kernel the option was handled.
 * Emitted around this text (docs/families.md): the shared header, bb_tgid and the rodata
 * param gets. */

char _license[] SEC("license") = "GPL";

#define BB_LEVEL 0xdead
#define BB_OPTNAME 0xbeef

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sk_storage_map SEC(".maps");

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
struct bb_counter bb_misses[BB_MAX_CPUS] = {};

SEC("?cgroup/getsockopt")
int bench_get(struct bpf_sockopt *ctx)
{
	struct bpf_sock *sk = ctx->sk;
	__u64 found = 0, missed = 0;

	if (ctx->level != BB_LEVEL || ctx->optname != BB_OPTNAME ||
	    (__u32)(bpf_get_current_pid_tgid() >> 32) != bb_tgid || !sk)
		return 1; /* not ours: the kernel's answer stands */
	for (__u32 i = 0; i < gets; i++) {
		__u64 *v = bpf_sk_storage_get(&sk_storage_map, sk, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

		if (v)
			found++;
		else
			missed++;
	}
	bb_add(bb_hits, found);
	bb_add(bb_misses, missed);
	ctx->retval = 0; /* handled: getsockopt() returns 0 */
	return 1;
}
