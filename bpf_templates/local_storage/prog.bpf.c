/* Task local storage get vs the number of local storage maps, after the kernel's
 * local_storage bench. Setup (family.json) creates nr_maps inner maps and stores them in
 * an array of maps; each BPF_PROG_TEST_RUN of a raw_tp program does `gets` gets in one
 * bpf_loop, counting all of them (hits) and those of map 0, the "important" one.
 * The kernel bench's fentry trigger needs trampolines; test_run needs nothing and runs in
 * the bpfbench thread, whose task the storage belongs to. Emitted around this text
 * (docs/families.md): the shared header, bb_tgid and the rodata params. */

char _license[] SEC("license") = "GPL";

struct task_struct;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1000);
	__type(key, __u32);
	__type(value, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
		__uint(map_flags, BPF_F_NO_PREALLOC);
		__type(key, int);
		__type(value, int);
	});
} array_of_local_storage_maps SEC(".maps");

/* The inner template is 1 entry: libbpf creates it to make the outer map, and a 4M-entry
 * preallocated template would cost every object ~0.3 GB. Setup creates the real inner
 * maps with max_entries = hashmap_size (hash inner maps may differ in size). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1000);
	__type(key, __u32);
	__type(value, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_HASH);
		__uint(max_entries, 1);
		__type(key, int);
		__type(value, int);
	});
} array_of_hash_maps SEC(".maps");

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
struct bb_counter bb_important_hits[BB_MAX_CPUS] = {};

struct loop_ctx {
	struct task_struct *task;
	__u64 hits, important;
};

/* Inline BPF C from the .bdsl (family.json "hooks"): `code globals { ... }` lands here
 * (maps, globals, helper functions); `code body { ... }` runs after every get (lookup),
 * with the map index as `idx` and what the get returned as `value` (an int; NULL when
 * it failed or with lookup off). */
{{code_globals}}
static __always_inline void bb_after_get(__u32 idx, int *value)
{
{{code_body}}
}

static __always_inline void storage_get(__u32 idx, struct loop_ctx *lc)
{
	int init = 0, *value = NULL;
	void *inner = bpf_map_lookup_elem(&array_of_local_storage_maps, &idx);

	if (!inner)
		return;
	if (lookup)
		value = bpf_task_storage_get(inner, lc->task, &init, BPF_LOCAL_STORAGE_GET_F_CREATE);
	bb_after_get(idx, value);
	lc->hits++;
	if (idx == 0)
		lc->important++;
}

/* kernel_loop: the kernel bench's loop, step for step, for seq_get and hashmap. Its one
 * lookup function serves both map kinds and tests a map-kind flag twice per get (to pick the
 * outer map, then to pick the get); after every get it tests `interleave && map_idx % 3 == 0`.
 * Its flags are rodata constants, so its verifier drops the untaken branches but keeps the
 * flag loads, the division and the register the other branch needs. Here both flags are
 * bb_kl_zero, a rodata 0: the map-kind test is `hash != !!bb_kl_zero` (so both programs
 * load the same flag) and the interleave test `bb_kl_zero && ...`. bpfbench's own loop
 * (kernel_loop false) does none of it: 4 BPF instructions and a 32-bit division per get
 * that are not part of a get. */
const volatile __u32 bb_kl_zero = 0;

static __always_inline void kernel_get(__u32 elem, struct loop_ctx *lc, int hash)
{
	void *map, *inner;
	int idx = 0, *value;

	if (hash != !!bb_kl_zero)
		map = &array_of_hash_maps;
	else
		map = &array_of_local_storage_maps;
	inner = bpf_map_lookup_elem(map, &elem);
	if (!inner)
		return;
	if (hash != !!bb_kl_zero) {
		idx = bpf_get_prandom_u32() % hashmap_nr_keys_used;
		value = bpf_map_lookup_elem(inner, &idx);
	} else {
		value = bpf_task_storage_get(inner, lc->task, &idx, BPF_LOCAL_STORAGE_GET_F_CREATE);
	}
	bb_after_get(elem, value);
	lc->hits++;
	if (!elem)
		lc->important++;
}

