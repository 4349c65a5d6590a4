// The packets of the test_run input (runtime/packet_builder.hpp, runtime/test_run_input.hpp)
// byte by byte, the tunnel output a packet should become, and the statistics and kernel
// report of in-BPF batch timing (results/batch_timing.hpp). No root: nothing is loaded.
#include <catch2/catch.hpp>

#include <algorithm>

#include "results/batch_timing.hpp"
#include "runtime/packet_builder.hpp"
#include "runtime/test_run_input.hpp"

using namespace bpfbench;

namespace {

Address addr(const char *text) {
  auto a = parse_address(text);
  REQUIRE(a);
  return *a;
}

PacketSpec xdp_lb_tcp_v4() {  // the xdp_lb family's tcp-v4-lru-hit packet
  PacketSpec s;
  s.l3 = PacketSpec::L3::Ipv4;
  s.l4 = PacketSpec::L4::Tcp;
  s.eth_src = addr("11:22:33:44:55:66");
  s.eth_dst = addr("aa:bb:cc:dd:ee:ff");
  s.src = addr("10.10.2.1");
  s.dst = addr("10.10.1.1");
  s.sport = 12345;
  s.dport = 80;
  s.len = 70;
  return s;
}

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int b : v) out.push_back(static_cast<uint8_t>(b));
  return out;
}

std::vector<uint8_t> slice(const std::vector<uint8_t> &v, size_t from, size_t n) {
  return std::vector<uint8_t>(v.begin() + from, v.begin() + from + n);
}

uint16_t be16(const std::vector<uint8_t> &p, size_t at) { return static_cast<uint16_t>(p[at] << 8 | p[at + 1]); }

}  // namespace

TEST_CASE("an IPv4 TCP packet, header by header, with its checksum", "[packets]") {
  auto p = build_packet(xdp_lb_tcp_v4());
  REQUIRE(p);
  REQUIRE(p->size() == 70);
  CHECK(slice(*p, 0, 14) ==
        bytes({0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x08, 0x00}));
  // version/IHL, total 56, TTL 64, TCP, checksum 0x63ab (computed by hand), 10.10.2.1 -> 10.10.1.1
  CHECK(slice(*p, 14, 20) == bytes({0x45, 0, 0, 56, 0, 0, 0, 0, 64, 6, 0x63, 0xab, 10, 10, 2, 1, 10, 10, 1, 1}));
  // ports 12345 -> 80, data offset 5 words, no flags, window 8192
  CHECK(slice(*p, 34, 20) == bytes({0x30, 0x39, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0, 0x20, 0, 0, 0, 0, 0}));
  CHECK(slice(*p, 54, 16) == std::vector<uint8_t>(16, 0));
}

TEST_CASE("tunnelled: an outer IPv4 header between new MACs and the packet", "[packets]") {
  auto in = build_packet(xdp_lb_tcp_v4());
  REQUIRE(in);
  Encap e{addr("172.16.59.49"), addr("192.168.1.2"), addr("aa:bb:cc:dd:ee:ff"), addr("de:ad:be:ef:00:01")};
  auto out = encapsulate(*in, e);
  REQUIRE(out);
  REQUIRE(out->size() == 90);
  CHECK(slice(*out, 0, 14) ==
        bytes({0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x08, 0x00}));
  // total 76, TTL 64, protocol 4 (IPIP), checksum 0xd1c2 (by hand)
  CHECK(slice(*out, 14, 20) == bytes({0x45, 0, 0, 76, 0, 0, 0, 0, 64, 4, 0xd1, 0xc2, 172, 16, 59, 49, 192, 168, 1, 2}));
  CHECK(slice(*out, 34, 56) == slice(*in, 14, 56));
}

