/* xdp_lb: a Katran-style XDP L4 load balancer run by BPF_PROG_TEST_RUN, after the kernel's
 * xdp-lb bench (bpf-next selftests, progs/xdp_lb_bench.c). A packet to a known VIP is
 * looked up in this CPU's LRU connection table; on a miss its source is hashed onto the
 * VIP's consistent hash ring to pick a real server, which the LRU then remembers; the
 * packet leaves with XDP_TX in a tunnel to that real (IPIP, IP6IP6, or IPv4 in IPv6).
 * Unknown VIPs and other protocols pass, fragments and IPv4 options drop.
 *
 * Each test_run call runs the packet through the balancer bb_batch_iters times, timed,
 * undoing the tunnel header after each, then once more untimed (BB_BATCH_LOOP of
 * bpfbench_shared.h). The `scenario` param's presets (family.json) give the packet, what
 * setup puts in the maps (lb_fill) and what the checks expect. Emitted around this text:
 * the shared header, bb_tgid and the rodata params expect_retval, add_vip, lru_bypass,
 * vip_num, prepopulate_lru, real_v6, flow_mask and cold_lru. */
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>

char _license[] SEC("license") = "GPL";

/* No libc headers: an installed bpfbench compiles without clang's resource headers. */
typedef _Bool bool;
#define true 1
#define false 0

/* The kernel bench's sizes and constants, so maps and work per packet match. */
#define LB_F_IPV6 1        /* a real reached over IPv6 */
#define LB_F_LRU_BYPASS 2  /* a VIP that never uses the LRU */
#define LB_RING 65537      /* slots of one VIP's consistent hash ring */
#define LB_MAX_VIPS 16
#define LB_RINGS (LB_MAX_VIPS * LB_RING)
#define LB_MAX_REALS 512
#define LB_LRU_SIZE 100000
#define LB_ONE_SEC 1000000000ULL
#define LB_MAX_CONN_RATE 100000000 /* new connections a second before "flood": never here */
#define LB_UDP_TIMEOUT 30000000000ULL
#define LB_IP_FRAG 0x3fff /* the MF flag and the fragment offset */
#define LB_KNUTH 2654435761U
#define LB_V4_SRC_LOW 4268 /* 172.16/12: the tunnel source's first two bytes, in network order */
#define LB_V6_SRC_W0 1     /* 0100::/64 (RFC 6666): the tunnel source's first word */
#define LB_REAL_V4 1       /* the real every ring slot names: IPv4 and IPv6 addresses */
#define LB_REAL_V6 2       /* a real reached over IPv6 only (LB_F_IPV6) */
#define LB_JHASH_INIT 0xdeadbeef

/* Per-CPU stats slots: 0..LB_MAX_VIPS-1 one per VIP (packets, bytes), then these. */
#define LB_ST_LRU (LB_MAX_VIPS + 0)      /* v1: packets to a VIP, v2: their LRU misses */
#define LB_ST_TX (LB_MAX_VIPS + 1)
#define LB_ST_PASS (LB_MAX_VIPS + 2)
#define LB_ST_DROP (LB_MAX_VIPS + 3)
#define LB_ST_NEW_CONN (LB_MAX_VIPS + 4) /* v1: new connections this second, v2: its start */
#define LB_ST_TCP_MISS (LB_MAX_VIPS + 5) /* v1: TCP packets that missed the LRU */
#define LB_ST_SIZE (LB_MAX_VIPS + 6)

struct lb_flow {
	union {
		__be32 src;
		__be32 srcv6[4];
	};
	union {
		__be32 dst;
		__be32 dstv6[4];
	};
	union {
		__u32 ports;
		__u16 port16[2];
	};
	__u8 proto;
	__u8 pad[3];
};

struct lb_vip {
	union {
		__be32 vip;
		__be32 vipv6[4];
	};
	__u16 port;
	__u8 proto;
	__u8 pad;
};

struct lb_vip_meta {
	__u32 flags;
	__u32 vip_num;
};

