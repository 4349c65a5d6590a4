/* Hash map lookups vs key size and map size, after the kernel's bpf_hashmap_lookup bench
 * (bench_bpf_hashmap_lookup.c). Setup runs `fill` once (family.json `run_program`): it
 * writes every CPU's key buffer (word 0 is the entry number + 1, words 1.. are the
 * kernel bench's 2654435761 * i pattern), inserts nr_entries keys and returns how many it
 * reads back. Each getpgid() of the bpfbench process then runs nr_loops / nr_entries
 * rounds of nr_entries lookups (nested bpf_loop), timed with bpf_ktime_get_ns. The kernel
 * bench used fentry on sys_getpgid and one key buffer for all CPUs; this uses the syscall
 * tracepoint and a key buffer per CPU. Emitted around this text (docs/families.md): the
 * shared header, bb_tgid, the rodata params and the BB_ macros. */

char _license[] SEC("license") = "GPL";

#define BB_KEY_WORDS (BB_KEY_SIZE / 4)

struct bb_key {
	__u32 w[BB_KEY_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct bb_key);
	__type(value, __u64);
	__uint(max_entries, 1000); /* max_entries (map_size param) */
	__uint(map_flags, BB_MAP_FLAGS);
} hash_map_bench SEC(".maps");

struct bb_key keys[BB_MAX_CPUS] = {};

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
struct bb_counter bb_expected[BB_MAX_CPUS] = {};
struct bb_counter bb_ns[BB_MAX_CPUS] = {};
/* Per-CPU lookups and their BPF time for the per-CPU lines: never reset by the sampler. */
struct bb_counter bb_cpu_ops[BB_MAX_CPUS] = {};
struct bb_counter bb_cpu_ns[BB_MAX_CPUS] = {};

/* ---- setup ---- */

__u32 fill_found = 0;

static int pattern_cb(__u32 cpu, void *unused)
{
	if (cpu >= BB_MAX_CPUS)
		return 1;
	for (int i = 1; i < BB_KEY_WORDS; i++)
		keys[cpu].w[i] = 2654435761U * i;
	return 0;
}

static int insert_cb(__u32 i, void *unused)
{
	__u64 value = i;

	keys[0].w[0] = i + 1;
	bpf_map_update_elem(&hash_map_bench, &keys[0], &value, BPF_ANY);
	return 0;
}

static int check_cb(__u32 i, void *unused)
{
	__u64 *v;

	keys[0].w[0] = i + 1;
	v = bpf_map_lookup_elem(&hash_map_bench, &keys[0]);
	if (v && *v == i)
		fill_found++;
	return 0;
}

/* Returns the keys read back with their value: nr_entries when the fill worked. */
SEC("?raw_tp")
int fill(void *ctx)
{
	bpf_loop(BB_MAX_CPUS, pattern_cb, NULL, 0);
	bpf_loop(nr_entries, insert_cb, NULL, 0);
	bpf_loop(nr_entries, check_cb, NULL, 0);
	return fill_found;
}

/* ---- measured ---- */

/* bpf_loop's context must be on the stack: it holds this CPU's key buffer, its address
 * taken once per program run. A lookup then loads it and stores the key's first word, as
 * the kernel bench's does with its one global key (computing &keys[cpu] per lookup cost
 * 4 more BPF instructions on a 10-19 ns lookup: docs/families/hashmap_lookup.md). */
struct round_ctx {
	struct bb_key *key;
	__u64 lookups;
};

static int lookup_cb(__u32 i, struct round_ctx *r)
{
	struct bb_key *key = r->key;

	key->w[0] = i + 1;
	return bpf_map_lookup_elem(&hash_map_bench, key) ? 0 : 1; /* a miss stops the round */
}

static int round_cb(__u32 i, struct round_ctx *r)
{
	r->lookups += bpf_loop(nr_entries, lookup_cb, r, 0);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_lookup(void *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id() & (BB_MAX_CPUS - 1);
	__u32 rounds = nr_loops / nr_entries;
	struct round_ctx r = { .key = &keys[cpu] };
	__u64 start, ns;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != bb_tgid)
		return 0;
	start = bpf_ktime_get_ns();
	bpf_loop(rounds, round_cb, &r, 0);
	ns = bpf_ktime_get_ns() - start;
	bb_add(bb_hits, r.lookups);
	bb_add(bb_expected, (__u64)rounds * nr_entries);
	bb_add(bb_ns, ns);
	bb_add(bb_cpu_ops, r.lookups);
	bb_add(bb_cpu_ns, ns);
	return 0;
}
