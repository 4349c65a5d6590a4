/* sockmap and sk_msg forwarding, after the kernel's sockmap bench: TCP loopback pairs
 * c1 <-> p1 and c2 <-> p2; a sendfile() producer writes a 128 KiB pattern file to one
 * socket again and again, and the consumer reads c2 and checks every byte. The programs
 * count the bytes they see (bb_bytes) and pass them on or redirect them:
 *   rx_*: sk_skb/stream_verdict on sock_map_rx (runs as a socket of the map receives),
 *   tx_*: sk_msg on sock_map_tx (runs as a socket of the map sends).
 * Redirects go to key 1 of the map; *_ingress ones to its receive queue (BPF_F_INGRESS),
 * *_egress ones out of it. The setup actions put the sockets in the maps (family.json).
 * Emitted around this text (docs/families.md): the shared header and bb_tgid. */

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} sock_map_rx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} sock_map_tx SEC(".maps");

struct bb_counter bb_bytes[BB_MAX_CPUS] = {};
struct bb_counter bb_dropped[BB_MAX_CPUS] = {};

static __always_inline int bb_skb_redirect(struct __sk_buff *skb, __u64 flags)
{
	int ret = bpf_sk_redirect_map(skb, &sock_map_rx, 1, flags);

	if (ret == SK_DROP)
		bb_inc(bb_dropped);
	bb_add(bb_bytes, skb->len);
	return ret;
}

static __always_inline int bb_msg_redirect(struct sk_msg_md *msg, __u64 flags)
{
	int ret;

	bb_add(bb_bytes, msg->size);
	ret = bpf_msg_redirect_map(msg, &sock_map_tx, 1, flags);
	if (ret == SK_DROP)
		bb_inc(bb_dropped);
	return ret;
}

SEC("?sk_skb/stream_verdict")
int rx_pass(struct __sk_buff *skb)
{
	bb_add(bb_bytes, skb->len);
	return SK_PASS;
}

SEC("?sk_skb/stream_verdict")
int rx_verdict_egress(struct __sk_buff *skb)
{
	return bb_skb_redirect(skb, 0);
}

SEC("?sk_skb/stream_verdict")
int rx_verdict_ingress(struct __sk_buff *skb)
{
	return bb_skb_redirect(skb, BPF_F_INGRESS);
}

SEC("?sk_msg")
int tx_pass(struct sk_msg_md *msg)
{
	bb_add(bb_bytes, msg->size);
	return SK_PASS;
}

SEC("?sk_msg")
int tx_verdict_egress(struct sk_msg_md *msg)
{
	return bb_msg_redirect(msg, 0);
}

SEC("?sk_msg")
int tx_verdict_ingress(struct sk_msg_md *msg)
{
	return bb_msg_redirect(msg, BPF_F_INGRESS);
}
