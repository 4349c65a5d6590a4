// Builds a point's consumer config (buffer map, options) and its back-to-back trigger.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "compiler/bdsl/plan.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/components.hpp"

namespace bpfbench {

// Consumer components take their options from the point's params by these names (a
// family declares the ones it has, usually as `runtime` params):
//   consumer       enum  libbpf | custom           (default libbpf; another word is an error)
//   back2back      bool  the consumer triggers each batch itself (see runs_back_to_back)
//   sampled        bool  perfbuf: wakeup_events = sample_period = sample_rate
//   sample_rate    int
//   perfbuf_pages  int   perf ring pages per CPU (default 128)
// The buffer map is the object's first map of the kind's type (RINGBUF for `ringbuf`,
// PERF_EVENT_ARRAY for `perfbuf`); a ring's size is its max_entries.
Result<ConsumerConfig> consumer_config_for(const PlanPoint &p, ConsumerKind kind, const BpfObject &obj);

// True when the point sets `back2back`: no producer threads run; the consumer triggers
// every batch (a family with back2back declares the `producers == 1` constraint).
bool runs_back_to_back(const PlanPoint &p);

// One producer operation for the consumer thread to call in back-to-back mode (the body
// of the producer loop of the same kind, run once); fails for a kind that has none.
Result<std::function<std::string()>> make_trigger(const ProducerConfig &cfg);

}  // namespace bpfbench
