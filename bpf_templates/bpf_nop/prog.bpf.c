/* An empty program run by BPF_PROG_TEST_RUN, after the kernel's bpf-nop bench: the fixed
 * cost of a test_run call (syscall, context set-up, one run), and, `timed`, what the
 * kernel bench measures: the cost of one empty iteration of an in-BPF timed loop
 * (bpfbench_shared.h's BB_BATCH_LOOP; the kernel bench's BENCH_BPF_LOOP with an empty
 * body). Emitted around this text (docs/families.md): the shared header and bb_tgid. */

char _license[] SEC("license") = "GPL";

BB_BATCH_TIMING;

SEC("?syscall")
int bench_nop(void *ctx)
{
	return 0;
}

SEC("?raw_tp")
int bench_nop_raw_tp(void *ctx)
{
	return 0;
}

SEC("?syscall")
int bench_nop_timed(void *ctx)
{
	return BB_BATCH_LOOP(0, ({}));
}
