/* Bloom filter map lookups and updates, and a hash map looked up with and without a bloom
 * filter in front of it, after the kernel's bloom filter bench (bench_bloom_filter_map.c).
 * Setup runs one of the fill programs once (family.json `run_program`): it writes
 * nr_entries random values of value_size bytes into the maps the program reads and
 * returns how many it reads back, which must be nr_entries. Then every getpgid() of the
 * bpfbench process runs the program (tracepoint; the kernel bench used fentry on
 * sys_getpgid, which needs trampolines). Emitted around this text (docs/families.md): the
 * shared header, bb_tgid and the BB_ macros of the template params. */

char _license[] SEC("license") = "GPL";

#define BB_EEXIST 17
#define BB_ENOENT 2
#define BB_RAND_WORDS 625000 /* 2.5 MB of random bytes, as the kernel bench's rand_vals */
#define BB_RAND_MASK ((1U << 21) - 1)
#define BB_HASH_LOOKUPS 1024 /* lookups per trigger of the hash map programs */

struct bb_val {
	__u8 b[BB_VALUE_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct bb_val);
	__uint(max_entries, BB_NR_ENTRIES);
} array_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__type(value, struct bb_val);
	__uint(max_entries, BB_NR_ENTRIES);
	__uint(map_extra, 3); /* nr_hash_funcs: the runtime sets it before load */
} bloom_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct bb_val);
	__type(value, struct bb_val);
	__uint(max_entries, BB_NR_ENTRIES);
} hashmap SEC(".maps");

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
struct bb_counter bb_drops[BB_MAX_CPUS] = {};
struct bb_counter bb_false_hits[BB_MAX_CPUS] = {};
struct bb_counter bb_negatives[BB_MAX_CPUS] = {};
struct bb_counter bb_expected[BB_MAX_CPUS] = {};
struct bb_counter bb_errors[BB_MAX_CPUS] = {};

/* count_per_lookup: the kernel bench's loop and counting (kernel_hash_lookups below): a
 * per-CPU slot incremented at each lookup (its percpu_stats[cpu & 255].stats[key]++), no
 * counters kept in registers, the step between keys read from memory. A bloom filter "no"
 * and a drop take the kernel bench's offsets of the counts they make there (its hits and
 * drops): the two paths most lookups take. */
enum { LOOKUP_BLOOM_NO, LOOKUP_DROP, LOOKUP_FALSE_HIT, LOOKUP_HIT, LOOKUP_KINDS };
struct bb_lookup_stats {
	__u32 n[LOOKUP_KINDS];
} __attribute__((aligned(256)));
struct bb_lookup_stats lookup_stats[BB_MAX_CPUS] = {};
/* The kernel bench's value_size is a global its loop reloads after every helper call, and
 * its loop tests a rodata flag (with or without the bloom filter) before every peek: the
 * verifier keeps the load and the branch. Here the flag is read through a zero that the
 * program's own constant use_bloom is compared with. */
__u8 lookup_step = BB_VALUE_SIZE;
const volatile __u8 lookup_flag_zero = 0;

static __always_inline void count_lookup(int kind)
{
	lookup_stats[bpf_get_smp_processor_id() & (BB_MAX_CPUS - 1)].n[kind]++;
}

/* Random bytes the hash map programs take their keys from (filled at setup). */
__u32 rand_words[BB_RAND_WORDS] = {};
/* The value being written at setup, as whole words (a byte loop is too much for the
 * verifier at 256 bytes); the maps read value_size bytes of it. */
__u32 fill_words[(BB_VALUE_SIZE + 3) / 4] = {};

/* ---- setup: the fill programs ---- */

enum { FILL_ARRAY = 1, FILL_BLOOM = 2, FILL_HASH = 4 };

/* Progress of the fill in globals, not in the bpf_loop context: the verifier would track a
 * context counter exactly and, since the callback branches on it, verify it once per
 * iteration. */
__u32 fill_added = 0, fill_found = 0;
int fill_err = 0;

