// Run progress: expected point lengths, ETA and the "[i/N] label elapsed ETA" status text.
#pragma once

#include <string>

#include "compiler/bdsl/plan.hpp"

namespace bpfbench {

// What a point should take: warmup + duration, or warmup + min_duration when adaptive.
double nominal_seconds(const PlanPoint &p);

// Remaining nominal time scaled by how long the points so far took against their nominal
// time (setup, compile and adaptive runs make them longer or shorter).
double eta_seconds(double remaining_nominal_s, double done_nominal_s, double done_actual_s);

// "42s", "3:05", "1:02:03".
std::string format_clock(double seconds);

// "[3/11] rb-25  elapsed 0:42  ETA 1:30" (+ "  " + extra when not empty).
std::string format_status(size_t i, size_t n, const std::string &label, double elapsed_s, double eta_s,
                          const std::string &extra = "");

}  // namespace bpfbench