struct lb_lru_pos {
	__u32 pos;
	__u64 atime;
};

struct lb_real {
	__be32 dst;
	__be32 dstv6[4];
	__u8 flags;
};

struct lb_stats {
	__u64 v1;
	__u64 v2;
};

struct lb_ctl {
	__u8 mac[6];
	__u8 pad[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct lb_vip);
	__type(value, struct lb_vip_meta);
} vip_map SEC(".maps");

/* One LRU connection table per CPU, made by the inner_maps setup action. Sizes, not
 * types: clang emits an inner map's key type as a mere forward declaration. */
struct lb_lru_table {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LB_LRU_SIZE);
	__uint(key_size, sizeof(struct lb_flow));
	__uint(value_size, sizeof(struct lb_lru_pos));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, BB_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
	__array(values, struct lb_lru_table);
} lru_mapping SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LB_RINGS);
	__type(key, __u32);
	__type(value, __u32);
} ch_rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LB_MAX_REALS);
	__type(key, __u32);
	__type(value, struct lb_real);
} reals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LB_ST_SIZE);
	__type(key, __u32);
	__type(value, struct lb_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LB_MAX_REALS);
	__type(key, __u32);
	__type(value, struct lb_stats);
} reals_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lb_ctl);
} ctl_array SEC(".maps");

/* The VIP whose LRU misses are counted per real (lru_miss_stats). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lb_vip);
} vip_miss_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LB_MAX_REALS);
	__type(key, __u32);
	__type(value, __u32);
} lru_miss_stats SEC(".maps");

BB_BATCH_TIMING;

/* The kernel bench's order: the batch size is calibrated on the plain packet (setup's
 * calibrate_batch), then lb_arm_cold turns cold_lru on for the validation runs, and lb_arm
 * after them lets flow_mask scenarios vary the source. */
volatile __u32 cold_armed = 0;
volatile __u32 armed = 0;
__u32 batch_gen = 0; /* cold_lru: one generation per call */

/* Checked by the self-checks (family.json), added once per call (lb_account). */
struct bb_counter bb_runs[BB_MAX_CPUS] = {};       /* program runs (calls) */
struct bb_counter bb_packets[BB_MAX_CPUS] = {};    /* packets processed: timed and untimed */
struct bb_counter bb_verdict_ok[BB_MAX_CPUS] = {}; /* packets whose verdict was expect_retval */
struct bb_counter bb_lru_hits[BB_MAX_CPUS] = {};   /* packets to a VIP the LRU knew */
struct bb_counter bb_lru_misses[BB_MAX_CPUS] = {}; /* packets to a VIP it did not */

static __always_inline __u32 lb_rol(__u32 w, __u32 s)
{
	return (w << s) | (w >> ((32 - s) & 31));
}

/* Bob Jenkins' lookup3 (public domain), the kernel's jhash: the mixing round and the
 * final round on three words. */
static __always_inline void lb_mix(__u32 *a, __u32 *b, __u32 *c)
{
	*a -= *c; *a ^= lb_rol(*c, 4);  *c += *b;
	*b -= *a; *b ^= lb_rol(*a, 6);  *a += *c;
	*c -= *b; *c ^= lb_rol(*b, 8);  *b += *a;
	*a -= *c; *a ^= lb_rol(*c, 16); *c += *b;
	*b -= *a; *b ^= lb_rol(*a, 19); *a += *c;
	*c -= *b; *c ^= lb_rol(*b, 4);  *b += *a;
}

static __always_inline void lb_final(__u32 *a, __u32 *b, __u32 *c)
{
	*c ^= *b; *c -= lb_rol(*b, 14);
	*a ^= *c; *a -= lb_rol(*c, 11);
	*b ^= *a; *b -= lb_rol(*a, 25);
	*c ^= *b; *c -= lb_rol(*b, 16);
	*a ^= *c; *a -= lb_rol(*c, 4);
	*b ^= *a; *b -= lb_rol(*a, 14);
	*c ^= *b; *c -= lb_rol(*b, 24);
}

