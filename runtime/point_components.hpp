// A point's components (runtime/run_point.cpp makes them): the producer, the consumer and,
// back-to-back, the consumer's trigger; for a test_run producer with batch timing, the
// batch size calibrated on the point's packet.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "compiler/bdsl/plan.hpp"
#include "compiler/family/manifest.hpp"
#include "runtime/batch_timing.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/components.hpp"
#include "runtime/counters.hpp"
#include "runtime/socket_pairs.hpp"
#include "runtime/stop.hpp"

namespace bpfbench {

// Destroyed in reverse order: the consumer and the producer before the counts they write
// into, the batch timing's mapping last.
struct PointComponents {
  BatchTimingRun batch;  // bb_batch_ns, when the template keeps them
  ProducerConfig pc;
  ProducerCounters consumed{1};  // records consumers took: the `consumer` metric source
  std::unique_ptr<Producer> producer;
  std::optional<ConsumerConfig> cc;
  std::unique_ptr<Consumer> consumer;
  bool back_to_back = false;  // the consumer thread triggers each batch: no producer threads

  // The object's bb_batch_ns, for a `program` that times batches (an Error when it has none).
  Result<> init_batch_timing(const BpfObject &obj, const std::string &program);
  // The producer, the consumer and, back-to-back, the consumer's trigger.
  Result<> make(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog, const BpfObject &obj,
                const SocketPairs &sockets, const StopSource &stop);
  // The batch size (BatchTimingRun::prepare) on the point's packet: after setup, or where
  // the family's setup says (the `calibrate_batch` action: before what setup turns on later).
  Result<> calibrate_batch(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog, const BpfObject &obj);

 private:
  Result<> test_run_components(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog,
                               const BpfObject &obj);
  void set_map_churn(const BpfObject &obj);
};

}  // namespace bpfbench
