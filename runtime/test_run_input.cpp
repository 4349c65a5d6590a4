#include "runtime/test_run_input.hpp"

#include "runtime/packet_builder.hpp"

namespace bpfbench {
namespace {

// The header stacks `packet` names.
struct PacketKind {
  const char *name;
  PacketSpec::L3 l3;
  PacketSpec::L4 l4;
};
constexpr PacketKind kKinds[] = {
    {"eth_ipv4_udp", PacketSpec::L3::Ipv4, PacketSpec::L4::Udp},
    {"eth_ipv4_tcp", PacketSpec::L3::Ipv4, PacketSpec::L4::Tcp},
    {"eth_ipv4_icmp", PacketSpec::L3::Ipv4, PacketSpec::L4::Icmp},
    {"eth_ipv6_udp", PacketSpec::L3::Ipv6, PacketSpec::L4::Udp},
    {"eth_ipv6_tcp", PacketSpec::L3::Ipv6, PacketSpec::L4::Tcp},
    {"eth_arp", PacketSpec::L3::Arp, PacketSpec::L4::None},
};

const PacketKind *find_kind(const std::string &name) {
  for (const auto &k : kKinds)
    if (name == k.name) return &k;
  return nullptr;
}

// An address param's value, or `fallback` (an address literal) when the point has none.
Result<Address> address_param(const PointParams &p, const KindParam &k, const char *fallback) {
  const ParamValue *v = p.param(k);
  const std::string text = v && !v->is_int ? v->s : fallback;
  auto a = parse_address(text);
  if (!a) return Error(std::string(k.name) + ": " + a.error().message);
  return *a;
}

Result<std::vector<uint8_t>> headers_packet(const PacketKind &k, const PointParams &p, uint32_t len) {
  PacketSpec s;
  s.l3 = k.l3;
  s.l4 = k.l4;
  s.len = len;
  const bool v6 = k.l3 == PacketSpec::L3::Ipv6;
  struct Field {
    Address *out;
    const KindParam &param;
    const char *fallback;
  };
  for (const Field &f : {Field{&s.eth_src, kind_params::packet_eth_src, "02:00:00:00:00:01"},
                         Field{&s.eth_dst, kind_params::packet_eth_dst, "02:00:00:00:00:02"},
                         Field{&s.src, kind_params::packet_src, v6 ? "fd00::1" : "10.0.0.1"},
                         Field{&s.dst, kind_params::packet_dst, v6 ? "fd00::2" : "10.0.0.2"}}) {
    auto a = address_param(p, f.param, f.fallback);
    if (!a) return a.error();
    *f.out = *a;
  }
  const int64_t sport = p.int_param(kind_params::packet_sport),
                dport = p.int_param(kind_params::packet_dport),
                flags = p.int_param(kind_params::packet_tcp_flags),
                options = p.int_param(kind_params::packet_ip_options);
  if (sport < 0 || sport > 65535 || dport < 0 || dport > 65535) return Error("packet ports must be in [0, 65535]");
  if (flags < 0 || flags > 255) return Error("packet_tcp_flags must be in [0, 255]");
  if (options < 0 || options > 10) return Error("packet_ip_options must be in [0, 10]");
  s.sport = static_cast<uint16_t>(sport);
  s.dport = static_cast<uint16_t>(dport);
  s.tcp_flags = static_cast<uint8_t>(flags);
  s.ip_frag = p.int_param(kind_params::packet_ip_frag) != 0;
  s.ip_option_words = static_cast<uint32_t>(options);
  auto pkt = build_packet(s);
  if (!pkt) return Error(std::string(k.name) + ": " + pkt.error().message);
  return pkt;
}

std::string kind_names() {
  std::string out = "digits";
  for (const auto &k : kKinds) out += std::string(", ") + k.name;
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> make_packet(const std::string &kind, uint32_t len, uint32_t seed) {
  if (kind == "digits") {
    std::vector<uint8_t> pkt(len);
    uint32_t x = seed ? seed : 1;
    for (auto &b : pkt) {
      x = x * 1103515245u + 12345u;
      b = static_cast<uint8_t>('1' + (x >> 16) % 9);
    }
    if (len) pkt.back() = 0;
    return pkt;
  }
  if (const PacketKind *k = find_kind(kind)) {
    const PlanPoint none;
    return headers_packet(*k, PointParams(none), len);
  }
  return Error("unknown packet '" + kind + "' (expected " + kind_names() + ")");
}

Result<TestRunInput> test_run_input_for(const PlanPoint &p, uint32_t seed) {
  return test_run_input_for(PointParams(p), seed);
}

Result<TestRunInput> test_run_input_for(const PointParams &p, uint32_t seed) {
  TestRunInput in;
  const int64_t repeat = p.int_param(kind_params::test_run_repeat),
                len = p.int_param(kind_params::packet_len);
  if (repeat < 0 || repeat > UINT32_MAX) return Error("test_run_repeat out of range: " + std::to_string(repeat));
  if (len < 0 || len > UINT32_MAX) return Error("packet_len out of range: " + std::to_string(len));
  in.repeat = static_cast<uint32_t>(repeat);
  if (len == 0) return in;
  const ParamValue *kind = p.param(kind_params::packet);
  const std::string name = kind && !kind->is_int ? kind->s : "digits";
  auto pkt = name == "digits" || !find_kind(name) ? make_packet(name, static_cast<uint32_t>(len), seed)
                                                  : headers_packet(*find_kind(name), p, static_cast<uint32_t>(len));
  if (!pkt) return pkt.error();
  in.data_in = std::move(*pkt);
  return in;
}

Result<std::optional<std::vector<uint8_t>>> expected_output_for(const PlanPoint &p, const std::vector<uint8_t> &input) {
  return expected_output_for(PointParams(p), input);
}

Result<std::optional<std::vector<uint8_t>>> expected_output_for(const PointParams &p,
                                                                const std::vector<uint8_t> &input) {
  const ParamValue *mode = p.param(kind_params::expect_packet);
  const std::string m = mode && !mode->is_int ? mode->s : "any";
  if (m == "any") return std::optional<std::vector<uint8_t>>();
  if (m == "input") return std::optional(input);
  if (m != "encap") return Error("unknown expect_packet '" + m + "' (expected any, input or encap)");
  Encap e;
  struct Field {
    Address *out;
    const KindParam &param;
  };
  for (const Field &f :
       {Field{&e.outer_src, kind_params::expect_outer_src}, Field{&e.outer_dst, kind_params::expect_outer_dst},
        Field{&e.eth_src, kind_params::expect_eth_src}, Field{&e.eth_dst, kind_params::expect_eth_dst}}) {
    if (!p.param(f.param)) return Error(std::string("expect_packet encap needs the param ") + f.param.name);
    auto a = address_param(p, f.param, "");
    if (!a) return a.error();
    *f.out = *a;
  }
  auto out = encapsulate(input, e);
  if (!out) return out.error();
  return std::optional(std::move(*out));
}

}  // namespace bpfbench
