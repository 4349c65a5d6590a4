// Latency histograms (results/histogram.hpp): buckets, percentiles against a synthetic
// distribution, the text line and the JSON round trip; hardware-counter arithmetic.
#include <catch2/catch.hpp>

#include <cmath>

#include "results/histogram.hpp"
#include "results/hw_counts.hpp"
#include "results/plot_hist.hpp"
#include "runtime/hw_counters.hpp"

using namespace bpfbench;

namespace {

// The bucket bb_hist_bucket() puts `v` in (bpfbench_shared.h), computed the plain way.
size_t bucket_of(uint64_t v) {
  if (v == 0) return 0;
  size_t k = 0;
  while (v) {
    ++k;
    v >>= 1;
  }
  return std::min(k, kHistBuckets - 1);
}

}  // namespace

TEST_CASE("histogram: bucket bounds are log2", "[histogram]") {
  CHECK(LatencyHistogram::bucket_low(0) == 0);
  CHECK(LatencyHistogram::bucket_high(0) == 1);
  CHECK(LatencyHistogram::bucket_low(1) == 1);
  CHECK(LatencyHistogram::bucket_high(1) == 2);
  CHECK(LatencyHistogram::bucket_low(10) == 512);
  CHECK(LatencyHistogram::bucket_high(10) == 1024);
  for (uint64_t v : {1ULL, 2ULL, 3ULL, 511ULL, 512ULL, 1023ULL, 1024ULL, 123456789ULL}) {
    size_t k = bucket_of(v);
    CHECK(LatencyHistogram::bucket_low(k) <= double(v));
    CHECK(double(v) < LatencyHistogram::bucket_high(k));
  }
}

TEST_CASE("histogram: percentiles of a synthetic distribution", "[histogram]") {
  // 1000 values: 900 of 600 ns (bucket [512,1024)), 90 of 3000 ns ([2048,4096)), 10 of
  // 100 us ([65536,131072)).
  LatencyHistogram h;
  h.buckets[bucket_of(600)] = 900;
  h.buckets[bucket_of(3000)] = 90;
  h.buckets[bucket_of(100000)] = 10;
  REQUIRE(h.count() == 1000);
  // p50: rank 500 of the 900 in [512,1024): 512 + 500/900 * 512.
  CHECK(*h.quantile(0.5) == Approx(512 + 500.0 / 900 * 512));
  // p90: rank 900, the last of the first bucket: its upper bound.
  CHECK(*h.quantile(0.9) == Approx(1024));
  // p99: rank 990, the last of [2048,4096).
  CHECK(*h.quantile(0.99) == Approx(4096));
  // p99.5: rank 995, the 5th of 10 in [65536,131072).
  CHECK(*h.quantile(0.995) == Approx(65536 + 0.5 * 65536));
  CHECK(*h.highest_bucket() == bucket_of(100000));
  // Each percentile lies in the bucket of the true value of the same rank.
  CHECK(bucket_of(600) == bucket_of(uint64_t(*h.quantile(0.5))));
  CHECK_FALSE(LatencyHistogram{}.quantile(0.5).has_value());
}

TEST_CASE("histogram: text line and JSON round trip", "[histogram]") {
  LatencyHistogram h;
  h.buckets[bucket_of(600)] = 75;
  h.buckets[bucket_of(1500)] = 25;
  std::string text = format_histogram(h);
  INFO(text);
  CHECK(text.find("latency p50 ") == 0);
  CHECK(text.find("(100 ops, log2 buckets)") != std::string::npos);
  CHECK(text.find("\nhist 512ns-1.02us 75%, 1.02us-2.05us 25%") != std::string::npos);
  nlohmann::json j = histogram_to_json(h);
  CHECK(j["count"] == 100);
  CHECK(j["buckets"].size() == bucket_of(1500) + 1);  // trailing zeros trimmed
  auto back = histogram_from_json(j);
  REQUIRE(back);
  CHECK(back->buckets == h.buckets);
  CHECK_FALSE(histogram_from_json(nlohmann::json{{"buckets", {-1}}}));
  CHECK(format_histogram(LatencyHistogram{}) == "latency histogram: no timed operations");
  // A tail of buckets under 1% each shares one cell.
  h.buckets[bucket_of(5000)] = 0;
  for (uint64_t v : {5000, 20000, 100000}) h.buckets[bucket_of(v)] = 1;
  h.buckets[bucket_of(600)] = 9700;
  h.buckets[bucket_of(1500)] = 297;
  CHECK_THAT(format_histogram(h), Catch::EndsWith("\nhist 512ns-1.02us 97%, 1.02us-2.05us 3%, 4.1us-131us <1%"));
}

TEST_CASE("hw counters: per-op figures from synthetic counts", "[histogram][hw]") {
  HwCounts c;
  c.cycles = 8'000'000;
  c.instructions = 12'000'000;
  c.cache_misses = 50'000;
  c.has_cache_misses = true;
  c.ops = 10'000;
  auto r = per_op(c);
  REQUIRE(r);
  CHECK(r->cycles == Approx(800));
  CHECK(r->instructions == Approx(1200));
  CHECK(r->ipc == Approx(1.5));
  CHECK(*r->cache_misses == Approx(5));
  CHECK(format_hw(c) == "hw: 800.0 cycles/op, 1200.0 instructions/op, IPC 1.50, 5.000 cache-misses/op");
  c.scale = 2.0;  // multiplexed half the time: counts doubled, IPC unchanged
  CHECK(per_op(c)->cycles == Approx(1600));
  CHECK(per_op(c)->ipc == Approx(1.5));
  c.ops = 0;
  CHECK_FALSE(per_op(c));
  CHECK(hw_to_json(c)["cache_misses"] == 50'000);
}

TEST_CASE("hw counters: the probe answers cleanly either way", "[histogram][hw]") {
  HwProbe p = probe_hw_counters();
  INFO(p.reason);
  if (p.available) {
    CHECK(p.reason.empty());
    HwCounters c;
    REQUIRE(c.open());
  } else {
    // This VM: no PMU (no /sys/bus/event_source/devices/cpu).
    CHECK((p.reason.rfind("no hardware PMU: perf_event_open(cycles): ", 0) == 0 ||
           p.reason.rfind("hardware counters not permitted: ", 0) == 0));
    HwCounters c;
    CHECK_FALSE(c.open());
  }
}

TEST_CASE("histogram: plot draws one chart per point with buckets", "[histogram][plot]") {
  ResultSet rs;
  ResultPoint p;
  p.label = "ktime";
  p.suite = "clocks";
  p.latency_hist = LatencyHistogram{};
  p.latency_hist->buckets[bucket_of(600)] = 3;
  p.latency_hist->buckets[bucket_of(3000)] = 1;
  rs.points.push_back(p);
  ResultPoint none;
  none.label = "other";
  rs.points.push_back(none);
  std::vector<const ResultSet *> sets = {&rs};
  REQUIRE(has_latency_hist(sets));
  auto charts = latency_charts(sets, {""});
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].title == "clocks: ktime latency");
  REQUIRE(charts[0].series.size() == 1);
  const PlotSeries &s = charts[0].series[0];
  // Buckets [512,1024) .. [2048,4096): three, the middle one empty.
  CHECK(s.xlabels == std::vector<std::string>{"512ns", "1.02us", "2.05us"});
  CHECK(s.y == std::vector<double>{75, 0, 25});
  // The script reaches gnuplot through the same escaping as the sweep charts.
  charts[0].title = "it's";
  CHECK(gnuplot_script(charts, "/tmp/x.svg").find("'it''s'") != std::string::npos);
}
