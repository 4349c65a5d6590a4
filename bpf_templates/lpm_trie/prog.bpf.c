/* LPM trie lookup, insert, update and delete, after the kernel's lpm-trie bench
 * (bpf-next bench_lpm_trie_map.c): keys 0..nr_entries-1 of prefix_len bits, so no branch
 * of the trie is partly filled below nr_entries (its worst case). Setup runs `fill` once
 * for the programs that need a full trie (family.json `run_program`); it returns the keys
 * it reads back. Each BPF_PROG_TEST_RUN of a program does BB_NR_LOOPS operations in one
 * bpf_loop, timed with bpf_ktime_get_ns. Where the kernel bench returns to user space to
 * empty (insert) or refill (delete) the trie, these programs do it themselves after the
 * timed loop, so `latency` (BPF time per operation) leaves it out as the kernel's does.
 * The kernel bench runs one xdp program switching on an op; these are raw_tp programs,
 * one per op. Program free (lpm-trie-free) times the kernel's free of a full trie: the
 * map_churn producer creates, fills and closes tries named "bb_churn" (copies of
 * churn_map) round and round, and fentry/fexit on bpf_map_free_deferred time each one's
 * free (bpf_ns, hits), as the kernel bench does; it needs BPF trampolines. Emitted around
 * this text (docs/families.md): the shared header, bb_tgid, the rodata params and the BB_
 * macros. */

#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

#define BB_NR_LOOPS 10000
#define BB_EEXIST 17

struct trie_key {
	__u32 prefixlen;
	__u32 data;
};

/* The kernel bench's tries: unpreallocated, room for 10^8 keys. */
#define BB_TRIE_MAP(name)                                  \
	struct {                                           \
		__uint(type, BPF_MAP_TYPE_LPM_TRIE);       \
		__type(key, struct trie_key);              \
		__type(value, __u32);                      \
		__uint(map_flags, BPF_F_NO_PREALLOC);      \
		__uint(max_entries, 100000000);            \
	} name SEC(".maps")

BB_TRIE_MAP(trie_map);

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
struct bb_counter bb_ns[BB_MAX_CPUS] = {};
struct bb_counter bb_ok[BB_MAX_CPUS] = {}; /* operations that did what they should */

/* In globals, not a bpf_loop context: see the bloom_filter template. Single producer for
 * insert and delete (family.json constraints), as in the kernel bench. */
__u32 cur_key = 0, fill_found = 0;
int op_err = 0;

static __always_inline void next_key(struct trie_key *key)
{
	key->prefixlen = BB_PREFIX_LEN;
	if (random)
		key->data = bpf_get_prandom_u32() % BB_NR_ENTRIES;
	else
		key->data = cur_key++ % BB_NR_ENTRIES;
}

/* ---- setup and the untimed resets ---- */

static int insert_all_cb(__u32 i, void *unused)
{
	struct trie_key key = { .prefixlen = BB_PREFIX_LEN, .data = i };
	__u32 val = 1;

	bpf_map_update_elem(&trie_map, &key, &val, BPF_ANY);
	return 0;
}

static int delete_all_cb(__u32 i, void *unused)
{
	struct trie_key key = { .prefixlen = BB_PREFIX_LEN, .data = i };

	bpf_map_delete_elem(&trie_map, &key);
	return 0;
}

static int check_cb(__u32 i, void *unused)
{
	struct trie_key key = { .prefixlen = BB_PREFIX_LEN, .data = i };
	__u32 *v = bpf_map_lookup_elem(&trie_map, &key);

	if (v && *v == 1)
		fill_found++;
	return 0;
}

/* Inserts keys 0..nr_entries-1; returns how many a lookup finds (nr_entries). */
SEC("?raw_tp")
int fill(void *ctx)
{
	bpf_loop(BB_NR_ENTRIES, insert_all_cb, NULL, 0);
	bpf_loop(BB_NR_ENTRIES, check_cb, NULL, 0);
	return fill_found;
}

/* ---- the operations; each returns 1 to end the loop early ---- */

static int noop_cb(__u32 i, void *unused)
{
	return 0;
}

static int baseline_cb(__u32 i, void *unused)
{
	struct trie_key key;
	volatile __u32 sink;

	next_key(&key);
	sink = key.data; /* keep the key computation */
	return 0;
}

static int lookup_cb(__u32 i, void *unused)
{
	struct trie_key key;

	next_key(&key);
	if (bpf_map_lookup_elem(&trie_map, &key))
		return 0;
	op_err = -2; /* -ENOENT: the trie lost a key */
	return 1;
}

static int insert_cb(__u32 i, int *reset)
{
	struct trie_key key;
	__u32 val = 1;
	int err;

	next_key(&key);
	err = bpf_map_update_elem(&trie_map, &key, &val, BPF_NOEXIST);
	if (err) {
		op_err = err;
		return 1;
	}
	if (key.data == BB_NR_ENTRIES - 1) {
		*reset = 1; /* full: empty it, untimed */
		return 1;
	}
	return 0;
}