static __always_inline void random_value(void)
{
	for (int j = 0; j < (BB_VALUE_SIZE + 3) / 4; j++)
		fill_words[j] = bpf_get_prandom_u32();
}

static int fill_cb(__u32 i, __u32 *what)
{
	struct bb_val *v = (struct bb_val *)fill_words;
	__u32 idx = fill_added;
	int err;

	random_value();
	if (*what & FILL_HASH) {
		err = bpf_map_update_elem(&hashmap, v, v, BPF_NOEXIST);
		if (err == -BB_EEXIST)
			return 0; /* a value drawn twice: draw another, as the kernel bench does */
		if (err)
			goto fail;
	}
	if (*what & FILL_ARRAY) {
		err = bpf_map_update_elem(&array_map, &idx, v, BPF_ANY);
		if (err)
			goto fail;
	}
	if (*what & FILL_BLOOM) {
		err = bpf_map_push_elem(&bloom_map, v, BPF_ANY);
		if (err)
			goto fail;
	}
	fill_added = idx + 1;
	return idx + 1 >= BB_NR_ENTRIES;
fail:
	fill_err = err;
	return 1;
}

static int rand_cb(__u32 i, void *unused)
{
	if (i < BB_RAND_WORDS)
		rand_words[i] = bpf_get_prandom_u32();
	return 0;
}

/* Read-back: every stored value must be found (in the bloom filter when there is one). */
static __u64 count_cb(struct bpf_map *map, void *key, struct bb_val *val, __u32 *what)
{
	if (!(*what & FILL_BLOOM) || bpf_map_peek_elem(&bloom_map, val) == 0)
		fill_found++;
	return 0;
}

/* Returns the values read back (nr_entries when all went well) or the first error. */
static __always_inline int fill(__u32 what)
{
	bpf_loop(1 << 23, fill_cb, &what, 0);
	if (fill_err)
		return fill_err;
	bpf_loop(BB_RAND_WORDS, rand_cb, NULL, 0);
	if (what & FILL_HASH)
		bpf_for_each_map_elem(&hashmap, count_cb, &what, 0);
	else
		bpf_for_each_map_elem(&array_map, count_cb, &what, 0);
	return fill_found;
}

SEC("?raw_tp")
int fill_array_bloom(void *ctx)
{
	return fill(FILL_ARRAY | FILL_BLOOM);
}

SEC("?raw_tp")
int fill_hash_bloom(void *ctx)
{
	return fill(FILL_HASH | FILL_BLOOM);
}

SEC("?raw_tp")
int fill_hash(void *ctx)
{
	return fill(FILL_HASH);
}

/* ---- the measured programs ---- */

