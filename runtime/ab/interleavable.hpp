// Whether a matched ab point can run interleaved (both sides loaded in one process, the
// active load switched every few ms) or keeps whole turns, and why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"

namespace bpfbench {

// One side of a matched point: its plan point, family and compiled object.
struct AbSideInput {
  const PlanPoint *point = nullptr;
  const FamilyManifest *family = nullptr;
  const std::vector<uint8_t> *object = nullptr;
};

// The metric an interleaved point is judged by: a count per slice, from a counter of the
// active load or from the producers (the point's first reported metric when it is such a
// count, else its throughput metric).
struct SliceMetric {
  std::string name;
  MetricSourceKind source = MetricSourceKind::Counter;
  std::string counter;  // the .bss counter of a Counter source
  std::string unit;
};

// How an interleaved point runs: through a dispatcher on the program's hook, or by
// alternating BPF_PROG_TEST_RUN calls between the loads.
enum class AbDispatch { Dispatcher, TestRunCalls };

struct InterleavePlan {
  std::string why_not;  // "" = interleavable
  AbDispatch dispatch = AbDispatch::Dispatcher;
  SliceMetric metric;
};

// A and B must share everything but the program: producer, its settings and threads, the
// hook, and a metric that counts per load. Each rule that fails says why in one line
// ("the producer is sendfile: its work runs outside the producer threads").
InterleavePlan plan_interleave(const AbSideInput &a, const AbSideInput &b);

}  // namespace bpfbench
