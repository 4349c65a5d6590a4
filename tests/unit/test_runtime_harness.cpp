// Harness, stats, cpusets and text reports — no root needed (fake producers, synthetic
// samples).
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <thread>

#include "runtime/cpuset.hpp"
#include "runtime/harness.hpp"
#include "results/report_text.hpp"
#include "results/stats.hpp"
#include "runtime/stop.hpp"
#include "metric_support.hpp"

using namespace bpfbench;
using Clock = std::chrono::steady_clock;

namespace {

// Counts one operation per loop, with a pause so the test stays cheap.
class TickProducer final : public Producer {
 public:
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    while (!stop.load()) {
      slot.add(1);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return {};
  }
};

class FailingProducer final : public Producer {
 public:
  Result<void> run(int, ProducerSlot &, const std::atomic<bool> &) override { return Error("driver went away"); }
};

HarnessOptions fast_opts(int warm, int meas) {
  HarnessOptions o;
  o.interval_ns = 100'000'000;
  o.warmup_ns = warm * o.interval_ns;
  o.duration_ns = meas * o.interval_ns;
  return o;
}

Sample sample(double secs, uint64_t hits, uint64_t drops = 0) {
  Sample s;
  s.duration_s = secs;
  s.deltas["hits"] = hits;
  if (drops) s.deltas["drops"] = drops;
  return s;
}

}  // namespace

TEST_CASE("harness takes exactly warmup + measured samples", "[runtime][harness]") {
  TickProducer prod;
  StopSource stop;
  int calls = 0;
  std::vector<std::pair<int, bool>> seen;
  HarnessResult r = run_harness(
      fast_opts(2, 3), prod, nullptr,
      [&](uint64_t ops) {
        ++calls;
        return std::map<std::string, uint64_t>{{"hits", ops}};
      },
      stop, [&](int iter, const Sample &, bool warm) { seen.emplace_back(iter, warm); });
  REQUIRE_FALSE(r.error);
  CHECK_FALSE(r.interrupted);
  CHECK(r.warmup.size() == 2);
  REQUIRE(r.samples.size() == 3);
  CHECK(calls == 6);  // one reset read + 5 intervals
  REQUIRE(seen.size() == 5);
  CHECK(seen[0] == std::pair{0, true});
  CHECK(seen[1] == std::pair{1, true});
  CHECK(seen[2] == std::pair{2, false});
  CHECK(seen[4] == std::pair{4, false});
  for (const auto &s : r.samples) {
    CHECK(s.deltas.at("hits") > 0);
    CHECK(s.duration_s == Approx(0.1).margin(0.05));
  }
}

TEST_CASE("warmup samples do not enter the summary", "[runtime][harness]") {
  TickProducer prod;
  StopSource stop;
  int interval = -1;  // the first call only resets
  HarnessResult r = run_harness(
      fast_opts(2, 2), prod, nullptr,
      [&](uint64_t) {
        ++interval;
        // Warmup intervals report a huge count, measured ones a small one.
        uint64_t v = interval >= 1 && interval <= 2 ? 1'000'000'000 : 100'000;
        return std::map<std::string, uint64_t>{{"hits", v}};
      },
      stop);
  REQUIRE(r.samples.size() == 2);
  MetricSpec hits = test::counter_metric("hits", "bb_hits", "M/s");
  Summary s = summarize(r.samples, {hits}, 1, {"hits"});
  const MetricSummary *h = s.find("hits");
  REQUIRE(h);
  CHECK(h->n == 2);
  // 100000 events per ~0.1 s = ~1 M/s; a warmup sample would push it to thousands.
  CHECK(h->mean == Approx(1.0).epsilon(0.3));
}

TEST_CASE("an external stop ends the run quickly and joins every thread", "[runtime][harness]") {
  TickProducer prod;
  StopSource stop;
  HarnessOptions o;  // 1 s warmup + 5 s: far longer than the test waits
  o.producers = 2;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));
    stop.request_stop();
  });
  auto t0 = Clock::now();
  HarnessResult r = run_harness(
      o, prod, nullptr,
      [](uint64_t ops) {
        return std::map<std::string, uint64_t>{{"hits", ops}};
      },
      stop);
  auto elapsed = Clock::now() - t0;
  stopper.join();
  CHECK(r.interrupted);
  CHECK(r.warmup.size() == 1);
  CHECK(r.samples.empty());
  CHECK(elapsed < std::chrono::milliseconds(1300 + 1000));
}