static __always_inline int ours(void)
{
	return (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid;
}

struct walk_ctx {
	__u64 hits, errors;
	int update;
};

static __u64 walk_cb(struct bpf_map *map, __u32 *key, struct bb_val *val, struct walk_ctx *w)
{
	int err = w->update ? bpf_map_push_elem(&bloom_map, val, BPF_ANY) : bpf_map_peek_elem(&bloom_map, val);

	if (err) {
		w->errors++;
		return 1; /* stop, as the kernel bench does */
	}
	w->hits++;
	return 0;
}

static __always_inline void walk(int update)
{
	struct walk_ctx w = { .update = update };

	bpf_for_each_map_elem(&array_map, walk_cb, &w, 0);
	bb_add(bb_hits, w.hits);
	bb_add(bb_expected, BB_NR_ENTRIES);
	bb_add(bb_errors, w.errors);
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bloom_lookup(void *ctx)
{
	if (ours())
		walk(0);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bloom_update(void *ctx)
{
	if (ours())
		walk(1);
	return 0;
}

/* 1024 lookups of value_size random bytes at a random offset of rand_words, through the
 * bloom filter first when use_bloom. hits: the bloom filter said no, or the hash map has
 * the key; drops: the hash map has not; false_hits: the bloom filter said maybe and the
 * hash map has not; negatives: lookups of keys the hash map has not (the bloom filter's
 * no, and its false hits). The counts are the kernel bench's; negatives is ours. */
static __always_inline void hash_lookups(int use_bloom)
{
	__u32 index = bpf_get_prandom_u32();
	__u64 hits = 0, drops = 0, false_hits = 0, negatives = 0, errors = 0;
	__u8 *bytes = (__u8 *)rand_words;

	for (int i = 0; i < BB_HASH_LOOKUPS; i++, index += BB_VALUE_SIZE) {
		index &= BB_RAND_MASK;
		if (use_bloom) {
			int err = bpf_map_peek_elem(&bloom_map, bytes + index);

			if (err) {
				if (err != -BB_ENOENT) {
					errors++;
					break;
				}
				hits++;
				negatives++;
				continue;
			}
		}
		if (bpf_map_lookup_elem(&hashmap, bytes + index)) {
			hits++;
		} else {
			drops++;
			negatives++;
			if (use_bloom)
				false_hits++;
		}
	}
	bb_add(bb_hits, hits);
	bb_add(bb_drops, drops);
	bb_add(bb_false_hits, false_hits);
	bb_add(bb_negatives, negatives);
	bb_add(bb_expected, BB_HASH_LOOKUPS);
	bb_add(bb_errors, errors);
}

/* After a kernel-shaped loop: its slots moved into bpfbench's counters (and zeroed), once
 * per run, so the checks see every outcome counted where it happened. */
static __always_inline void flush_lookup_stats(void)
{
	struct bb_lookup_stats *s = &lookup_stats[bpf_get_smp_processor_id() & (BB_MAX_CPUS - 1)];
	__u64 hit = s->n[LOOKUP_HIT], drop = s->n[LOOKUP_DROP];
	__u64 false_hit = s->n[LOOKUP_FALSE_HIT], no = s->n[LOOKUP_BLOOM_NO];

	s->n[LOOKUP_HIT] = 0;
	s->n[LOOKUP_DROP] = 0;
	s->n[LOOKUP_FALSE_HIT] = 0;
	s->n[LOOKUP_BLOOM_NO] = 0;
	bb_add(bb_hits, hit + no);
	bb_add(bb_drops, drop);
	bb_add(bb_false_hits, false_hit);
	bb_add(bb_negatives, no + drop);
	bb_add(bb_expected, BB_HASH_LOOKUPS);
}

/* The same lookups counted as the kernel bench counts them (count_per_lookup): one slot
 * increment per lookup where it makes its one (a bloom filter "no" in a slot of its own,
 * where the kernel bench's goes to hits: the same work, and negatives needs it apart), and
 * a false hit also counted on its own, which the kernel bench's hashmap-with-bloom does not
 * (its bloom-false-positive does; a drop is rare). */
static __always_inline void kernel_hash_lookups(int use_bloom)
{
	__u32 index = bpf_get_prandom_u32();
	__u8 *bytes = (__u8 *)rand_words;

	for (int i = 0; i < BB_HASH_LOOKUPS; i++, index += lookup_step) {
		index &= BB_RAND_MASK;
		if (use_bloom != !!lookup_flag_zero) {
			int err = bpf_map_peek_elem(&bloom_map, bytes + index);

			if (err) {
				if (err != -BB_ENOENT) {
					bb_inc(bb_errors);
					break;
				}
				count_lookup(LOOKUP_BLOOM_NO);
				continue;
			}
		}
		if (bpf_map_lookup_elem(&hashmap, bytes + index)) {
			count_lookup(LOOKUP_HIT);
		} else {
			if (use_bloom != !!lookup_flag_zero)
				count_lookup(LOOKUP_FALSE_HIT);
			count_lookup(LOOKUP_DROP);
		}
	}
	flush_lookup_stats();
}

SEC("?tp/syscalls/sys_enter_getpgid")
int hashmap_with_bloom(void *ctx)
{
	if (!ours())
		return 0;
	if (count_per_lookup)
		kernel_hash_lookups(1);
	else
		hash_lookups(1);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int hashmap_without_bloom(void *ctx)
{
	if (!ours())
		return 0;
	if (count_per_lookup)
		kernel_hash_lookups(0);
	else
		hash_lookups(0);
	return 0;
}