static int update_cb(__u32 i, void *unused)
{
	struct trie_key key;
	__u32 val = 1;
	int err;

	next_key(&key);
	err = bpf_map_update_elem(&trie_map, &key, &val, BPF_EXIST);
	if (!err)
		return 0;
	op_err = err;
	return 1;
}

static int delete_cb(__u32 i, int *reset)
{
	struct trie_key key;
	int err;

	next_key(&key);
	err = bpf_map_delete_elem(&trie_map, &key);
	if (err) {
		op_err = err;
		return 1;
	}
	if (key.data == BB_NR_ENTRIES - 1) {
		*reset = 1; /* empty: refill it, untimed */
		return 1;
	}
	return 0;
}

/* Counts the operations (bpf_loop's count includes the one that ended the loop) and their
 * time; an operation that failed is not ok, so the point fails its self-check (the kernel
 * bench exits). Returns 0 or the error. */
static __always_inline int account(__u64 start, long loops)
{
	int err = op_err;

	bb_add(bb_ns, bpf_ktime_get_ns() - start);
	bb_add(bb_hits, loops);
	bb_add(bb_ok, err && loops > 0 ? loops - 1 : loops);
	return err;
}

SEC("?raw_tp")
int bench_noop(void *ctx)
{
	__u64 start = bpf_ktime_get_ns();

	return account(start, bpf_loop(BB_NR_LOOPS, noop_cb, NULL, 0));
}

SEC("?raw_tp")
int bench_baseline(void *ctx)
{
	__u64 start = bpf_ktime_get_ns();

	return account(start, bpf_loop(BB_NR_LOOPS, baseline_cb, NULL, 0));
}

SEC("?raw_tp")
int bench_lookup(void *ctx)
{
	__u64 start = bpf_ktime_get_ns();

	return account(start, bpf_loop(BB_NR_LOOPS, lookup_cb, NULL, 0));
}

SEC("?raw_tp")
int bench_update(void *ctx)
{
	__u64 start = bpf_ktime_get_ns();

	return account(start, bpf_loop(BB_NR_LOOPS, update_cb, NULL, 0));
}

SEC("?raw_tp")
int bench_insert(void *ctx)
{
	int reset = 0, err;
	__u64 start = bpf_ktime_get_ns();

	err = account(start, bpf_loop(BB_NR_LOOPS, insert_cb, &reset, 0));
	if (reset)
		bpf_loop(BB_NR_ENTRIES, delete_all_cb, NULL, 0);
	return err;
}

SEC("?raw_tp")
int bench_delete(void *ctx)
{
	int reset = 0, err;
	__u64 start = bpf_ktime_get_ns();

	err = account(start, bpf_loop(BB_NR_LOOPS, delete_cb, &reset, 0));
	if (reset)
		bpf_loop(BB_NR_ENTRIES, insert_all_cb, NULL, 0);
	return err;
}

/* ---- free: the time the kernel takes to free a full trie ---- */

/* The template of the tries the map_churn producer makes (runtime/map_churn.hpp): never
 * used here, only copied (type, sizes, flags, max_entries). */
BB_TRIE_MAP(churn_map);

/* What the programs read of the kernel's structs, relocated by CO-RE against its BTF. */
struct work_struct {
	long data;
} __attribute__((preserve_access_index));

struct bpf_map {
	enum bpf_map_type map_type;
	char name[16];
	struct work_struct work;
} __attribute__((preserve_access_index));

/* Start time per map being freed (the work item's address): the workqueue may free two at
 * once on different CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 64);
} free_start SEC(".maps");

/* One of the producer's tries: an LPM trie named "bb_churn" (kChurnMapName). */
static __always_inline int is_churned_trie(__u64 work)
{
	struct bpf_map *map = (void *)(work - bpf_core_field_offset(struct bpf_map, work));
	static const char want[] = "bb_churn";
	char name[sizeof(want)] = {};

	if (BPF_CORE_READ(map, map_type) != BPF_MAP_TYPE_LPM_TRIE)
		return 0;
	if (bpf_probe_read_kernel(name, sizeof(name), __builtin_preserve_access_index(&map->name)))
		return 0;
#pragma unroll
	for (int i = 0; i < sizeof(want); i++)
		if (name[i] != want[i])
			return 0;
	return 1;
}

SEC("?fentry/bpf_map_free_deferred")
int bench_free_entry(__u64 *ctx)
{
	__u64 work = ctx[0], now;

	if (!is_churned_trie(work))
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&free_start, &work, &now, BPF_ANY);
	return 0;
}

SEC("?fexit/bpf_map_free_deferred")
int bench_free_exit(__u64 *ctx)
{
	__u64 work = ctx[0], *start = bpf_map_lookup_elem(&free_start, &work);

	if (!start)
		return 0;
	bb_add(bb_ns, bpf_ktime_get_ns() - *start);
	bb_inc(bb_hits);
	bpf_map_delete_elem(&free_start, &work);
	return 0;
}
