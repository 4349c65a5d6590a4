// The input of the `test_run` producer's BPF_PROG_TEST_RUN: a generated packet (data_in)
// and the kernel's repeat count, for program types that take one (XDP, tc/skb, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/plan.hpp"
#include "results/error.hpp"

namespace bpfbench {

struct TestRunInput {
  std::vector<uint8_t> data_in;  // empty: no packet (raw_tp, syscall drivers)
  uint32_t repeat = 0;           // 0: the kernel runs the program once per call
};

// From the point's params by name (a family declares the ones it needs, usually
// `runtime`; a `rodata` one is seen by the template too):
//   packet_len       int   bytes of data_in; absent or 0: no packet
//   packet           enum  what the packet holds (default `digits`):
//                      digits        '1'..'9' at random, the last byte NUL (the kernel's
//                                    crypto bench input)
//                      eth_ipv4_udp  Ethernet + IPv4 (checksummed) + UDP 10.0.0.1:4096 ->
//                                    10.0.0.2:9, zero payload; needs packet_len >= 42
//   test_run_repeat  int   the kernel's repeat count per BPF_PROG_TEST_RUN (>= 1)
// The random bytes come from `seed`, so a point's packet is the same on every run.
Result<TestRunInput> test_run_input_for(const PlanPoint &p, uint32_t seed = 1);

// The generated packet alone (exposed for tests); an error names what cannot be made.
Result<std::vector<uint8_t>> make_packet(const std::string &kind, uint32_t len, uint32_t seed);

}  // namespace bpfbench
