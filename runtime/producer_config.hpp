// The producer settings a point gives (its program's producer kind and its runtime params),
// read once for every runner of a point: run_point and the interleaved ab runner.
#pragma once

#include <functional>
#include <string>

#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "util/error.hpp"
#include "runtime/components.hpp"
#include "runtime/point_params.hpp"

namespace bpfbench {

// One producer operation for the consumer thread to call in back-to-back mode.
using Trigger = std::function<std::string()>;

// A producer kind's runtime row: `configure` fills in the settings the kind reads from the
// point's params, exactly those its row in compiler/family/kinds.cpp lists; `make` builds the
// producer from the finished config (fails for a bad one); `on_its_threads`: its events
// happen on the producer threads themselves (their CPU time holds the programs' work) and
// need nothing from one particular load, so an interleaved ab may alternate its loads;
// `trigger`, for the kinds that can run back-to-back, makes one operation of the kind's
// producer loop (empty when the config cannot: make_trigger says so). One row per kind;
// adding a ProducerKind without one fails to build.
struct ProducerRow {
  ProducerKind kind;
  Result<> (*configure)(const PointParams &p, ProducerConfig &pc);
  Result<std::unique_ptr<Producer>> (*make)(const ProducerConfig &cfg);
  bool on_its_threads;
  Trigger (*trigger)(const ProducerConfig &cfg) = nullptr;
};
const ProducerRow &producer_row(ProducerKind k);

// The component that serves `cfg.kind`: its row's `make`.
Result<std::unique_ptr<Producer>> make_producer(const ProducerConfig &cfg);

// The common fields (kind, producers), then the kind's configure. Everything but what comes
// from the loaded object (the test_run program, the sockets of setup, the churn map, the
// consumer's counter): those are the caller's to fill in.
Result<ProducerConfig> producer_config_for(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog);

// Whether two configs drive the same work: every field producer_config_for sets.
bool same_producer_settings(const ProducerConfig &a, const ProducerConfig &b);

}  // namespace bpfbench
