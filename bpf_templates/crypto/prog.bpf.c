/* The crypto kfuncs (bpf_crypto_encrypt / bpf_crypto_decrypt, 6.10+), after the kernel's
 * crypto bench: a tc program run with BPF_PROG_TEST_RUN on a packet of packet_len bytes
 * (test_run_repeat runs per call) en- or decrypts the packet into a buffer. The crypto
 * context is made once at setup by a sleepable syscall program (family.json: the
 * `run_program` setup action), which stores it in a map as a kptr.
 * Emitted around this text (docs/families.md): <linux/bpf.h>, <bpf/bpf_helpers.h>,
 * bpfbench_shared.h, bb_tgid and the rodata param packet_len. */

char _license[] SEC("license") = "GPL";

#define BB_EINVAL 22
#define BB_ENOENT 2
#define BB_DST_MAX 256 /* packet_len's max in family.json */

/* Opaque to BPF; matched by name against vmlinux BTF (the kptr's type). */
struct bpf_crypto_ctx {
	int opaque;
};

/* Layout of the kernel's struct bpf_crypto_params (kernel/bpf/crypto.c); the kfunc
 * refuses any other size. */
struct bpf_crypto_params {
	char type[14];
	__u8 reserved[2];
	char algo[128];
	__u8 key[256];
	__u32 key_len;
	__u32 authsize;
};

/* Weak: the object still loads where they are missing (the programs `require` them). */
extern struct bpf_crypto_ctx *bpf_crypto_ctx_create(const struct bpf_crypto_params *params, __u32 params__sz,
						    int *err) __ksym __weak;
extern void bpf_crypto_ctx_release(struct bpf_crypto_ctx *ctx) __ksym __weak;
extern int bpf_crypto_encrypt(struct bpf_crypto_ctx *ctx, const struct bpf_dynptr *src,
			      const struct bpf_dynptr *dst, const struct bpf_dynptr *siv) __ksym __weak;
extern int bpf_crypto_decrypt(struct bpf_crypto_ctx *ctx, const struct bpf_dynptr *src,
			      const struct bpf_dynptr *dst, const struct bpf_dynptr *siv) __ksym __weak;
extern int bpf_dynptr_from_skb(struct __sk_buff *skb, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym __weak;

/* A referenced kptr: the tag is "kptr" since 6.3. */
#define bb_kptr __attribute__((btf_type_tag("kptr")))

struct ctx_value {
	struct bpf_crypto_ctx bb_kptr *ctx;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ctx_value);
} crypto_ctx_map SEC(".maps");

/* The kernel bench's cipher and key (AES-128), in .data: 408 bytes do not fit the stack
 * beside the kfunc's copy. */
struct bpf_crypto_params crypto_params = {
	.type = "skcipher",
	.algo = "ecb(aes)",
	.key = "12345678testtest",
	.key_len = 16,
};

char dst[BB_DST_MAX] = {};  /* en/decrypt output */
char back[BB_DST_MAX] = {}; /* roundtrip: the decrypted output */

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
struct bb_counter bb_errors[BB_MAX_CPUS] = {};

/* Setup (run once, sleepable): create the context and store it; 0 or -errno. */
SEC("syscall")
int crypto_setup(void *args)
{
	struct ctx_value init = {}, *v;
	struct bpf_crypto_ctx *cctx, *old;
	__u32 zero = 0;
	int err = 0;

	cctx = bpf_crypto_ctx_create(&crypto_params, sizeof(crypto_params), &err);
	if (!cctx)
		return err ? err : -BB_EINVAL;
	if (bpf_map_update_elem(&crypto_ctx_map, &zero, &init, 0) ||
	    !(v = bpf_map_lookup_elem(&crypto_ctx_map, &zero))) {
		bpf_crypto_ctx_release(cctx);
		return -BB_ENOENT;
	}
	old = bpf_kptr_xchg(&v->ctx, cctx);
	if (old)
		bpf_crypto_ctx_release(old);
	return 0;
}

static __always_inline struct bpf_crypto_ctx *crypto_ctx(void)
{
	__u32 zero = 0;
	struct ctx_value *v = bpf_map_lookup_elem(&crypto_ctx_map, &zero);

	return v ? v->ctx : 0;
}

/* One operation: the packet through `encrypt` (else decrypt) into dst. Counted as a hit
 * whatever the kfunc returns, as the kernel bench does; a non-zero return is an error. */
static __always_inline int crypt(struct __sk_buff *skb, int encrypt)
{
	struct bpf_dynptr psrc, pdst;
	struct bpf_crypto_ctx *ctx = crypto_ctx();
	int err;

	bb_inc(bb_hits);
	if (!ctx) {
		bb_inc(bb_errors);
		return 0;
	}
	bpf_dynptr_from_skb(skb, 0, &psrc);
	bpf_dynptr_from_mem(dst, packet_len, 0, &pdst);
	err = encrypt ? bpf_crypto_encrypt(ctx, &psrc, &pdst, 0) : bpf_crypto_decrypt(ctx, &psrc, &pdst, 0);
	if (err)
		bb_inc(bb_errors);
	return 0;
}

SEC("?tc")
int bench_encrypt(struct __sk_buff *skb)
{
	return crypt(skb, 1);
}

SEC("?tc")
int bench_decrypt(struct __sk_buff *skb)
{
	return crypt(skb, 0);
}

/* Encrypt the packet into dst, decrypt dst into back, compare back with the packet: an
 * error unless every byte came back. */
SEC("?tc")
int bench_roundtrip(struct __sk_buff *skb)
{
	struct bpf_dynptr psrc, pdst, pback;
	struct bpf_crypto_ctx *ctx = crypto_ctx();
	char orig[BB_DST_MAX];
	__u32 i, diff = 0, same = 0;

	bb_inc(bb_hits);
	if (!ctx || bpf_skb_load_bytes(skb, 0, orig, packet_len)) {
		bb_inc(bb_errors);
		return 0;
	}
	bpf_dynptr_from_skb(skb, 0, &psrc);
	bpf_dynptr_from_mem(dst, packet_len, 0, &pdst);
	bpf_dynptr_from_mem(back, packet_len, 0, &pback);
	if (bpf_crypto_encrypt(ctx, &psrc, &pdst, 0) || bpf_crypto_decrypt(ctx, &pdst, &pback, 0)) {
		bb_inc(bb_errors);
		return 0;
	}
	/* Branch-free: a branch per byte multiplies the verifier's states past its limit. */
	for (i = 0; i < packet_len && i < BB_DST_MAX; i++) {
		__u32 o = (__u8)orig[i];

		diff |= o ^ (__u8)back[i];
		same += ((o ^ (__u8)dst[i]) - 1) >> 31; /* 1 when the byte did not change */
	}
	/* Ciphertext equal to the plaintext would mean nothing was encrypted. */
	if (diff || same == packet_len)
		bb_inc(bb_errors);
	return 0;
}
