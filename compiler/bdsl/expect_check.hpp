// `expect <metric> <op> <value>;` in a bench or defaults: checked against the metrics the
// bench reports and turned into PlanExpectations the runtime judges after each point.
#pragma once

#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/bdsl/check.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/bdsl/resolve_value.hpp"

namespace bpfbench {

// `defaults`' expects come first; one naming a metric the family lacks does not apply
// (defaults serve several families), in the bench itself it is an error. The value is a
// number (or a `let` of one) in the metric's reported unit: M/s for rates (suffix K, M, G
// scale it: 500K = 0.5), ns/op for latencies (suffix ns, us, ms, s), the manifest's unit
// otherwise. `cb` must be complete (report and baseline decide which metrics exist).
std::vector<PlanExpectation> check_expectations(const std::vector<const ast::Setting *> &defaults,
                                                const std::vector<ast::Setting> &settings, const CheckedBench &cb,
                                                const LetScope &lets, Diagnostics &diags);

}  // namespace bpfbench