TEST_CASE("IPv6: the fragment header, an IPv6 tunnel of IPv6 and of IPv4", "[packets]") {
  PacketSpec s = xdp_lb_tcp_v4();
  s.l3 = PacketSpec::L3::Ipv6;
  s.src = addr("fd00:200::1");
  s.dst = addr("fd00:100::1");
  s.len = 90;
  auto p = build_packet(s);
  REQUIRE(p);
  CHECK(be16(*p, 12) == 0x86dd);
  CHECK((*p)[14] == 0x60);
  CHECK(be16(*p, 18) == 90 - 14 - 40);  // payload length
  CHECK((*p)[20] == 6);                 // next header TCP
  CHECK((*p)[21] == 64);
  CHECK(slice(*p, 22, 4) == bytes({0xfd, 0, 0x02, 0}));
  s.ip_frag = true;
  s.len = 98;
  auto f = build_packet(s);
  REQUIRE(f);
  CHECK((*f)[20] == 44);                                       // a Fragment header follows
  CHECK(slice(*f, 54, 8) == bytes({6, 0, 0, 1, 0, 0, 0, 0}));  // TCP next, offset 0, M
  Encap e{addr("100::cd39:200"), addr("fd00::2"), addr("aa:bb:cc:dd:ee:ff"), addr("de:ad:be:ef:00:01")};
  auto t = encapsulate(*p, e);
  REQUIRE(t);
  REQUIRE(t->size() == 130);
  CHECK(be16(*t, 12) == 0x86dd);
  CHECK(be16(*t, 18) == 76);  // the whole inner IPv6 packet
  CHECK((*t)[20] == 41);      // IPv6 in IPv6
  CHECK(slice(*t, 22, 16) == bytes({0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xcd, 0x39, 0x02, 0}));
  auto v4 = build_packet(xdp_lb_tcp_v4());
  auto t4 = encapsulate(*v4, e);
  REQUIRE(t4);
  CHECK((*t4)[20] == 4);  // IPv4 in IPv6
  CHECK(be16(*t4, 18) == 56);
}

TEST_CASE("ICMP, ARP, options, fragments and flags", "[packets]") {
  PacketSpec s = xdp_lb_tcp_v4();
  s.l4 = PacketSpec::L4::Icmp;
  s.len = 58;
  auto icmp = build_packet(s);
  REQUIRE(icmp);
  CHECK((*icmp)[23] == 1);
  CHECK((*icmp)[34] == 8);  // echo request
  uint32_t sum = 0;         // a valid ICMP checksum sums to 0xffff
  for (size_t i = 34; i < 58; i += 2) sum += be16(*icmp, i);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  CHECK(sum == 0xffff);
  s = xdp_lb_tcp_v4();
  s.ip_option_words = 1;
  s.ip_frag = true;
  s.tcp_flags = 0x02;
  s.len = 74;
  auto o = build_packet(s);
  REQUIRE(o);
  CHECK((*o)[14] == 0x46);
  CHECK(slice(*o, 34, 4) == bytes({1, 1, 1, 1}));
  CHECK(be16(*o, 20) == 0x2000);  // more fragments
  CHECK((*o)[38 + 13] == 0x02);   // SYN
  s = xdp_lb_tcp_v4();
  s.l3 = PacketSpec::L3::Arp;
  s.len = 30;
  auto arp = build_packet(s);
  REQUIRE(arp);
  CHECK(be16(*arp, 12) == 0x0806);
  CHECK(slice(*arp, 14, 16) == std::vector<uint8_t>(16, 0));
}

TEST_CASE("packets that cannot be made say why", "[packets]") {
  PacketSpec s = xdp_lb_tcp_v4();
  s.len = 53;
  REQUIRE(!build_packet(s));
  CHECK(build_packet(s).error().message == "packet: its headers take 54 bytes; packet_len 53 is outside [54, 65535]");
  s.len = 70;
  s.src = addr("fd00::1");
  CHECK(build_packet(s).error().message.find("needs IPv4 source and destination") != std::string::npos);
  auto in = build_packet(xdp_lb_tcp_v4());
  Encap mixed{addr("10.0.0.1"), addr("fd00::2"), addr("aa:bb:cc:dd:ee:ff"), addr("de:ad:be:ef:00:01")};
  CHECK(!encapsulate(*in, mixed));
}

