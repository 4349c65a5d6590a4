/* bpf_strncmp() vs an open-coded loop, after the kernel's strncmp bench. Each getpgid()
 * of the bpfbench process compares cmp_str_len bytes, as the kernel bench's: `str` holds
 * cmp_str_len - 1 'a's, then '`' (one below 'a'), then NULs; `target` 4096 'a's then a
 * NUL. So both compares walk to the last of the cmp_str_len bytes, find str's smaller and
 * return < 0 (the loop -1, the helper < 0). The bound is cmp_str_len + 1, as there.
 * Emitted around this text (docs/families.md): the shared header, bb_tgid and
 * BB_CMP_STR_LEN (template param cmp_str_len). */

char _license[] SEC("license") = "GPL";

#define STR_SZ 4096

struct bb_counter bb_hits[BB_MAX_CPUS] = {};

/* bpf_strncmp wants its second string constant, in a read-only map: .rodata (frozen at
 * load), NUL-terminated, one byte longer than `str`. volatile so clang cannot fold the
 * open-coded loop's reads of known bytes. */
const volatile char target[STR_SZ + 1] = { [0 ... STR_SZ - 1] = 'a' };
/* Writable memory, as in the kernel bench (.bss there, .data here). The kernel bench copies
 * its target's first cmp_str_len bytes and lowers the last: its compares stop at byte
 * cmp_str_len - 1. Until 2026-12-05 ours held cmp_str_len 'a's and stopped one byte later,
 * on the NUL (docs/families/strncmp.md). */
#if BB_CMP_STR_LEN > 1
char str[STR_SZ] = { [0 ... BB_CMP_STR_LEN - 2] = 'a', [BB_CMP_STR_LEN - 1] = 'a' - 1 };
#else
char str[STR_SZ] = { 'a' - 1 };
#endif
/* The length as frozen .rodata rather than a literal: clang must not unroll or
 * specialise the open-coded loop for it (the verifier still sees the constant). */
const volatile __u32 cmp_len = BB_CMP_STR_LEN + 1;

static __always_inline int bb_ours(void)
{
	/* pid_filter is rodata: with it off the verifier drops the check. */
	return !pid_filter || (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid;
}

/* Inline BPF C from the .bdsl (family.json "hooks"): `code globals { ... }` lands here
 * (maps, globals, helper functions); `code body { ... }` runs once per counted compare,
 * after it, with the program's context as `ctx` and the compare's result as `ret`
 * (`return;` leaves it uncounted). */
{{code_globals}}
static __always_inline void bb_hit(void *ctx, int ret)
{
{{code_body}}
	bb_inc(bb_hits);
}

static __always_inline int local_strncmp(const char *s1, __u32 sz, const volatile char *s2)
{
	int ret = 0;

	for (__u32 i = 0; i < sz; i++) {
		ret = (unsigned char)s1[i] - (unsigned char)s2[i];
		if (ret || !s1[i])
			break;
	}
	return ret;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_no_helper(void *ctx)
{
	int ret;

	if (bb_ours() && (ret = local_strncmp(str, cmp_len, target)) < 0)
		bb_hit(ctx, ret);
	return 0;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_helper(void *ctx)
{
	int ret;

	if (bb_ours() && (ret = bpf_strncmp(str, cmp_len, (const char *)target)) < 0)
		bb_hit(ctx, ret);
	return 0;
}
