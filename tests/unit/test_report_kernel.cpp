// The kernel bench's lines, against values worked out by hand: the lpm-trie benches that
// rate by BPF time (insert, delete: M ops/s and ns/op; free: K ops/s and ms/op), and
// local-storage-tasks-trace's grace period and churn lines.
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

namespace {

Sample deltas(double duration_s, std::map<std::string, uint64_t> d) {
  Sample s;
  s.duration_s = duration_s;
  s.deltas = std::move(d);
  return s;
}

}  // namespace

// local-storage-tasks-trace's lines (bench_local_storage_rcu_tasks_trace.c's report_progress
// and report_final): per interval, the grace periods' mean latency in ns and the kthread's
// ticks per grace period; the SUMMARY's mean and stddev over the intervals, in µs.
TEST_CASE("kernel report: local-storage-tasks-trace grace period lines", "[report_kernel]") {
  // 2 grace periods of 15 ms (3 ticks), 4 of 20 ms (2 ticks), then an interval without one:
  // latency 15000 and 20000 µs (mean 17500, stddev 2500 * sqrt(2) = 3535.534), ticks per
  // grace period 1.5 and 0.5 (mean 1, stddev 0.707); the third is left out, not nan.
  PointResult r = point({deltas(1.0, {{"gp", 2}, {"gp_ns", 30000000}, {"kthread_ticks", 3}}),
                         deltas(1.0, {{"gp", 4}, {"gp_ns", 80000000}, {"kthread_ticks", 2}}),
                         deltas(1.0, {{"gp", 0}, {"gp_ns", 0}, {"kthread_ticks", 1}})});
  CHECK(format_kernel_progress(KernelReport::TasksTrace, 5, r.samples[0], 1, 1000000000) ==
        "Iter 5\t avg tasks_trace grace period latency\t15000000.000000 ns\n"
        "Iter 5\t avg ticks per tasks_trace grace period\t1.500000");
  CHECK(format_kernel_summary(KernelReport::TasksTrace, r) ==
        "SUMMARY tasks_trace grace period latency\tavg 17500.000 us\tstddev 3535.534 us\n"
        "SUMMARY ticks per tasks_trace grace period\tavg 1.000\tstddev 0.707");
  // An interval in which no grace period ended divides by 0 there too: nan.
  CHECK(format_kernel_progress(KernelReport::TasksTrace, 7, r.samples[2], 1, 1000000000).find("nan ns\n") !=
        std::string::npos);
  const std::string none = format_kernel_summary(KernelReport::TasksTrace, point({r.samples[2]}));
  CHECK(none.rfind("SUMMARY tasks_trace grace period latency\tavg nan us\tstddev nan us\n", 0) == 0);
}

TEST_CASE("kernel report: local-storage-tasks-trace churn lines, where grace periods cannot be timed",
          "[report_kernel]") {
  // 1M creates+deletes and 1 tick in 0.5 s (2 M/s, 2 ticks/s), 3M and 4 in 1 s: means 2.5
  // and 3, stddevs sqrt(0.5) = 0.707 and sqrt(2) = 1.414.
  PointResult r = point(
      {deltas(0.5, {{"hits", 1000000}, {"kthread_ticks", 1}}), deltas(1.0, {{"hits", 3000000}, {"kthread_ticks", 4}})});
  CHECK(format_kernel_progress(KernelReport::TasksTraceChurn, 0, r.samples[0], 1, 1000000000) ==
        "Iter 0\t task local storage creates+deletes\t2.000000 M/s\n"
        "Iter 0\t tasks_trace kthread ticks per second\t2.000000");
  CHECK(format_kernel_summary(KernelReport::TasksTraceChurn, r) ==
        "SUMMARY task local storage creates+deletes\tavg 2.500 M/s\tstddev 0.707 M/s\n"
        "SUMMARY tasks_trace kthread ticks per second\tavg 3.000\tstddev 1.414");
}
