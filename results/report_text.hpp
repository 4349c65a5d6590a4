// Text output in the kernel bench's formats: per-interval progress, summary, suite table.
#pragma once

#include <string>
#include <vector>

#include "results/point_result.hpp"

namespace bpfbench {

// "Iter %3d (%7.3lfus): hits %8.3lfM/s (%7.3lfM/prod), drops %8.3lfM/s, total operations
// %8.3lfM/s" — the parenthesised number is the interval's deviation from the nominal
// interval in microseconds. Metrics other than hits/drops in `metrics` (in that order)
// follow as ", <name> %8.3lfM/s" — or, for a metric whose spec in `specs` is a ratio or
// kernel-thread ticks, ", <name> %8.3lf <unit>". No trailing newline.
std::string format_progress(int iter, const Sample &s, int producers, int64_t interval_ns,
                            const std::vector<std::string> &metrics, const std::vector<MetricSpec> *specs = nullptr);

// "Summary: hits %8.3lf ± %5.3lfM/s (%7.3lfM/prod), drops %8.3lf ± %5.3lfM/s, total
// operations %8.3lf ± %5.3lfM/s", then ", <name> %8.3lf ± %5.3lfM/s" for other reported
// metrics and ", latency %8.3lf ns/op" when latency is reported. Skipped/failed points
// render as "Skipped: <reason>" / "Failed: <reason>".
std::string format_summary(const PointResult &r);

// One row of a suite table, like run_bench_*.sh: "%-20s: %8.3lf ± %5.3lfM/s" of the first
// of `metrics`, then (when `per_prod` and it is a rate) " (%7.3lfM/prod)", then the others
// in parentheses the way the kernel scripts print drops after hits:
// " (drops 0.000 ± 0.000M/s, latency 9.010 ns/op, ...)". Skipped/failed rows say
// "skipped: <reason>" / "failed: <reason>".
std::string format_table_row(const std::string &label, const PointResult &r,
                             const std::vector<std::string> &metrics = {"hits"}, bool per_prod = false);

}  // namespace bpfbench