/* The two hashes are BPF functions of their own, called, as in the kernel bench's object
 * (its `static inline` jhash_2words/jhash2_4words are not inlined by clang): inlined, a
 * consistent-hash packet measured ~4 % faster than the kernel bench's (tcp-v4-ch 0.952-0.964,
 * docs/families/xdp_lb.md). */
static __noinline __u32 lb_hash2(__u32 a, __u32 b, __u32 seed)
{
	__u32 c = seed + LB_JHASH_INIT + (2 << 2);

	a += c;
	b += c;
	lb_final(&a, &b, &c);
	return c;
}

static __noinline __u32 lb_hash4(const __u32 *k, __u32 seed)
{
	__u32 a, b, c;

	a = b = c = LB_JHASH_INIT + (4 << 2) + seed;
	a += k[0];
	b += k[1];
	c += k[2];
	lb_mix(&a, &b, &c);
	a += k[3];
	lb_final(&a, &b, &c);
	return c;
}

/* Tunnel sources carry the client's port and address bits, so the real's replies and
 * ICMP find the flow (Katran's scheme). */
static __always_inline __be32 lb_v4_tunnel_src(__u16 port, __be32 src)
{
	__u32 high = ((__u32)bpf_htons(port) << 16) ^ src;

	return (high & 0xffff0000) | LB_V4_SRC_LOW;
}

static __always_inline void lb_v6_tunnel_src(__u16 port, __be32 src, __be32 *out)
{
	out[0] = LB_V6_SRC_W0;
	out[1] = 0;
	out[2] = 0;
	out[3] = src ^ port;
}

static __always_inline void lb_ipv4_checksum(struct iphdr *iph)
{
	__u16 *w = (__u16 *)iph;
	__u32 sum = 0;

#pragma unroll
	for (int i = 0; i < (int)(sizeof(*iph) / 2); i++)
		sum += w[i];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	iph->check = (__u16)~sum;
}

/* Room for an outer header of `outer` bytes in front of the packet, and a new Ethernet
 * header (the old one's destination becomes the source; the router is the destination):
 * the outer header's place, or NULL. The old Ethernet header ends up where the outer
 * header goes, so it is read before the caller writes that. */
static __always_inline void *lb_push(struct xdp_md *xdp, int outer, __u16 proto, const __u8 *router)
{
	struct ethhdr *eth, *old;
	void *data, *end;

	if (bpf_xdp_adjust_head(xdp, -outer))
		return NULL;
	data = (void *)(long)xdp->data;
	end = (void *)(long)xdp->data_end;
	eth = data;
	old = data + outer;
	if (data + sizeof(*eth) + outer > end) /* covers both Ethernet headers and the outer one */
		return NULL;
	__builtin_memcpy(eth->h_source, old->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, router, ETH_ALEN);
	eth->h_proto = bpf_htons(proto);
	return eth + 1;
}

static __always_inline int lb_push_v4(struct xdp_md *xdp, __be32 saddr, __be32 daddr, __u16 inner_len,
				      const __u8 *router)
{
	struct iphdr *iph = lb_push(xdp, sizeof(*iph), ETH_P_IP, router);

	if (!iph)
		return -1;
	__builtin_memset(iph, 0, sizeof(*iph));
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->protocol = IPPROTO_IPIP;
	iph->tot_len = bpf_htons(inner_len + sizeof(*iph));
	iph->ttl = 64;
	iph->saddr = saddr;
	iph->daddr = daddr;
	lb_ipv4_checksum(iph);
	return 0;
}

static __always_inline int lb_push_v6(struct xdp_md *xdp, const __be32 *saddr, const __be32 *daddr, __u8 next,
				      __u16 inner_len, const __u8 *router)
{
	struct ipv6hdr *ip6h = lb_push(xdp, sizeof(*ip6h), ETH_P_IPV6, router);

	if (!ip6h)
		return -1;
	__builtin_memset(ip6h, 0, sizeof(*ip6h));
	ip6h->version = 6;
	ip6h->nexthdr = next;
	ip6h->payload_len = bpf_htons(inner_len);
	ip6h->hop_limit = 64;
	__builtin_memcpy(&ip6h->saddr, saddr, sizeof(ip6h->saddr));
	__builtin_memcpy(&ip6h->daddr, daddr, sizeof(ip6h->daddr));
	return 0;
}

