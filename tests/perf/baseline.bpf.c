/* Fidelity baseline for bpfbench's trigger/uprobes families: the same programs, written
 * by hand the way a libbpf-bootstrap style tool would, with no bpfbench code involved.
 * Built by compare_trigger.sh with clang -target bpf. */
#include <linux/bpf.h>
#include <asm/unistd.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

#define NR_SLOTS 256

struct slot {
	__u64 value;
} __attribute__((aligned(128)));

struct slot hits[NR_SLOTS] = {};
const volatile __u32 my_tgid = 0;

static __always_inline void count(void)
{
	__u32 cpu = bpf_get_smp_processor_id() & (NR_SLOTS - 1);

	__sync_fetch_and_add(&hits[cpu].value, 1);
}

static __always_inline int mine(void)
{
	return (__u32)(bpf_get_current_pid_tgid() >> 32) == my_tgid;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int base_tp(void *ctx)
{
	if (mine())
		count();
	return 0;
}

SEC("?raw_tp/sys_enter")
int base_rawtp(struct bpf_raw_tracepoint_args *ctx)
{
	if (ctx->args[1] == __NR_getpgid && mine())
		count();
	return 0;
}

SEC("?uprobe")
int base_uprobe(void *ctx)
{
	if (mine())
		count();
	return 0;
}
