// The kernel bench's lines for the lpm-trie benches that rate by BPF time (insert, delete:
// M ops/s and ns/op; free: K ops/s and ms/op), against values worked out by hand.
#include <catch2/catch.hpp>

#include "results/report_kernel.hpp"

using namespace bpfbench;

namespace {

Sample kernel_sample(double duration_s, uint64_t hits, uint64_t bpf_ns) {
  Sample s;
  s.duration_s = duration_s;
  s.deltas = {{"hits", hits}, {"bpf_ns", bpf_ns}};
  return s;
}

PointResult point(std::vector<Sample> samples) {
  PointResult r;
  r.status = PointResult::Status::Ok;
  r.producers = 1;
  r.samples = std::move(samples);
  return r;
}

}  // namespace

TEST_CASE("kernel report: lpm-trie-free rates frees per second of free time", "[report_kernel]") {
  // 10 frees in 20 ms (0.5 K/s, 2 ms each), then 20 in 20 ms (1 K/s, 1 ms each): mean 0.75,
  // stddev sqrt(2 * 0.25^2 / 1) = 0.354, latency (2 + 1) / 2 = 1.5 ms.
  PointResult r = point({kernel_sample(1.0, 10, 20000000), kernel_sample(1.0, 20, 20000000)});
  CHECK(format_kernel_summary(KernelReport::FreeTime, r) ==
        "Summary: throughput    0.750 \u00b1 0.354 K ops/s (  0.750K ops/prod), latency    1.500 ms/op");
  CHECK(format_kernel_progress(KernelReport::FreeTime, 0, r.samples[0], 1, 1000000000) ==
        "Iter   0 (  0.000us): hits    0.500K/s (  0.500K/prod)");
}

TEST_CASE("kernel report: lpm-trie-insert rates operations per second of BPF time", "[report_kernel]") {
  // 2M inserts in 0.5 s of BPF time in a 1.1 s interval: 4 M/s and 250 ns each.
  PointResult r = point({kernel_sample(1.1, 2000000, 500000000)});
  CHECK(format_kernel_summary(KernelReport::BpfTime, r) ==
        "Summary: throughput    4.000 \u00b1 0.000 M ops/s (  4.000M ops/prod), latency  250.000 ns/op");
  CHECK(format_kernel_progress(KernelReport::BpfTime, 3, r.samples[0], 1, 1000000000) ==
        "Iter   3 (100000.000us): hits    4.000M/s (  4.000M/prod)");
}