static __always_inline struct lb_stats *lb_stat(__u32 slot)
{
	return bpf_map_lookup_elem(&stats, &slot);
}

static __always_inline void lb_count(void *map, __u32 slot, __u16 bytes)
{
	struct lb_stats *st = bpf_map_lookup_elem(map, &slot);

	if (st) {
		st->v1 += 1;
		st->v2 += bytes;
	}
}

/* The slot is a local picked by an if chain and looked up here, not through lb_stat(): with
 * the wrapper, clang-19 keeps verdict and slot in two registers from the function's entry
 * and sets them again before every early exit (+3 to +8 BPF instructions on the 4–5 ns
 * early-exit paths; docs/families/xdp_lb.md). */
static __always_inline void lb_count_verdict(int verdict)
{
	struct lb_stats *st;
	__u32 slot;

	if (verdict == XDP_TX)
		slot = LB_ST_TX;
	else if (verdict == XDP_PASS)
		slot = LB_ST_PASS;
	else
		slot = LB_ST_DROP;
	st = bpf_map_lookup_elem(&stats, &slot);
	if (st)
		st->v1 += 1;
}

/* New connections a second over LB_MAX_CONN_RATE stop LRU inserts (a SYN flood guard). */
static __always_inline bool lb_flooded(void)
{
	struct lb_stats *conn = lb_stat(LB_ST_NEW_CONN);
	__u64 now;

	if (!conn)
		return true;
	now = bpf_ktime_get_ns();
	if (now - conn->v2 > LB_ONE_SEC) {
		conn->v1 = 1;
		conn->v2 = now;
		return false;
	}
	conn->v1 += 1;
	return conn->v1 > LB_MAX_CONN_RATE;
}

/* The real the LRU remembers for the flow; a UDP entry idle past its timeout is stale. */
static __always_inline struct lb_real *lb_lru_lookup(void *lru, struct lb_flow *flow, __u32 *pos)
{
	struct lb_lru_pos *hit = bpf_map_lookup_elem(lru, flow);
	__u32 key;

	if (!hit)
		return NULL;
	if (flow->proto == IPPROTO_UDP) {
		__u64 now = bpf_ktime_get_ns();

		if (now - hit->atime > LB_UDP_TIMEOUT)
			return NULL;
		hit->atime = now;
	}
	key = hit->pos;
	*pos = key;
	return bpf_map_lookup_elem(&reals, &key);
}

/* The real of the flow's ring slot, remembered in the LRU unless the VIP bypasses it, a
 * flood is on or the packet is a RST. */
static __always_inline bool lb_ring_lookup(struct lb_real **real, struct lb_flow *flow, struct lb_vip_meta *vip,
					   bool v6, void *lru, bool rst, __u32 *pos)
{
	bool flood = lb_flooded();
	__u32 hash, slot, real_pos, *ring;

	if (v6)
		hash = lb_hash2(lb_hash4(flow->srcv6, LB_MAX_VIPS), flow->ports, LB_RING);
	else
		hash = lb_hash2(flow->src, flow->ports, LB_RING);
	slot = LB_RING * vip->vip_num + hash % LB_RING;
	ring = bpf_map_lookup_elem(&ch_rings, &slot);
	if (!ring)
		return false;
	real_pos = *ring;
	*real = bpf_map_lookup_elem(&reals, &real_pos);
	if (!*real)
		return false;
	if (!(vip->flags & LB_F_LRU_BYPASS) && !flood && !rst) {
		struct lb_lru_pos fresh = { .pos = real_pos };

		if (flow->proto == IPPROTO_UDP)
			fresh.atime = bpf_ktime_get_ns();
		bpf_map_update_elem(lru, flow, &fresh, BPF_ANY);
	}
	*pos = real_pos;
	return true;
}