static __always_inline void kernel_step(__u32 i, struct loop_ctx *lc, int hash)
{
	__u32 map_idx = i % nr_maps;

	kernel_get(map_idx, lc, hash);
	if (bb_kl_zero && map_idx % 3 == 0)
		kernel_get(0, lc, hash);
}

static int kernel_seq_cb(__u32 i, struct loop_ctx *lc)
{
	kernel_step(i, lc, 0);
	return 0;
}

static int kernel_hash_cb(__u32 i, struct loop_ctx *lc)
{
	kernel_step(i, lc, 1);
	return 0;
}

static int seq_cb(__u32 i, struct loop_ctx *lc)
{
	__u32 idx = i % nr_maps;

	storage_get(idx, lc);
	return 0;
}

/* kernel_interleave (default): the kernel bench's loop, maps 0..nr_maps-1 in order with one
 * extra get of map 0 after every map index divisible by 3 (so a run does more than `gets`
 * gets: 4/3 per iteration at nr_maps 3, 10000 + 3334 at 100 maps...).
 * Otherwise 4 of every 10 gets (slots 0, 3, 5, 8) hit the important map and the other 6
 * walk maps 1..nr_maps-1 in order; with one map every get is important. The position in
 * the walk is computed from i, not kept in lc: a counter the verifier can track exactly
 * would make it explore every bpf_loop iteration separately. */
static int int_cb(__u32 i, struct loop_ctx *lc)
{
	__u32 slot = i % 10, before, nth;

	if (kernel_interleave) {
		__u32 idx = i % nr_maps;

		storage_get(idx, lc);
		if (idx % 3 == 0)
			storage_get(0, lc);
		return 0;
	}
	if (nr_maps == 1 || slot == 0 || slot == 3 || slot == 5 || slot == 8) {
		storage_get(0, lc);
		return 0;
	}
	before = (slot > 0) + (slot > 3) + (slot > 5) + (slot > 8); /* important slots before */
	nth = (i / 10) * 6 + slot - before;                          /* ordinal of this get */
	storage_get(1 + nth % (nr_maps - 1), lc);
	return 0;
}

static int hash_cb(__u32 i, struct loop_ctx *lc)
{
	__u32 idx = i % nr_maps;
	void *inner = bpf_map_lookup_elem(&array_of_hash_maps, &idx);
	int key, *value = NULL;

	if (!inner)
		return 0;
	key = bpf_get_prandom_u32() % hashmap_nr_keys_used;
	if (lookup)
		value = bpf_map_lookup_elem(inner, &key);
	bb_after_get(idx, value);
	lc->hits++;
	if (idx == 0)
		lc->important++;
	return 0;
}

static __always_inline void finish(struct loop_ctx *lc)
{
	bb_add(bb_hits, lc->hits);
	bb_add(bb_important_hits, lc->important);
}

SEC("?raw_tp")
int bench_seq_get(void *ctx)
{
	struct loop_ctx lc = { .task = bpf_get_current_task_btf() };

	if (kernel_loop)
		bpf_loop(gets, kernel_seq_cb, &lc, 0);
	else
		bpf_loop(gets, seq_cb, &lc, 0);
	finish(&lc);
	return 0;
}

SEC("?raw_tp")
int bench_int_get(void *ctx)
{
	struct loop_ctx lc = { .task = bpf_get_current_task_btf() };

	bpf_loop(gets, int_cb, &lc, 0);
	finish(&lc);
	return 0;
}

SEC("?raw_tp")
int bench_hashmap(void *ctx)
{
	struct loop_ctx lc = { .task = bpf_get_current_task_btf() };

	if (kernel_loop)
		bpf_loop(gets, kernel_hash_cb, &lc, 0);
	else
		bpf_loop(gets, hash_cb, &lc, 0);
	finish(&lc);
	return 0;
}
