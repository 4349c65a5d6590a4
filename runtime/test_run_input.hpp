// The input of the `test_run` producer's BPF_PROG_TEST_RUN: a generated packet (data_in)
// and the kernel's repeat count, for program types that take one (XDP, tc/skb, ...); and
// the output such a program should produce from it, for the checks of a validation run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bdsl/plan.hpp"
#include "runtime/point_params.hpp"
#include "util/error.hpp"

namespace bpfbench {

struct TestRunInput {
  std::vector<uint8_t> data_in;  // empty: no packet (raw_tp, syscall drivers)
  uint32_t repeat = 0;           // 0: the kernel runs the program once per call
};

// From the point's params by name (a family declares the ones it needs, usually
// `runtime`; a `rodata` one is seen by the template too; docs/families.md has the table):
//   packet_len       int      bytes of data_in; absent or 0: no packet
//   packet           enum     what the packet holds (default `digits`):
//                      digits        '1'..'9' at random, the last byte NUL (the kernel's
//                                    crypto bench input)
//                      eth_ipv4_udp, eth_ipv4_tcp, eth_ipv4_icmp, eth_ipv6_udp,
//                      eth_ipv6_tcp  Ethernet + IP (+ L4) headers, zero payload
//                      eth_arp       an Ethernet header of type ARP, zero payload
//   packet_eth_src, packet_eth_dst   address (MAC); 02:00:00:00:00:01 -> 02:00:00:00:00:02
//   packet_src, packet_dst           address; 10.0.0.1 -> 10.0.0.2, fd00::1 -> fd00::2
//   packet_sport, packet_dport       int; 4096 -> 9
//   packet_tcp_flags                 int: the TCP flags byte (2 SYN, 4 RST, 16 ACK)
//   packet_ip_frag                   bool: a first fragment (IPv4 MF; an IPv6 Fragment header)
//   packet_ip_options                int: IPv4 option words (NOPs)
//   test_run_repeat  int      the kernel's repeat count per BPF_PROG_TEST_RUN (>= 1)
// The random bytes come from `seed`, so a point's packet is the same on every run.
Result<TestRunInput> test_run_input_for(const PlanPoint &p, uint32_t seed = 1);
// The same, read through `p` (the test_run producer's configure: runtime/producer_config.cpp).
Result<TestRunInput> test_run_input_for(const PointParams &p, uint32_t seed = 1);

// The generated packet alone (exposed for tests); an error names what cannot be made.
Result<std::vector<uint8_t>> make_packet(const std::string &kind, uint32_t len, uint32_t seed);

// What a program run on `input` should output, from the point's params by name:
//   expect_packet    enum: `any` (absent: not compared), `input` (the input unchanged) or
//                    `encap` (the input inside an outer IP header: runtime/packet_builder.hpp)
//   expect_outer_src, expect_outer_dst   address: the outer header's (both IPv4 or IPv6)
//   expect_eth_src, expect_eth_dst       address (MAC): the output frame's
// nullopt when the output is not compared.
Result<std::optional<std::vector<uint8_t>>> expected_output_for(const PlanPoint &p, const std::vector<uint8_t> &input);
Result<std::optional<std::vector<uint8_t>>> expected_output_for(const PointParams &p,
                                                                const std::vector<uint8_t> &input);

}  // namespace bpfbench