/* LRU misses of the watched VIP, per real. */
static __always_inline void lb_count_vip_miss(struct lb_vip *vip, bool v6, __u32 real)
{
	__u32 zero = 0, *n;
	struct lb_vip *watched = bpf_map_lookup_elem(&vip_miss_stats, &zero);

	if (!watched)
		return;
	if (v6 ? watched->vipv6[0] != vip->vipv6[0] || watched->vipv6[1] != vip->vipv6[1] ||
			 watched->vipv6[2] != vip->vipv6[2] || watched->vipv6[3] != vip->vipv6[3]
	       : watched->vip != vip->vip)
		return;
	if (watched->port != vip->port || watched->proto != vip->proto)
		return;
	n = bpf_map_lookup_elem(&lru_miss_stats, &real);
	if (n)
		*n += 1;
}

/* Parses the IP header after `eth` into the flow and VIP keys; XDP_DROP for what the
 * balancer refuses, XDP_PASS for what is not IP, 0 to go on. */
static __always_inline int lb_parse_ip(struct ethhdr *eth, void *end, bool v6, struct lb_flow *flow,
				       struct lb_vip *vip, __u16 *len, __u8 *proto, void **l4)
{
	if (v6) {
		struct ipv6hdr *ip6h = (void *)(eth + 1);

		if ((void *)(ip6h + 1) > end || ip6h->nexthdr == 44 /* fragment header */)
			return XDP_DROP;
		*len = sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len);
		*proto = ip6h->nexthdr;
		__builtin_memcpy(flow->srcv6, &ip6h->saddr, sizeof(flow->srcv6));
		__builtin_memcpy(flow->dstv6, &ip6h->daddr, sizeof(flow->dstv6));
		__builtin_memcpy(vip->vipv6, &ip6h->daddr, sizeof(vip->vipv6));
		*l4 = ip6h + 1;
		return 0;
	}
	struct iphdr *iph = (void *)(eth + 1);

	if ((void *)(iph + 1) > end || iph->ihl != 5 || (iph->frag_off & bpf_htons(LB_IP_FRAG)))
		return XDP_DROP;
	*len = bpf_ntohs(iph->tot_len);
	*proto = iph->protocol;
	flow->src = iph->saddr;
	flow->dst = iph->daddr;
	vip->vip = iph->daddr;
	*l4 = iph + 1;
	return 0;
}

