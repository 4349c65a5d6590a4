#include "runtime/ab/interleavable.hpp"

#include <algorithm>

#include "runtime/producer_config.hpp"
#include "runtime/run_point.hpp"
#include "runtime/setup_actions.hpp"

namespace bpfbench {

namespace {

// Hooks a dispatcher can sit on: the program's own SEC, or a uprobe the runtime attaches.
bool dispatchable(AttachKind k) {
  switch (k) {
  case AttachKind::Auto:
  case AttachKind::Uprobe:
  case AttachKind::Uretprobe:
  case AttachKind::UprobeMulti:
  case AttachKind::UretprobeMulti: return true;
  case AttachKind::Usdt:  // the USDT argument maps are per object: a tail call would read the dispatcher's
  case AttachKind::Cgroup:
  case AttachKind::TestRun:
  case AttachKind::None: return false;
  }
  return false;
}

// Setup that only fills the load's own maps; the rest (children, sockets) is per point.
bool per_load_setup(SetupActionKind k) {
  return k == SetupActionKind::Prefill || k == SetupActionKind::InnerMaps || k == SetupActionKind::RunProgram;
}

std::string strip_optional(const std::string &section) {
  return section.rfind('?', 0) == 0 ? section.substr(1) : section;
}

// The metric a slice counts, or why the point has none.
std::string slice_metric(const AbSideInput &s, const ProgramSpec &prog, SliceMetric &out) {
  const std::vector<MetricSpec> metrics = effective_metrics(*s.family, prog);
  const std::vector<std::string> &report = s.point->report.empty() ? s.family->default_report : s.point->report;
  auto counts = [](const MetricSpec &m) {
    return (m.source.kind == MetricSourceKind::Counter || m.source.kind == MetricSourceKind::Producer) &&
           report_of(m) == MetricReport::Rate && higher_is_better(m);
  };
  // The first reported metric, as turns compare (else the throughput metric), and no other.
  const MetricSpec *pick = nullptr;
  for (const auto &m : metrics)
    if (report.empty() ? is_throughput(m) && !pick : m.name == report.front()) pick = &m;
  if (!pick)
    return "its main metric '" + (report.empty() ? std::string("hits") : report.front()) +
           "' is derived, not counted per load";
  if (!counts(*pick))
    return "its main metric '" + pick->name + "' is not a count of events (a counter or the producer's operations)";
  out.name = pick->name;
  out.source = pick->source.kind;
  out.counter = pick->source.kind == MetricSourceKind::Counter ? pick->source.operand : "";
  out.unit = reported_unit(*pick);
  return "";
}

// What must be the same on both sides for one producer to feed both: the threads and every
// producer setting the points' params give.
std::string same_harness(const AbSideInput &a, const ProgramSpec &xa, const AbSideInput &b, const ProgramSpec &xb) {
  const PlanPoint &pa = *a.point, &pb = *b.point;
  if (pa.producers != pb.producers) return "A and B have different producer counts";
  if (pa.affinity != pb.affinity || pa.prod_cpus != pb.prod_cpus) return "A and B pin their producers differently";
  auto ca = producer_config_for(pa, *a.family, xa), cb = producer_config_for(pb, *b.family, xb);
  if (!ca) return "A: " + ca.error().message;
  if (!cb) return "B: " + cb.error().message;
  if (!same_producer_settings(*ca, *cb)) return "A and B differ in a producer setting (its params)";
  return "";
}

// Why one side's program cannot be one of the alternated loads ("" = it can).
std::string side_rules(const AbSideInput &s, const ProgramSpec &prog, AbDispatch &dispatch) {
  const ProducerKind pk = s.family->producer_of(prog);
  if (!producer_row(pk).on_its_threads)
    return std::string("the producer is ") + kind_name(pk) + ": its work does not run on the producer threads alone";
  if (s.family->consumer_of(prog) != ConsumerKind::None)
    return std::string("it has a consumer (") + kind_name(s.family->consumer_of(prog)) + ") of its own buffer";
  if (prog.function.empty()) return "it loads no BPF program: nothing to alternate";
  if (prog.batch_timing) return "it times batches in BPF (batch_timing)";
  if (!attached_extra_programs(*s.family, prog).empty()) return "it attaches other programs beside the measured one";
  for (const auto &a : setup_actions_for(*s.family, prog))
    if (!per_load_setup(a.action)) return std::string("its setup action '") + kind_name(a.action) + "' is not per load";
  if (prog.attach == AttachKind::TestRun) {
    dispatch = AbDispatch::TestRunCalls;
    return "";
  }
  if (!dispatchable(prog.attach))
    return std::string("its attach kind '") + kind_name(prog.attach) + "' has no dispatcher";
  dispatch = AbDispatch::Dispatcher;
  return "";
}

}  // namespace

InterleavePlan plan_interleave(const AbSideInput &a, const AbSideInput &b) {
  InterleavePlan plan;
  const PlanPoint &pa = *a.point, &pb = *b.point;
  const ProgramSpec *xa = a.family->program(pa.program.empty() ? a.family->default_program : pa.program);
  const ProgramSpec *xb = b.family->program(pb.program.empty() ? b.family->default_program : pb.program);
  if (!xa || !xb) {
    plan.why_not = "a side's program is unknown";
    return plan;
  }
  AbDispatch da = AbDispatch::Dispatcher, db = AbDispatch::Dispatcher;
  if (std::string why = side_rules(a, *xa, da); !why.empty()) {
    plan.why_not = "A: " + why;
    return plan;
  }
  if (std::string why = side_rules(b, *xb, db); !why.empty()) {
    plan.why_not = "B: " + why;
    return plan;
  }
  if (a.family->producer_of(*xa) != b.family->producer_of(*xb)) plan.why_not = "A and B have different producers";
  else if (da != db) plan.why_not = "A is run by test_run and B attached (or the reverse)";
  else if (da == AbDispatch::Dispatcher &&
           (xa->attach != xb->attach || strip_optional(xa->section) != strip_optional(xb->section) ||
            xa->target != xb->target))
    plan.why_not = "A and B attach to different hooks";
  else plan.why_not = same_harness(a, *xa, b, *xb);
  if (!plan.why_not.empty()) return plan;
  SliceMetric mb;
  if (std::string why = slice_metric(a, *xa, plan.metric); !why.empty()) plan.why_not = "A: " + why;
  else if (std::string whyb = slice_metric(b, *xb, mb); !whyb.empty()) plan.why_not = "B: " + whyb;
  else if (mb.name != plan.metric.name || mb.source != plan.metric.source)
    plan.why_not = "A and B count different metrics ('" + plan.metric.name + "', '" + mb.name + "')";
  plan.dispatch = da;
  return plan;
}

}  // namespace bpfbench
