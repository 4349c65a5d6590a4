#include "runtime/packet_builder.hpp"

#include <fmt/format.h>

#include <cstring>

namespace bpfbench {
namespace {

constexpr uint32_t kEth = 14, kIpv4 = 20, kIpv6 = 40, kFrag6 = 8, kUdp = 8, kTcp = 20, kIcmp = 8;
constexpr uint16_t kEthIpv4 = 0x0800, kEthIpv6 = 0x86dd, kEthArp = 0x0806;
constexpr uint8_t kProtoIcmp = 1, kProtoIpip = 4, kProtoTcp = 6, kProtoUdp = 17, kProtoIpv6 = 41, kProtoFrag = 44;

void put16(uint8_t *p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

// The Internet checksum (RFC 1071) of `len` bytes: the one's complement of the
// one's-complement sum of their big-endian 16-bit words.
uint16_t inet_checksum(const uint8_t *p, size_t len) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2) sum += static_cast<uint32_t>(p[i] << 8 | p[i + 1]);
  if (len & 1) sum += static_cast<uint32_t>(p[len - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

uint32_t l4_len(PacketSpec::L4 l4) {
  switch (l4) {
  case PacketSpec::L4::Udp: return kUdp;
  case PacketSpec::L4::Tcp: return kTcp;
  case PacketSpec::L4::Icmp: return kIcmp;
  case PacketSpec::L4::None: return 0;
  }
  return 0;
}

uint8_t l4_proto(PacketSpec::L4 l4) {
  return l4 == PacketSpec::L4::Tcp ? kProtoTcp : l4 == PacketSpec::L4::Udp ? kProtoUdp : kProtoIcmp;
}

void put_eth(uint8_t *p, const Address &dst, const Address &src, uint16_t type) {
  std::memcpy(p, dst.bytes.data(), 6);
  std::memcpy(p + 6, src.bytes.data(), 6);
  put16(p + 12, type);
}

// An IPv4 header of `ihl_words` words, `total` bytes long (it and what follows).
void put_ipv4(uint8_t *p, uint32_t ihl_words, uint32_t total, uint8_t proto, bool frag, const Address &src,
              const Address &dst) {
  p[0] = static_cast<uint8_t>(0x40 | ihl_words);
  put16(p + 2, total);
  if (frag) put16(p + 6, 0x2000);  // more fragments, offset 0
  p[8] = 64;                       // TTL
  p[9] = proto;
  std::memcpy(p + 12, src.bytes.data(), 4);
  std::memcpy(p + 16, dst.bytes.data(), 4);
  for (uint32_t i = kIpv4; i < ihl_words * 4; ++i) p[i] = 1;  // NOP options
  put16(p + 10, inet_checksum(p, ihl_words * 4));
}

void put_ipv6(uint8_t *p, uint32_t payload, uint8_t next, const Address &src, const Address &dst) {
  p[0] = 0x60;
  put16(p + 4, payload);
  p[6] = next;
  p[7] = 64;  // hop limit
  std::memcpy(p + 8, src.bytes.data(), 16);
  std::memcpy(p + 24, dst.bytes.data(), 16);
}

// The L4 header at `p`, `len` bytes to the frame's end.
void put_l4(uint8_t *p, uint32_t len, const PacketSpec &s) {
  switch (s.l4) {
  case PacketSpec::L4::Udp:
    put16(p, s.sport);
    put16(p + 2, s.dport);
    put16(p + 4, len);
    break;
  case PacketSpec::L4::Tcp:
    put16(p, s.sport);
    put16(p + 2, s.dport);
    p[12] = 5 << 4;  // data offset: 5 words
    p[13] = s.tcp_flags;
    put16(p + 14, 8192);  // window
    break;
  case PacketSpec::L4::Icmp:
    p[0] = 8;  // echo request
    put16(p + 2, inet_checksum(p, len));
    break;
  case PacketSpec::L4::None: break;
  }
}

std::string layer_error(const PacketSpec &s) {
  const Address::Kind ip = s.l3 == PacketSpec::L3::Ipv6 ? Address::Kind::Ipv6 : Address::Kind::Ipv4;
  if (s.eth_src.kind != Address::Kind::Mac || s.eth_dst.kind != Address::Kind::Mac)
    return "the Ethernet source and destination must be MACs";
  if (s.l3 != PacketSpec::L3::Arp && (s.src.kind != ip || s.dst.kind != ip))
    return std::string("an ") + address_kind_name(ip) + " packet needs " + address_kind_name(ip) +
           " source and destination addresses";
  if (s.ip_option_words > 10) return "at most 10 words of IPv4 options (IHL 15)";
  return "";
}

}  // namespace

uint32_t packet_header_len(const PacketSpec &s) {
  switch (s.l3) {
  case PacketSpec::L3::Arp: return kEth;
  case PacketSpec::L3::Ipv4: return kEth + kIpv4 + 4 * s.ip_option_words + l4_len(s.l4);
  case PacketSpec::L3::Ipv6: return kEth + kIpv6 + (s.ip_frag ? kFrag6 : 0) + l4_len(s.l4);
  }
  return kEth;
}

Result<std::vector<uint8_t>> build_packet(const PacketSpec &s) {
  if (std::string why = layer_error(s); !why.empty()) return Error("packet: " + why);
  const uint32_t need = packet_header_len(s);
  if (s.len < need || s.len > 65535)
    return Error(
        fmt::format("packet: its headers take {} bytes; packet_len {} is outside [{}, 65535]", need, s.len, need));
  std::vector<uint8_t> pkt(s.len, 0);
  uint8_t *p = pkt.data();
  const uint16_t type = s.l3 == PacketSpec::L3::Ipv4 ? kEthIpv4 : s.l3 == PacketSpec::L3::Ipv6 ? kEthIpv6 : kEthArp;
  put_eth(p, s.eth_dst, s.eth_src, type);
  if (s.l3 == PacketSpec::L3::Arp) return pkt;
  uint32_t at = kEth;
  const uint8_t proto = s.l4 == PacketSpec::L4::None ? 59 /* no next header */ : l4_proto(s.l4);
  if (s.l3 == PacketSpec::L3::Ipv4) {
    const uint32_t words = 5 + s.ip_option_words;
    put_ipv4(p + at, words, s.len - at, proto, s.ip_frag, s.src, s.dst);
    at += words * 4;
  } else {
    put_ipv6(p + at, s.len - at - kIpv6, s.ip_frag ? kProtoFrag : proto, s.src, s.dst);
    at += kIpv6;
    if (s.ip_frag) {
      p[at] = proto;
      p[at + 3] = 1;  // offset 0, M (more fragments)
      at += kFrag6;
    }
  }
  put_l4(p + at, s.len - at, s);
  return pkt;
}

Result<std::vector<uint8_t>> encapsulate(const std::vector<uint8_t> &in, const Encap &e) {
  if (in.size() < kEth) return Error("encap: the input is shorter than an Ethernet header");
  const uint32_t type = static_cast<uint32_t>(in[12] << 8 | in[13]);
  if (type != kEthIpv4 && type != kEthIpv6) return Error("encap: the input is no IPv4 or IPv6 frame");
  const bool v6 = e.outer_src.kind == Address::Kind::Ipv6;
  if (e.outer_src.kind == Address::Kind::Mac || e.outer_src.kind != e.outer_dst.kind)
    return Error("encap: the outer source and destination must both be IPv4 or both IPv6 addresses");
  if (e.eth_src.kind != Address::Kind::Mac || e.eth_dst.kind != Address::Kind::Mac)
    return Error("encap: the output's Ethernet source and destination must be MACs");
  const uint32_t inner = static_cast<uint32_t>(in.size()) - kEth, outer = v6 ? kIpv6 : kIpv4;
  std::vector<uint8_t> out(kEth + outer + inner, 0);
  put_eth(out.data(), e.eth_dst, e.eth_src, v6 ? kEthIpv6 : kEthIpv4);
  const uint8_t proto = type == kEthIpv4 ? kProtoIpip : kProtoIpv6;
  if (v6) put_ipv6(out.data() + kEth, inner, proto, e.outer_src, e.outer_dst);
  else put_ipv4(out.data() + kEth, 5, outer + inner, proto, false, e.outer_src, e.outer_dst);
  std::memcpy(out.data() + kEth + outer, in.data() + kEth, inner);
  return out;
}

std::string packet_diff(const std::vector<uint8_t> &got, const std::vector<uint8_t> &want) {
  if (got == want) return "";
  std::string out = fmt::format("got {} bytes, expected {}", got.size(), want.size());
  const size_t n = std::max(got.size(), want.size());
  int shown = 0;
  for (size_t i = 0; i < n && shown < 8; ++i) {
    const bool in_got = i < got.size(), in_want = i < want.size();
    if (in_got && in_want && got[i] == want[i]) continue;
    out += fmt::format("; offset 0x{:03x}: got {} expected {}", i, in_got ? fmt::format("0x{:02x}", got[i]) : "-",
                       in_want ? fmt::format("0x{:02x}", want[i]) : "-");
    ++shown;
  }
  return shown == 8 ? out + "; ..." : out;
}

}  // namespace bpfbench
