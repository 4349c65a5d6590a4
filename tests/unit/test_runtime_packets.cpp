// The setup action `run_program` (a program run once before the producer), the
// test_run producer's packet input, and the crypto family built on both. Runtime tests
// need root and BPF; the packet tests do not.
#include <catch2/catch.hpp>

#include <regex>

#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "runtime/test_run_input.hpp"
#include "run_process.hpp"
#include "point_runner.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

// Fixture and shipped families; points of no warmup and two 250 ms intervals.
struct PacketRunner : test::PointRunner {
  PacketRunner() : PointRunner({test::fixtures_dir()}) {}
  PointResult run(const std::string &family, const std::string &prog,
                  std::vector<std::pair<std::string, ParamValue>> values = {}) {
    PlanPoint p = point(family, prog);
    for (auto &[n, v] : values) test::set_param(p, n, v);
    return PointRunner::run(p);
  }
};

uint16_t be16(const std::vector<uint8_t> &p, size_t at) { return static_cast<uint16_t>(p[at] << 8 | p[at + 1]); }

}  // namespace

TEST_CASE("packet eth_ipv4_udp: lengths, protocol, a valid IPv4 checksum", "[packets]") {
  auto pkt = make_packet("eth_ipv4_udp", 64, 1);
  REQUIRE(pkt);
  REQUIRE(pkt->size() == 64);
  CHECK(be16(*pkt, 12) == 0x0800);
  CHECK((*pkt)[14] == 0x45);
  CHECK(be16(*pkt, 16) == 64 - 14);       // IPv4 total length
  CHECK((*pkt)[23] == 17);                // UDP
  CHECK(be16(*pkt, 38) == 64 - 14 - 20);  // UDP length
  uint32_t sum = 0;                       // a header with its checksum sums to 0xffff
  for (size_t i = 14; i < 34; i += 2) sum += be16(*pkt, i);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  CHECK(sum == 0xffff);
  CHECK(!make_packet("eth_ipv4_udp", 41, 1));
  CHECK(make_packet("udp", 64, 1).error().message.find("unknown packet 'udp'") != std::string::npos);
}

TEST_CASE("packet digits: 1..9 then NUL, the same for the same seed", "[packets]") {
  auto a = make_packet("digits", 32, 7), b = make_packet("digits", 32, 7);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(*a == *b);
  CHECK(a->back() == 0);
  for (size_t i = 0; i + 1 < a->size(); ++i) CHECK(((*a)[i] >= '1' && (*a)[i] <= '9'));
}

TEST_CASE("run_program runs the setup program before the producer's packets", "[runtime][packets]") {
  BB_REQUIRE_ROOT();
  PacketRunner r;
  PointResult res = r.run("prog_run_setup", "xdp");
  INFO(res.reason);
  REQUIRE(res.status == PointResult::Status::Ok);
  CHECK(test::sampled_total(res, "hits") > 0);
  CHECK(test::sampled_total(res, "early") == 0);        // setup ran before the first run
  CHECK(test::sampled_total(res, "bad_packets") == 0);  // every run saw the generated packet
  // The setup program's return value (run_program) and producer = runs x repeat, exactly.
  REQUIRE(res.self_checks.size() == 2);
  CHECK(res.self_checks[0].name == "run_program");
  for (const auto &c : res.self_checks) CHECK(c.ok);
}

TEST_CASE("run_program: a setup program returning -ENOENT fails the point", "[runtime][packets]") {
  BB_REQUIRE_ROOT();
  PacketRunner r;
  PointResult res = r.run("prog_run_setup", "setup-fails");
  CHECK(res.status == PointResult::Status::Failed);
  CHECK(res.reason == "setup: run_program 'setup_enoent' returned -2 (ENOENT), expected 0");
}

TEST_CASE("a program needing a missing kfunc is skipped with the reason", "[runtime][packets]") {
  BB_REQUIRE_ROOT();
  PacketRunner r;
  PointResult res = r.run("prog_run_setup", "missing-kfunc");
  CHECK(res.status == PointResult::Status::Skipped);
  CHECK(res.reason == "kfunc bpf_bpfbench_no_such_kfunc not supported by this kernel (missing BTF: no function "
                      "'bpf_bpfbench_no_such_kfunc' in /sys/kernel/btf/vmlinux)");
}

TEST_CASE("crypto encrypt: hits, no kfunc errors, one run per producer op", "[runtime][crypto]") {
  BB_REQUIRE_ROOT();
  PacketRunner r;
  PointResult res = r.run("crypto", "encrypt", {{"packet_len", test::num(64)}});
  if (!test::ran_or_skipped(res)) return;
  CHECK(test::sampled_total(res, "hits") > 0);
  CHECK(test::sampled_total(res, "errors") == 0);
  REQUIRE(res.self_checks.size() == 2);  // the context's setup program, then runs x repeat
  CHECK(res.self_checks[0].name == "run_program");
  for (const auto &c : res.self_checks) CHECK(c.ok);
}

TEST_CASE("crypto roundtrip: decrypt(encrypt(packet)) is the packet", "[runtime][crypto]") {
  BB_REQUIRE_ROOT();
  PacketRunner r;
  PointResult res = r.run("crypto", "roundtrip", {{"packet_len", test::num(256)}});
  if (!test::ran_or_skipped(res)) return;
  CHECK(test::sampled_total(res, "hits") > 0);
  CHECK(test::sampled_total(res, "errors") == 0);  // every byte came back, and the ciphertext differed
}

TEST_CASE("crypto: a length ecb(aes) cannot take counts every run as an error", "[runtime][crypto]") {
  BB_REQUIRE_ROOT();
  PacketRunner r;
  PointResult res = r.run("crypto", "decrypt", {{"packet_len", test::num(17)}});
  if (!test::ran_or_skipped(res)) return;
  const uint64_t hits = test::sampled_total(res, "hits"), errors = test::sampled_total(res, "errors");
  CHECK(hits > 0);
  // Every run failed. Per interval the two counters are read one after the other, so up to
  // a call's runs (test_run_repeat = 64) land between the reads of each interval.
  const uint64_t slack = 64 * (res.samples.size() + 1);
  CHECK(errors + slack >= hits);
  CHECK(errors <= hits + slack);
}

TEST_CASE("bpfbench bench crypto-encrypt --crypto-len 32: the kernel bench's Summary", "[runtime][crypto][kbench]") {
  BB_REQUIRE_ROOT();
  auto p = test::run_process({BPFBENCH_BINARY, "bench", "-w0", "-d1", "--crypto-len", "32", "crypto-encrypt"}, 60);
  INFO(p.out << p.err);
  REQUIRE(p.exit_code == 0);
  if (p.out.find("crypto-encrypt: skipped: ") != std::string::npos) {
    CHECK(p.out.find("not supported by this kernel (") != std::string::npos);
    return;
  }
  CHECK(p.out.find("Setting up benchmark 'crypto-encrypt'...") != std::string::npos);
  const std::string num = "[0-9]+\\.[0-9]{3}";
  std::smatch m;
  const std::regex summary("Summary: hits +(" + num + ") ± +" + num + "M/s \\( *" + num + "M/prod\\), drops +" + num +
                           " ± +" + num + "M/s, total operations +" + num + " ± +" + num + "M/s");
  REQUIRE(std::regex_search(p.out, m, summary));
  CHECK(std::stod(m[1].str()) > 0);
}
