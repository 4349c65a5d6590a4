/* bpf_loop() overhead, after the kernel's bpf_loop bench: how many empty callbacks per
 * second, hence ns per iteration. The kernel bench ran 1000 bpf_loop(nr_loops) calls per
 * getpgid() (fentry); here a raw_tp program run by BPF_PROG_TEST_RUN does the same, but
 * caps a run at ~1M callbacks so one run stays a few ms (1000 x 1M would hold the CPU for
 * seconds and make Ctrl-C wait). Emitted around this text (docs/families.md): the shared
 * header, bb_tgid and the rodata param nr_loops. */

char _license[] SEC("license") = "GPL";

struct bb_counter bb_hits[BB_MAX_CPUS] = {};

/* Inline BPF C from the .bdsl (family.json "hooks"): `code globals { ... }` lands here
 * (maps, globals, helper functions); `code body { ... }` runs in every callback invocation,
 * `index` the iteration (0 .. nr_loops-1). Every invocation is counted: a body that
 * returns 1 ends its bpf_loop() early and the count is then too high. */
{{code_globals}}
static int empty_callback(__u32 index, void *data)
{
{{code_body}}
	return 0;
}

/* One outer iteration: one bpf_loop(nr_loops) call, counted. */
static int outer_callback(__u32 index, __u64 *total)
{
	bpf_loop(nr_loops, empty_callback, NULL, 0);
	*total += nr_loops;
	return 0;
}

SEC("?raw_tp")
int bench_bpf_loop(void *ctx)
{
	__u32 reps = 1000000 / nr_loops;
	__u64 total = 0;

	if (reps < 1)
		reps = 1;
	if (reps > 1000)
		reps = 1000;
	/* The calls themselves go through bpf_loop too: a C loop of 1000 helper calls makes
	 * the verifier walk 1000 copies of the callback and exceed its 1M-insn budget. */
	bpf_loop(reps, outer_callback, &total, 0);
	bb_add(bb_hits, total);
	return 0;
}
