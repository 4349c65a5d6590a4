// Log2 latency histograms (the BB_TIME_BEGIN/BB_TIME_END buckets of
// bpf_templates/include/bpfbench_shared.h): percentiles, a compact text line, JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bpfbench {

// Bucket 0 holds the value 0, bucket k >= 1 the values [2^(k-1), 2^k); the last bucket
// also holds everything above. Matches BB_HIST_BUCKETS and bb_hist_bucket() in BPF.
inline constexpr size_t kHistBuckets = 64;

struct LatencyHistogram {
  std::string unit = "ns";
  std::vector<uint64_t> buckets = std::vector<uint64_t>(kHistBuckets, 0);

  uint64_t count() const;
  // The lowest value and one past the highest value of bucket `k`.
  static double bucket_low(size_t k);
  static double bucket_high(size_t k);
  // The value below which a fraction `q` (0..1] of the counts lie, linearly interpolated
  // inside its bucket (log2 buckets: the true value is within the bucket's [low, high)).
  // nullopt when the histogram is empty.
  std::optional<double> quantile(double q) const;
  // The highest bucket with a count: its upper bound (exclusive) is what max can be.
  std::optional<size_t> highest_bucket() const;
  void add(const LatencyHistogram &other);
};

// "latency p50 1.23us p90 2.00us p99 3.90us max <4.10us (1234 ops)" and a second line with
// each non-empty bucket's share ("hist 512ns-1us 71%, 1-2us 25%, ...").
std::string format_histogram(const LatencyHistogram &h);
// A duration in the histogram's unit (ns) with a readable unit: "870ns", "1.23us", "4.5ms".
std::string format_ns(double ns);

// {"unit","count","p50","p90","p99","max_below","buckets":[...trailing zeros trimmed]}
nlohmann::json histogram_to_json(const LatencyHistogram &h);
// The reverse, for plot and compare; nullopt when `j` is not such an object.
std::optional<LatencyHistogram> histogram_from_json(const nlohmann::json &j);

}  // namespace bpfbench