/* One packet through the balancer: its verdict, the packet tunnelled when XDP_TX. */
static __noinline int lb_process(struct xdp_md *xdp)
{
	void *data = (void *)(long)xdp->data, *end = (void *)(long)xdp->data_end;
	struct ethhdr *eth = data;
	struct lb_real *dst = NULL;
	struct lb_vip vip = {};
	struct lb_flow flow = {};
	struct lb_vip_meta *meta;
	struct lb_stats *lru_st;
	struct lb_ctl *ctl;
	struct udphdr *uh;
	__be32 tunnel_src[4];
	__u32 real_pos = 0, cpu, zero;
	__u16 len = 0;
	__u8 proto = 0;
	int verdict = XDP_DROP;
	bool v6, syn = false, rst = false;
	void *l4 = NULL, *lru;

	if ((void *)(eth + 1) > end)
		goto out;
	/* One test per ethertype (an IPv4 packet pays one branch, not three). */
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		v6 = true;
	} else if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		v6 = false;
	} else {
		verdict = XDP_PASS;
		goto out;
	}
	verdict = lb_parse_ip(eth, end, v6, &flow, &vip, &len, &proto, &l4);
	if (verdict)
		goto out;
	verdict = XDP_DROP;
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP) {
		verdict = XDP_PASS;
		goto out;
	}
	uh = l4; /* TCP and UDP ports sit at the same place */
	if ((void *)(uh + 1) > end)
		goto out;
	flow.port16[0] = uh->source;
	flow.port16[1] = uh->dest;
	if (proto == IPPROTO_TCP) {
		struct tcphdr *th = l4;

		if ((void *)(th + 1) > end)
			goto out;
		syn = th->syn;
		rst = th->rst;
	}
	flow.proto = proto;
	vip.port = flow.port16[1];
	vip.proto = proto;

	meta = bpf_map_lookup_elem(&vip_map, &vip);
	if (!meta) {
		verdict = XDP_PASS;
		goto out;
	}
	lru_st = lb_stat(LB_ST_LRU);
	if (!lru_st)
		goto out;
	lru_st->v1 += 1;
	cpu = bpf_get_smp_processor_id();
	lru = bpf_map_lookup_elem(&lru_mapping, &cpu);
	if (!lru)
		goto out;
	if (!(meta->flags & LB_F_LRU_BYPASS) && !syn)
		dst = lb_lru_lookup(lru, &flow, &real_pos);
	if (!dst) {
		if (proto == IPPROTO_TCP) {
			struct lb_stats *miss = lb_stat(LB_ST_TCP_MISS);

			if (miss)
				miss->v1 += 1;
		}
		if (!lb_ring_lookup(&dst, &flow, meta, v6, lru, rst, &real_pos))
			goto out;
		lb_count_vip_miss(&vip, v6, real_pos);
		lru_st->v2 += 1;
	}
	zero = 0; /* stored here, where it is the key, not on every path from the entry */
	ctl = bpf_map_lookup_elem(&ctl_array, &zero);
	if (!ctl)
		goto out;
	lb_count(&stats, meta->vip_num, len);
	lb_count(&reals_stats, real_pos, len);

	if (v6) {
		lb_v6_tunnel_src(flow.port16[0], flow.srcv6[0], tunnel_src);
		if (lb_push_v6(xdp, tunnel_src, dst->dstv6, IPPROTO_IPV6, len, ctl->mac))
			goto out;
	} else if (dst->flags & LB_F_IPV6) {
		lb_v6_tunnel_src(flow.port16[0], flow.src, tunnel_src);
		if (lb_push_v6(xdp, tunnel_src, dst->dstv6, IPPROTO_IPIP, len, ctl->mac))
			goto out;
	} else if (lb_push_v4(xdp, lb_v4_tunnel_src(flow.port16[0], flow.src), dst->dst, len, ctl->mac)) {
		goto out;
	}
	verdict = XDP_TX;
out:
	lb_count_verdict(verdict);
	return verdict;
}

/* Takes the tunnel header off again and puts the packet's own Ethernet header back. */
static __always_inline int lb_pop(struct xdp_md *xdp, const struct ethhdr *orig)
{
	struct ethhdr *eth = (void *)(long)xdp->data;
	void *end = (void *)(long)xdp->data_end;
	int outer;

	if ((void *)(eth + 1) > end)
		return -1;
	outer = eth->h_proto == bpf_htons(ETH_P_IPV6) ? (int)sizeof(struct ipv6hdr) : (int)sizeof(struct iphdr);
	if (bpf_xdp_adjust_head(xdp, outer))
		return -1;
	eth = (void *)(long)xdp->data;
	end = (void *)(long)xdp->data_end;
	if ((void *)(eth + 1) > end)
		return -1;
	__builtin_memcpy(eth, orig, sizeof(*orig));
	return 0;
}

/* The first word of the source address at `off`, if the packet holds it. */
static __always_inline __u32 *lb_src_word(struct xdp_md *xdp, int off)
{
	void *data = (void *)(long)xdp->data, *end = (void *)(long)xdp->data_end;
	__u32 *w = data + off;

	return (void *)(w + 1) <= end ? w : NULL;
}

/* flow_mask: the next source from a xorshift generator, masked: that many flows. */
static __always_inline void lb_next_src(struct xdp_md *xdp, int off, __u32 *state)
{
	__u32 *w;

	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	w = lb_src_word(xdp, off);
	if (w)
		*w = *state & flow_mask;
}

/* This CPU's stats counters the checks read. A call runs on one CPU (test_run disables
 * migration), so what they grow by over the call is the call's own: the checks cost
 * nothing per packet, and the timed loop is the kernel bench's. */
