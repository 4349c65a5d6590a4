#include "runtime/test_run_input.hpp"

#include <arpa/inet.h>

#include <cstring>

namespace bpfbench {
namespace {

constexpr uint32_t kEthLen = 14, kIpv4Len = 20, kUdpLen = 8;

// The IPv4 header checksum: one's complement of the one's-complement sum of its words.
uint16_t ipv4_checksum(const uint8_t *hdr, size_t len) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2) sum += static_cast<uint32_t>(hdr[i] << 8 | hdr[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

void put16(uint8_t *p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

std::vector<uint8_t> eth_ipv4_udp(uint32_t len) {
  std::vector<uint8_t> pkt(len, 0);
  uint8_t *eth = pkt.data(), *ip = eth + kEthLen, *udp = ip + kIpv4Len;
  const uint8_t dst_mac[6] = {0x02, 0, 0, 0, 0, 0x02}, src_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
  std::memcpy(eth, dst_mac, 6);
  std::memcpy(eth + 6, src_mac, 6);
  put16(eth + 12, 0x0800);  // ETH_P_IP
  ip[0] = 0x45;             // version 4, 5 words
  put16(ip + 2, static_cast<uint16_t>(len - kEthLen));
  ip[8] = 64;  // ttl
  ip[9] = 17;  // IPPROTO_UDP
  const uint8_t saddr[4] = {10, 0, 0, 1}, daddr[4] = {10, 0, 0, 2};
  std::memcpy(ip + 12, saddr, 4);
  std::memcpy(ip + 16, daddr, 4);
  put16(ip + 10, ipv4_checksum(ip, kIpv4Len));
  put16(udp, 4096);
  put16(udp + 2, 9);  // discard
  put16(udp + 4, static_cast<uint16_t>(len - kEthLen - kIpv4Len));
  return pkt;  // UDP checksum 0: none, allowed over IPv4
}

// An int param's value, or `fallback` when the point has none.
int64_t int_param(const PlanPoint &p, const char *name, int64_t fallback) {
  const ParamValue *v = p.param(name);
  return v && v->is_int ? v->i : fallback;
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
  if (kind == "eth_ipv4_udp") {
    if (len < kEthLen + kIpv4Len + kUdpLen || len > 65535)
      return Error("packet eth_ipv4_udp needs packet_len in [42, 65535], got " + std::to_string(len));
    return eth_ipv4_udp(len);
  }
  return Error("unknown packet '" + kind + "' (expected digits or eth_ipv4_udp)");
}

Result<TestRunInput> test_run_input_for(const PlanPoint &p, uint32_t seed) {
  TestRunInput in;
  const int64_t repeat = int_param(p, "test_run_repeat", 0), len = int_param(p, "packet_len", 0);
  if (repeat < 0 || repeat > UINT32_MAX) return Error("test_run_repeat out of range: " + std::to_string(repeat));
  if (len < 0 || len > UINT32_MAX) return Error("packet_len out of range: " + std::to_string(len));
  in.repeat = static_cast<uint32_t>(repeat);
  if (len == 0) return in;
  const ParamValue *kind = p.param("packet");
  auto pkt = make_packet(kind && !kind->is_int ? kind->s : "digits", static_cast<uint32_t>(len), seed);
  if (!pkt) return pkt.error();
  in.data_in = std::move(*pkt);
  return in;
}

}  // namespace bpfbench
