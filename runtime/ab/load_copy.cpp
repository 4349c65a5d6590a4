#include "runtime/ab/load_copy.hpp"

#include "runtime/prog_facts.hpp"
#include "runtime/run_point.hpp"

namespace bpfbench {

Result<> LoadedCopy::load(const AbSideInput &side, const SliceMetric &metric, bool verbose, const StopSource &stop) {
  const PlanPoint &p = *side.point;
  const FamilyManifest &f = *side.family;
  const ProgramSpec *prog = f.program(p.program.empty() ? f.default_program : p.program);
  if (!prog) return Error("family '" + f.name + "' has no program '" + p.program + "'");
  const std::vector<std::string> functions = loaded_functions(*prog);
  const std::vector<SetupActionSpec> actions = setup_actions_for(f, *prog);
  BB_TRY(obj_.open(*side.object, object_name_for(f)));
  BB_TRY(configure_object(obj_, p, f, functions));
  if (auto prepared = prepare_setup_actions(actions, obj_, setup_); !prepared)
    return Error("setup: " + prepared.error().message);
  BB_TRY(obj_.load(verbose));
  if (Result<> ran = run_setup_actions(actions, obj_, p, stop, setup_); !ran)
    return Error("setup: " + ran.error().message);
  measured_fd_ = obj_.program_fd(prog->function);
  const std::string driver = test_run_driver(f, *prog);
  driver_fd_ = driver.empty() ? -1 : obj_.program_fd(driver);
  if (measured_fd_ < 0) return Error("program '" + prog->function + "' was not loaded");
  if (metric.source == MetricSourceKind::Counter) {
    BB_TRY(counters_.init(obj_, {metric.counter}));
    has_counter_ = true;
  }
  if (auto facts = read_prog_facts(measured_fd_, prog->function, "")) facts_ = *facts;
  return {};
}

}  // namespace bpfbench