struct lb_snapshot {
	__u64 vip, miss, tx, pass, drop;
};

static __always_inline void lb_snap(struct lb_snapshot *s)
{
	struct lb_stats *st = lb_stat(LB_ST_LRU);

	if (st) {
		s->vip = st->v1;
		s->miss = st->v2;
	}
	st = lb_stat(LB_ST_TX);
	s->tx = st ? st->v1 : 0;
	st = lb_stat(LB_ST_PASS);
	s->pass = st ? st->v1 : 0;
	st = lb_stat(LB_ST_DROP);
	s->drop = st ? st->v1 : 0;
}

/* The call's counts into the self-checks' counters. */
static __always_inline void lb_account(const struct lb_snapshot *a, const struct lb_snapshot *b)
{
	__u64 tx = b->tx - a->tx, pass = b->pass - a->pass, drop = b->drop - a->drop, miss = b->miss - a->miss;

	bb_inc(bb_runs);
	bb_add(bb_packets, tx + pass + drop);
	bb_add(bb_verdict_ok, expect_retval == XDP_TX ? tx : expect_retval == XDP_PASS ? pass
							: expect_retval == XDP_DROP ? drop : 0);
	bb_add(bb_lru_misses, miss);
	bb_add(bb_lru_hits, b->vip - a->vip - miss);
}

SEC("?xdp")
int xdp_lb(struct xdp_md *xdp)
{
	struct ethhdr *eth = (void *)(long)xdp->data, orig;
	void *end = (void *)(long)xdp->data_end;
	struct lb_snapshot before = {}, after = {};
	__u32 rand = 0, poison = 0, *w;
	bool cold = cold_lru && cold_armed;
	int off, verdict;

	if ((void *)(eth + 1) > end)
		return XDP_DROP;
	__builtin_memcpy(&orig, eth, sizeof(orig));
	off = sizeof(struct ethhdr) + (orig.h_proto == bpf_htons(ETH_P_IPV6) ? __builtin_offsetof(struct ipv6hdr, saddr)
									   : __builtin_offsetof(struct iphdr, saddr));
	if (armed && flow_mask)
		rand = bpf_get_prandom_u32() | 1;
	/* cold_lru: each call's first packet comes from a source no call used before. */
	if (cold) {
		batch_gen++;
		poison = (batch_gen + bpf_get_smp_processor_id()) * LB_KNUTH;
		w = lb_src_word(xdp, off);
		if (w)
			*w ^= poison;
	}
	lb_snap(&before);

	verdict = BB_BATCH_LOOP(lb_process(xdp), ({
		if (bb_result == XDP_TX) {
			if (lb_pop(xdp, &orig))
				return XDP_DROP;
			if (rand)
				lb_next_src(xdp, off, &rand);
		}
		if (cold) {
			w = lb_src_word(xdp, off);
			if (w)
				*w ^= poison;
		}
	}));

	lb_snap(&after);
	lb_account(&before, &after);
	return verdict;
}

/* Setup, on the scenario's packet: the VIP, the rings, the reals, the router's MAC and,
 * when the scenario says so, the flow in every CPU's LRU. XDP_PASS when every write held. */
struct lb_fill_ctx {
	int failed;
};

static int lb_fill_ring(__u32 i, struct lb_fill_ctx *c)
{
	__u32 *slot = bpf_map_lookup_elem(&ch_rings, &i);

	if (!slot) {
		c->failed = 1;
		return 1;
	}
	*slot = LB_REAL_V4;
	return 0;
}

struct lb_fill_lru_ctx {
	struct lb_flow flow;
	struct lb_lru_pos pos;
	int filled, failed;
};

/* The flow into CPU `cpu`'s table, where there is one (a bpf_loop callback: the verifier
 * would walk a plain loop over BB_MAX_CPUS slots one by one). */
