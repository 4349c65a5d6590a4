// Packets for programs run by BPF_PROG_TEST_RUN (XDP, tc): an Ethernet frame with an IPv4,
// IPv6 or ARP-typed header stack, built from a description, and the output a program that
// tunnels it should produce (the input with an outer IP header, new MACs). Pure: no BPF.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/family/address.hpp"
#include "util/error.hpp"

namespace bpfbench {

// What the frame holds, header by header. L4 checksums are 0 (none, for UDP over IPv4):
// programs under test parse headers, they do not verify transport checksums. IPv4 headers
// carry a valid checksum; an ICMP echo request a valid ICMP checksum.
struct PacketSpec {
  enum class L3 { Ipv4, Ipv6, Arp };  // Arp: the Ethernet type only, then the payload
  enum class L4 { Udp, Tcp, Icmp, None };
  L3 l3 = L3::Ipv4;
  L4 l4 = L4::Udp;
  Address eth_src, eth_dst;          // MACs
  Address src, dst;                  // IPv4 or IPv6, as l3 says
  uint16_t sport = 4096, dport = 9;  // UDP and TCP
  uint8_t tcp_flags = 0;             // the TCP flags byte: 0x01 FIN, 0x02 SYN, 0x04 RST, 0x10 ACK
  // IPv4: the more-fragments flag set; IPv6: a Fragment extension header (offset 0, M set)
  // between the IPv6 header and the L4 header: a first fragment either way.
  bool ip_frag = false;
  uint32_t ip_option_words = 0;  // IPv4 only: 4-byte words of NOP options (IHL = 5 + this)
  uint32_t len = 0;              // the whole frame; the payload (zeros) fills what headers leave
};

// Bytes the headers of `s` take (the least `len` can be).
uint32_t packet_header_len(const PacketSpec &s);

// The frame; an error when `len` cannot hold the headers or exceeds 65535, or an address
// does not fit its layer (an IPv6 source in an IPv4 packet).
Result<std::vector<uint8_t>> build_packet(const PacketSpec &s);

// A tunnel's output: the Ethernet header (eth_dst, eth_src, the outer type), an outer IPv4
// header (TTL 64, no options, checksummed; protocol 4 for IPv4 inside, 41 for IPv6) or
// IPv6 header (hop limit 64, next header 4 or 41) from outer_src to outer_dst, then `in`
// without its Ethernet header. Errors: `in` is no IPv4 or IPv6 frame, the outer addresses
// are of two families or not IP, the MACs are not MACs.
struct Encap {
  Address outer_src, outer_dst, eth_src, eth_dst;
};
Result<std::vector<uint8_t>> encapsulate(const std::vector<uint8_t> &in, const Encap &e);

// "" when `got` equals `want`, else where they differ, like the kernel bench's check:
// "got 90 bytes, expected 110; offset 0x00e: got 0x86 expected 0x45; ..." (at most 8).
std::string packet_diff(const std::vector<uint8_t> &got, const std::vector<uint8_t> &want);

}  // namespace bpfbench
