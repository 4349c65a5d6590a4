/* An empty program run by BPF_PROG_TEST_RUN, after the kernel's bpf-nop bench: the fixed
 * cost of a test_run call (syscall, context set-up, one program run). The kernel bench
 * times batches of runs in BPF (bench_bpf_timing) and reports percentiles; here every
 * call is one counted operation. Emitted around this text (docs/families.md): the shared
 * header and bb_tgid. */

char _license[] SEC("license") = "GPL";

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