static int lb_fill_cpu(__u32 cpu, struct lb_fill_lru_ctx *c)
{
	void *lru = bpf_map_lookup_elem(&lru_mapping, &cpu);

	if (!lru)
		return 0;
	if (bpf_map_update_elem(lru, &c->flow, &c->pos, BPF_ANY))
		c->failed = 1;
	else
		c->filled++;
	return 0;
}

static __always_inline int lb_fill_lru(struct lb_flow *flow, bool udp)
{
	struct lb_fill_lru_ctx c = { .pos = { .pos = real_v6 ? LB_REAL_V6 : LB_REAL_V4 } };

	c.flow = *flow;
	if (udp)
		c.pos.atime = bpf_ktime_get_ns();
	bpf_loop(BB_MAX_CPUS, lb_fill_cpu, &c, 0);
	return c.failed || !c.filled ? -1 : 0; /* no table at all: inner_maps did not run */
}

SEC("?xdp")
int lb_fill(struct xdp_md *xdp)
{
	void *data = (void *)(long)xdp->data, *end = (void *)(long)xdp->data_end;
	struct lb_real real4 = { .dst = bpf_htonl(0xc0a80102) /* 192.168.1.2 */ }, real6 = { .flags = LB_F_IPV6 };
	struct lb_ctl ctl = { .mac = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01 } };
	struct lb_vip_meta meta = { .flags = lru_bypass ? LB_F_LRU_BYPASS : 0, .vip_num = vip_num };
	struct lb_fill_ctx c = {};
	struct ethhdr *eth = data;
	struct lb_flow flow = {};
	struct lb_vip vip = {};
	__u32 key, zero = 0;
	__u16 len;
	__u8 proto = 0;
	void *l4 = NULL;
	struct udphdr *uh;

	bpf_loop(LB_RINGS, lb_fill_ring, &c, 0);
	if (c.failed)
		return XDP_ABORTED;
	/* fd00::2 (real6 also for IPv6 packets to LB_REAL_V4) */
	real4.dstv6[0] = real6.dstv6[0] = bpf_htonl(0xfd000000);
	real4.dstv6[3] = real6.dstv6[3] = bpf_htonl(2);
	key = LB_REAL_V4;
	if (bpf_map_update_elem(&reals, &key, &real4, BPF_ANY))
		return XDP_ABORTED;
	key = LB_REAL_V6;
	if (bpf_map_update_elem(&reals, &key, &real6, BPF_ANY) || bpf_map_update_elem(&ctl_array, &zero, &ctl, BPF_ANY))
		return XDP_ABORTED;
	if (!add_vip && !prepopulate_lru)
		return XDP_PASS;

	/* The keys of the packet, as lb_process reads them. */
	if ((void *)(eth + 1) > end || (eth->h_proto != bpf_htons(ETH_P_IP) && eth->h_proto != bpf_htons(ETH_P_IPV6)))
		return XDP_DROP;
	if (lb_parse_ip(eth, end, eth->h_proto == bpf_htons(ETH_P_IPV6), &flow, &vip, &len, &proto, &l4))
		return XDP_DROP;
	uh = l4;
	if ((void *)(uh + 1) > end)
		return XDP_DROP;
	flow.port16[0] = uh->source;
	flow.port16[1] = uh->dest;
	flow.proto = proto;
	vip.port = uh->dest;
	vip.proto = proto;
	if (add_vip && (bpf_map_update_elem(&vip_map, &vip, &meta, BPF_ANY) ||
			bpf_map_update_elem(&vip_miss_stats, &zero, &vip, BPF_ANY)))
		return XDP_ABORTED;
	if (prepopulate_lru && lb_fill_lru(&flow, proto == IPPROTO_UDP))
		return XDP_ABORTED;
	return XDP_PASS;
}

/* After calibration: cold_lru scenarios start poisoning each call's first packet. */
SEC("?syscall")
int lb_arm_cold(void *ctx)
{
	cold_armed = 1;
	return 0;
}

/* After the validation runs: flow_mask scenarios start varying the source. */
SEC("?syscall")
int lb_arm(void *ctx)
{
	armed = 1;
	return 0;
}
