/* Update of a full preallocated hash map, after the kernel's bpf_hashmap_full_update
 * bench: the map is filled at setup (family.json `prefill`), then every getpgid() of the
 * bpfbench process runs bpf_loop(nr_loops) of updates of key cpu + max_entries, which is
 * never present, so each update searches the per-CPU free lists and fails. The program
 * times itself with bpf_ktime_get_ns; the runtime prints ops * 1e9 / ns per CPU
 * (`per_cpu`). The kernel bench attached with fentry; the syscall tracepoint is the same
 * trigger and works without trampolines. Emitted around this text (docs/families.md):
 * the shared header, bb_tgid, nr_loops and BB_MAX_ENTRIES. */

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, BB_MAX_ENTRIES);
} hash_map_bench SEC(".maps");

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
/* Per-CPU update attempts and the BPF time they took: never reset by the sampler. */
struct bb_counter bb_cpu_ops[BB_MAX_CPUS] = {};
struct bb_counter bb_cpu_ns[BB_MAX_CPUS] = {};
/* `latency_hist`: each trigger's bpf_loop of nr_loops updates in a log2 histogram. */
{{#latency_hist}}
struct bb_hist bb_lat_hist[BB_MAX_CPUS] = {};
#define BB_LAT_HIST bb_lat_hist
{{/latency_hist}}
{{^latency_hist}}
#define BB_LAT_HIST BB_NO_HIST
{{/latency_hist}}

static int update_callback(__u32 index, __u32 *key)
{
	__u64 init_val = 1;

	bpf_map_update_elem(&hash_map_bench, key, &init_val, BPF_ANY);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_full_update(void *ctx)
{
	__u32 key;
	__u64 ns;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != bb_tgid)
		return 0;
	key = bpf_get_smp_processor_id() + BB_MAX_ENTRIES;
	BB_TIME_BEGIN(start);
	bpf_loop(nr_loops, update_callback, &key, 0);
	ns = BB_TIME_END(start);
	bb_add(bb_hits, nr_loops);
	bb_add(bb_cpu_ops, nr_loops);
	bb_add(bb_cpu_ns, ns);
	return 0;
}