TEST_CASE("a failing producer stops the run with its reason", "[runtime][harness]") {
  FailingProducer prod;
  StopSource stop;
  auto t0 = Clock::now();
  HarnessResult r = run_harness(
      fast_opts(1, 50), prod, nullptr, [](uint64_t) { return std::map<std::string, uint64_t>{}; }, stop);
  REQUIRE(r.error);
  CHECK(r.error->message == "driver went away");
  CHECK_FALSE(r.interrupted);
  CHECK(Clock::now() - t0 < std::chrono::seconds(2));
}

TEST_CASE("SIGINT and SIGTERM become a stop request and an exit code", "[runtime][signals]") {
  for (int sig : {SIGINT, SIGTERM}) {
    StopSource stop;
    {
      SignalWatcher w(stop);
      kill(getpid(), sig);
      auto t0 = Clock::now();
      while (!stop.stop_requested() && Clock::now() - t0 < std::chrono::seconds(2))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    CHECK(stop.stop_requested());
    CHECK(stop.signal() == sig);
    CHECK(exit_code_for(stop) == 128 + sig);
  }
  StopSource quiet;
  quiet.request_stop();
  CHECK(exit_code_for(quiet) == 0);
}

TEST_CASE("a SignalWatcher goes away at once: its thread is woken, not waited out", "[runtime][signals]") {
  // The watcher once slept in 100 ms sigtimedwait ticks, so every command's exit waited for
  // the rest of one: five watchers took ~500 ms. Woken through its eventfd, they take ~0.
  auto t0 = Clock::now();
  for (int i = 0; i < 5; ++i) {
    StopSource stop;
    SignalWatcher w(stop);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the thread is in its wait
  }
  auto took = std::chrono::duration<double>(Clock::now() - t0).count();
  INFO(took << " s for 5 watchers");
  CHECK(took < 0.15);
}

TEST_CASE("cpusets parse like the kernel bench's", "[runtime][cpuset]") {
  auto v = parse_cpuset("0-3,8,10-11");
  REQUIRE(v);
  CHECK(*v == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(*parse_cpuset("5,1,1") == std::vector<int>{1, 5});
  for (const char *bad : {"", "3-1", "a", "1,", ",1", "1-", "1--2", "1 2"}) {
    INFO(bad);
    auto r = parse_cpuset(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("invalid CPU set") == 0);
  }
}

TEST_CASE("CPU assignment follows the kernel bench's -a", "[runtime][cpuset]") {
  auto none = assign_cpus(2, 1, false, {}, {}, 4);
  REQUIRE(none);
  CHECK(none->producers == std::vector<int>{-1, -1});
  auto a = assign_cpus(2, 1, true, {}, {}, 2);
  REQUIRE(a);
  CHECK(a->consumers == std::vector<int>{0});
  CHECK(a->producers == std::vector<int>{1, 0});  // wraps at nr_cpus
  auto e = assign_cpus(2, 0, false, {4, 6}, {}, 8);
  REQUIRE(e);
  CHECK(e->producers == std::vector<int>{4, 6});
  auto short_list = assign_cpus(3, 0, true, {4, 6}, {}, 8);
  REQUIRE_FALSE(short_list);
  CHECK(short_list.error().message == "not enough CPUs for producers: 2 listed, need 3");
}

TEST_CASE("stats: mean, n-1 stddev, per-producer, latency", "[runtime][stats]") {
  std::vector<Sample> s = {sample(1.0, 10'000'000), sample(1.0, 12'000'000), sample(2.0, 28'000'000)};
  MetricSpec hits = test::counter_metric("hits", "bb_hits", "M/s");
  Summary sum = summarize(s, {hits}, 2, {"hits", "latency"});
  const MetricSummary *h = sum.find("hits");
  REQUIRE(h);
  CHECK(h->mean == Approx(12.0));
  CHECK(h->stddev == Approx(2.0));
  CHECK(h->per_prod == Approx(6.0));
  CHECK(h->median == Approx(12.0));
  const MetricSummary *l = sum.find("latency");
  REQUIRE(l);
  CHECK(l->mean == Approx(1000.0 / 6.0));
  CHECK(sum.find("total_ops")->mean == Approx(12.0));
  CHECK(stddev_of({5.0}) == 0.0);

  MetricSpec ratio = test::metric("ratio", test::source(MetricSourceKind::Ratio, "hits", "drops"), "x");
  std::vector<Sample> rs = {sample(1.0, 10, 5), sample(1.0, 30, 10)};
  CHECK(metric_values(rs, ratio) == std::vector<double>{2.0, 3.0});
}

TEST_CASE("text reports use the kernel bench's formats", "[runtime][report]") {
  // `sample` counts drops: they show with the total, as the kernel bench's ringbuf lines.
  Sample s = sample(1.000250, 12'003'000, 1'000'000);
  CHECK(format_progress(3, s, 2, 1'000'000'000, {"hits"}) ==
        "Iter   3 (250.000us): hits   12.000M/s (  6.000M/prod), drops    1.000M/s, "
        "total operations   13.000M/s");

  // Ticks and ratios print in their unit, not as M/s of a count.
  Sample k = sample(1.0, 5'000'000);
  k.deltas["kthread_ticks"] = 12;
  k.deltas["gp"] = 4;
  k.deltas["gp_us"] = 200;
  // No drops counted (a family without drops): no drops and no total on the line.
  std::vector<MetricSpec> specs = {
      test::metric("kthread_ticks", test::source(MetricSourceKind::KthreadStime, "rcu_tasks_trace_kthread"), "ticks/s"),
      test::metric("gp_latency", test::source(MetricSourceKind::Ratio, "gp_us", "gp"), "us")};
  CHECK(
      format_progress(0, k, 1, 1'000'000'000, {"hits", "kthread_ticks", "gp_latency"}, &specs) ==
      "Iter   0 (  0.000us): hits    5.000M/s (  5.000M/prod), kthread_ticks   12.000 ticks/s, gp_latency   50.000 us");

  PointResult r;
  r.producers = 2;
  r.report = {"hits", "latency"};
  r.samples = {sample(1.0, 10'000'000), sample(1.0, 14'000'000)};
  r.summary = summarize(r.samples, {test::counter_metric("hits", "bb_hits", "M/s")}, 2, r.report);
  CHECK(format_summary(r) == "Summary: hits   12.000 \u00b1 2.828M/s (  6.000M/prod), latency  166.667 ns/op");
  CHECK(format_table_row("kprobe-multi", r) == "kprobe-multi        :   12.000 \u00b1 2.828M/s");
  // Every reported metric, as the seed tables print "(drops ...)" and "latency: ... ns/op";
  // per producer when the bench sweeps producers (the timing seed's M/s/cpu).
  CHECK(format_table_row("nr_loops-10-p2", r, r.report, true) ==
        "nr_loops-10-p2      :   12.000 \u00b1 2.828M/s (  6.000M/prod) (latency 166.667 ns/op)");
  PointResult rb = r;
  rb.samples = {sample(1.0, 10'000'000, 1'000'000), sample(1.0, 14'000'000, 1'000'000)};
  rb.summary = summarize(
      rb.samples, {test::counter_metric("hits", "bb_hits", "M/s"), test::counter_metric("drops", "bb_drops", "M/s")}, 2,
      {"hits", "drops"});
  CHECK(format_table_row("rb", rb, {"hits", "drops"}, false) ==
        "rb                  :   12.000 \u00b1 2.828M/s (drops 1.000 \u00b1 0.000M/s)");

  // A family without hits (sockmap's bytes): its own metrics, no "hits 0.000" first.
  PointResult b;
  b.producers = 1;
  b.report = {"recv", "send"};
  Sample b1, b2;
  b1.duration_s = b2.duration_s = 1.0;
  b1.deltas = {{"recv", 400'000'000}, {"send", 410'000'000}};
  b2.deltas = {{"recv", 420'000'000}, {"send", 410'000'000}};
  b.samples = {b1, b2};
  b.summary = summarize(b.samples, {test::metric("recv", test::source(MetricSourceKind::Consumer, ""), "M/s"),
                                    test::metric("send", test::source(MetricSourceKind::Producer, ""), "M/s")},
                        1, b.report);
  CHECK(format_summary(b) == "Summary: recv  410.000 \u00b1 14.142M/s, send  410.000 \u00b1 0.000M/s");
  CHECK(format_progress(1, b1, 1, 1'000'000'000, b.report) ==
        "Iter   1 (  0.000us): recv  400.000M/s, send  410.000M/s");

  PointResult skip;
  skip.status = PointResult::Status::Skipped;
  skip.reason = "fentry not supported by this kernel (load failed: Permission denied (EPERM))";
  CHECK(format_table_row("fentry", skip) ==
        "fentry              : skipped: fentry not supported by this kernel (load failed: "
        "Permission denied (EPERM))");
  CHECK(format_summary(skip) == "Skipped: " + skip.reason);
}