TEST_CASE("the differences of two packets, at most eight", "[packets]") {
  std::vector<uint8_t> a(20, 1), b = a;
  CHECK(packet_diff(a, b).empty());
  b[14] = 0x45;
  b.push_back(9);
  CHECK(packet_diff(a, b) == "got 20 bytes, expected 21; offset 0x00e: got 0x01 expected 0x45; offset 0x014: got - "
                             "expected 0x09");
  std::vector<uint8_t> c(20, 2);
  CHECK(packet_diff(a, c).find("; ...") != std::string::npos);
}

TEST_CASE("the test_run input: packet kinds from params, the expected output", "[packets]") {
  PlanPoint p;
  p.params = {{"packet", ParamValue{false, 0, "eth_ipv6_udp"}},
              {"packet_len", ParamValue{true, 78, {}}},
              {"packet_sport", ParamValue{true, 22222, {}}},
              {"expect_packet", ParamValue{false, 0, "input"}}};
  auto in = test_run_input_for(p);
  REQUIRE(in);
  REQUIRE(in->data_in.size() == 78);
  CHECK(be16(in->data_in, 54) == 22222);
  const Address v6_default = addr("fd00::1");  // the IPv6 kinds' default source
  CHECK(slice(in->data_in, 22, 16) == std::vector<uint8_t>(v6_default.bytes.begin(), v6_default.bytes.end()));
  auto out = expected_output_for(p, in->data_in);
  REQUIRE(out);
  REQUIRE(out->has_value());
  CHECK(**out == in->data_in);
  p.params.back().second.s = "encap";
  CHECK(expected_output_for(p, in->data_in).error().message == "expect_packet encap needs the param expect_outer_src");
  p.params.back().second.s = "any";
  CHECK(!expected_output_for(p, in->data_in)->has_value());
}

TEST_CASE("batch timing: the kernel bench's statistics, outliers dropped, and its lines", "[batch_timing]") {
  BatchTimingResult r;
  r.batch_iters = 1000;
  for (int i = 1; i <= 300; ++i) r.per_op_ns.push_back(30.0 + (i % 10) * 0.1);
  r.per_op_ns.push_back(100.0);  // far beyond the third quartile + 1.5 IQR
  std::sort(r.per_op_ns.begin(), r.per_op_ns.end());
  const BatchTimingStats s = batch_timing_stats(r.per_op_ns);
  CHECK(s.count == 300);
  CHECK(s.outliers == 1);
  CHECK(s.min == Approx(30.0));
  CHECK(s.max == Approx(30.9));
  CHECK(s.p50 == Approx(30.5));  // index 150 of 300
  CHECK(s.p99 == Approx(30.9));
  CHECK(*batch_timing_stat(s, "p50") == Approx(30.5));
  CHECK(*batch_timing_stat(s, "outliers") == 1);
  CHECK(!batch_timing_stat(s, "p42"));
  CHECK(format_batch_timing_report(r, "tcp-v4-lru-hit") ==
        "tcp-v4-lru-hit: median 30.50 ns/op, stddev 0.29, p99 30.90 (300 samples)");
  CHECK(format_batch_timing_result_line(r, "x") ==
        "RESULT scenario=x samples=300 median=30.50 stddev=0.29 cv=0.94 min=30.00 p99=30.90 max=30.90");
  CHECK(batch_timing_stats({1, 2, 100}).outliers == 0);  // fewer than 8: nothing dropped
  CHECK(format_batch_calibration_warning(r).empty());    // a fixed batch size
  r.calibrated = true;
  r.calibration_ns_per_op = 30;
  r.ratio_2n_n = 2.5;
  CHECK(format_batch_calibration_warning(r) ==
        "WARNING: proportionality check failed (2N/N ratio=2.500, expected=2.000, error=25.0%)\n"
        "  System noise may be affecting results.\n");
  r.ratio_2n_n = 2.01;
  CHECK(format_batch_calibration_warning(r).empty());
  r.calibration_ns_per_op = 0;
  r.ratio_2n_n = 0;
  CHECK(format_batch_calibration_warning(r) == "calibration: no timing samples, using default\n");
  CHECK(format_batch_timing_report(BatchTimingResult{}, "x") == "No timing samples collected.");
}
