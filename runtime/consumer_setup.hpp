// Builds a point's consumer config (buffer map, options) and its back-to-back trigger.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "compiler/bdsl/plan.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/components.hpp"
#include "runtime/point_params.hpp"

namespace bpfbench {

// A consumer kind's runtime row: `configure` fills in the options the kind reads from the
// point's params, exactly those its row in compiler/family/kinds.cpp lists (one row per
// kind; adding a ConsumerKind without one fails to build).
struct ConsumerRow {
  ConsumerKind kind;
  Result<> (*configure)(const PointParams &p, ConsumerConfig &c);
};
const ConsumerRow &consumer_row(ConsumerKind k);

// The kind, the kind's configure, then (buffer kinds) the buffer map: the object's first map
// of the kind's type (RINGBUF for `ringbuf`, PERF_EVENT_ARRAY for `perfbuf`); a ring's size
// is its max_entries. The params each kind reads: `bpfbench list --kinds`.
Result<ConsumerConfig> consumer_config_for(const PlanPoint &p, ConsumerKind kind, const BpfObject &obj);

// True when the point sets `back2back`: no producer threads run; the consumer triggers
// every batch (a family with back2back declares the `producers == 1` constraint).
bool runs_back_to_back(const PlanPoint &p);

// One producer operation for the consumer thread to call in back-to-back mode (the body
// of the producer loop of the same kind, run once); fails for a kind that has none.
Result<std::function<std::string()>> make_trigger(const ProducerConfig &cfg);

}  // namespace bpfbench
