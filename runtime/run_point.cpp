#include "runtime/run_point.hpp"

#include <bpf/libbpf.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "runtime/consumer_setup.hpp"
#include "runtime/counters.hpp"
#include "runtime/cpuset.hpp"
#include "runtime/kthread_stat.hpp"
#include "runtime/setup_actions.hpp"

namespace bpfbench {

const char *to_string(PointResult::Status s) {
  switch (s) {
    case PointResult::Status::Ok: return "ok";
    case PointResult::Status::Skipped: return "skipped";
    case PointResult::Status::Failed: return "failed";
    case PointResult::Status::Interrupted: return "interrupted";
  }
  return "?";
}

std::vector<MetricSpec> effective_metrics(const FamilyManifest &f, const ProgramSpec &prog) {
  std::vector<MetricSpec> out = f.metrics;
  for (auto &m : out)
    if (auto it = prog.metric_sources.find(m.name); it != prog.metric_sources.end())
      m.source = it->second;
  return out;
}

namespace {

PointResult failed(PointResult r, std::string reason, std::optional<BpfError> e = {}) {
  r.status = PointResult::Status::Failed;
  r.reason = std::move(reason);
  r.error = std::move(e);
  return r;
}

// libbpf names internal maps "<first 8 chars of the object name>.bss": keep it readable.
std::string object_name_for(const FamilyManifest &f) {
  std::string n = "bb_" + f.name;
  for (char &c : n)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return n.substr(0, 15);
}

// Writes the point's rodata and map-size params, the builtin bb_tgid, and autoload.
MaybeError configure(BpfObject &obj, const PlanPoint &p, const FamilyManifest &f,
                     const std::vector<std::string> &functions) {
  if (auto e = obj.set_rodata("bb_tgid", getpid(), /*optional=*/true)) return e;
  for (const auto &[name, value] : p.params) {
    const ParamSpec *spec = f.param(name);
    if (!spec) continue;
    int64_t v = value.i;
    if (spec->type == ParamType::Enum) {
      // An enum in .rodata is the index of its choice.
      v = 0;
      for (size_t i = 0; i < spec->choices.size(); ++i)
        if (spec->choices[i] == value.s) v = static_cast<int64_t>(i);
    }
    if (spec->dest == ParamDest::Rodata) {
      if (auto e = obj.set_rodata(name, v)) return e;
    } else if (spec->dest == ParamDest::MapSize) {
      if (auto e = obj.set_map_size(spec->map, static_cast<uint32_t>(v))) return e;
    }
  }
  return obj.set_autoload_only(functions);
}

}  // namespace

int64_t effective_interval_ns(const PlanPoint &p, const RunOptions &opts) {
  if (opts.interval_ns > 0) return opts.interval_ns;
  return p.interval_ns > 0 ? p.interval_ns : 1'000'000'000;
}

std::string test_run_driver(const FamilyManifest &f, const ProgramSpec &prog) {
  if (f.producer_of(prog) != ProducerKind::TestRun) return "";
  return prog.extra_programs.empty() ? prog.function : prog.extra_programs.front();
}

std::vector<std::string> attached_extra_programs(const FamilyManifest &f, const ProgramSpec &prog) {
  std::vector<std::string> out;
  const std::string driver = test_run_driver(f, prog);
  for (const auto &x : prog.extra_programs)
    if (x != driver && x != prog.function) out.push_back(x);
  return out;
}

PointResult run_point(const PlanPoint &p, const FamilyManifest &f,
                      const std::vector<uint8_t> &object, const RunOptions &opts,
                      StopSource &stop) {
  PointResult r;
  r.producers = p.producers;
  r.report = p.report.empty() ? f.default_report : p.report;

  const ProgramSpec *prog = f.program(p.program.empty() ? f.default_program : p.program);
  if (!prog) return failed(r, "family '" + f.name + "' has no program '" + p.program + "'");

  // 1. Kernel features, before anything is loaded.
  FeatureProber local;
  FeatureProber &prober = opts.prober ? *opts.prober : local;
  for (const auto &req : prog->requires_features) {
    FeatureStatus st = prober.check(req);
    if (!st.available && st.environment) return failed(r, st.reason);
    if (!st.available) {
      r.status = PointResult::Status::Skipped;
      r.reason = FeatureProber::describe(req) + " not supported by this kernel (" + st.reason + ")";
      return r;
    }
  }
  if (stop.stop_requested()) {
    r.status = PointResult::Status::Interrupted;
    r.reason = "stopped before start";
    return r;
  }

  // 2. Harness options (cheap checks first, so a bad cpuset fails before any load).
  HarnessOptions h;
  h.warmup_ns = p.warmup_ns;
  h.duration_ns = p.duration_ns;
  h.interval_ns = effective_interval_ns(p, opts);
  h.producers = p.producers;
  h.consumers = p.consumers;
  h.affinity = p.affinity;
  std::vector<MetricSpec> adaptive_metrics;  // set below; `enough` summarizes with them
  if (p.precision_pct > 0) {
    r.precision_pct = p.precision_pct;
    int64_t iv = h.interval_ns > 0 ? h.interval_ns : 1'000'000'000;
    PrecisionRule rule{p.precision_pct, size_t(std::max<int64_t>(2, (p.min_duration_ns + iv - 1) / iv)),
                       size_t(std::max<int64_t>(1, (p.max_duration_ns + iv - 1) / iv))};
    h.max_duration_ns = p.max_duration_ns;
    h.enough = [&, rule](const std::vector<Sample> &s) {
      Summary sum = summarize(s, adaptive_metrics, p.producers, r.report);
      const MetricSummary *m = sum.find(sum.primary);
      return m && adaptive_state(*m, rule) == AdaptiveState::Reached;
    };
  }
  std::string err;
  using CpuField = std::pair<const std::string *, std::vector<int> *>;
  for (const CpuField &cf : {CpuField{&p.prod_cpus, &h.prod_cpus}, CpuField{&p.cons_cpus, &h.cons_cpus}}) {
    if (cf.first->empty()) continue;
    auto cpus = parse_cpuset(*cf.first, err);
    if (!cpus) return failed(r, err);
    *cf.second = *cpus;
  }

  // 3. Which programs load, and which counters are read.
  std::vector<MetricSpec> metrics = effective_metrics(f, *prog);
  adaptive_metrics = metrics;
  std::vector<std::string> counter_vars;
  std::map<std::string, size_t> counter_index;  // var -> index in counter_vars
  for (const auto &m : metrics) {
    if (m.source.kind != MetricSourceKind::Counter) continue;
    const std::string &var = m.source.operand;
    if (counter_index.emplace(var, counter_vars.size()).second) counter_vars.push_back(var);
  }
  std::vector<std::string> functions;
  if (!prog->function.empty()) functions.push_back(prog->function);
  for (const auto &x : prog->extra_programs) functions.push_back(x);

  // 4. Open, configure, load, attach. Destruction order (counters, then object) is the
  // reverse of construction: the mapping goes before the links and the object.
  SetupState setup;  // forked children outlive the run, reaped when this goes
  BpfObject obj;
  BssCounters counters;
  PerCpuReader per_cpu;
  if (!functions.empty() || !counter_vars.empty()) {
    if (auto e = obj.open(object, object_name_for(f))) return failed(r, e->to_string(), e);
    if (auto e = configure(obj, p, f, functions)) return failed(r, e->to_string(), e);
    // Setup actions (family.json `setup`): prepared before load (libbpf forgets inner
    // map definitions at load), run after it (maps exist), before attach.
    const std::vector<SetupActionSpec> actions = setup_actions_for(f, *prog);
    if (std::string why = prepare_setup_actions(actions, obj, setup); !why.empty())
      return failed(r, "setup: " + why);
    if (auto e = obj.load(opts.verbose)) return failed(r, e->to_string(), e);
    std::string why = run_setup_actions(actions, obj, p, stop, setup);
    r.setup_s = setup.seconds;
    if (!why.empty()) {
      if (!stop.stop_requested()) return failed(r, "setup: " + why);
      r.status = PointResult::Status::Interrupted;
      r.reason = "interrupted during setup";
      return r;
    }
    if (f.per_cpu.enabled())
      if (auto e = per_cpu.init(obj, f.per_cpu)) return failed(r, e->to_string(), e);
    if (!prog->function.empty() && prog->attach != AttachKind::None && prog->attach != AttachKind::TestRun) {
      if (section_needs_tracefs(prog->section))
        if (auto t = ensure_tracefs(); !t.empty()) return failed(r, t);
      AttachSpec as{prog->attach, prog->target, opts.uprobe_binary};
      if (auto e = obj.attach(prog->function, as)) return failed(r, e->to_string(), e);
    }
    // Extra programs work alongside (gp-latency's fexit-side program, a load generator):
    // attached from their SEC(), all but the test_run driver, which is run, not attached.
    for (const auto &x : attached_extra_programs(f, *prog)) {
      const char *sec = obj.program(x) ? bpf_program__section_name(obj.program(x)) : nullptr;
      if (sec && section_needs_tracefs(sec))
        if (auto t = ensure_tracefs(); !t.empty()) return failed(r, t);
      if (auto e = obj.attach(x, AttachSpec{})) return failed(r, e->to_string(), e);
    }
    if (auto e = counters.init(obj, counter_vars)) return failed(r, e->to_string(), e);
  }

  // 5. Components.
  ProducerConfig pc;
  pc.kind = f.producer_of(*prog);
  if (pc.kind == ProducerKind::TestRun) {
    pc.test_run_fd = obj.program_fd(test_run_driver(f, *prog));
    if (const ParamValue *b = p.param("batch_iters"); b && b->is_int && b->i > 0)
      pc.ops_per_run = static_cast<uint64_t>(b->i);
  }
  std::unique_ptr<Producer> producer = make_producer(pc, err);
  if (!producer) return failed(r, err);
  ProducerCounters consumed(1);  // records consumers took: the `consumer` metric source
  auto cc = consumer_config_for(p, f.consumer_of(*prog), obj, err);
  if (!cc) return failed(r, err);
  cc->consumed = &consumed.slot(0);
  if (runs_back_to_back(p) && cc->kind != ConsumerKind::None) {
    // Back-to-back: the consumer thread produces each batch after draining the last one.
    if (!(cc->trigger = make_trigger(pc, err))) return failed(r, err);
    h.producers = 0;
  }
  std::unique_ptr<Consumer> consumer = make_consumer(*cc, err);
  if (!consumer && !err.empty()) return failed(r, err);

  // Kernel threads whose CPU time is a metric.
  std::map<std::string, KthreadStime> kthreads;  // metric name -> reader
  for (const auto &m : metrics) {
    if (m.source.kind != MetricSourceKind::KthreadStime) continue;
    if (std::string why = kthreads[m.name].init(m.source.operand); !why.empty()) {
      r.status = PointResult::Status::Skipped;
      r.reason = why;
      return r;
    }
  }

  // 6. Run.
  MeasureFn measure = [&](uint64_t producer_ops) {
    std::vector<uint64_t> vals(counter_vars.size());
    for (size_t i = 0; i < vals.size(); ++i) vals[i] = counters.take(i);
    uint64_t consumer_ops = consumed.take();
    std::map<std::string, uint64_t> d;
    for (const auto &m : metrics) {
      switch (m.source.kind) {
        case MetricSourceKind::Producer: d[m.name] = producer_ops; break;
        case MetricSourceKind::Consumer: d[m.name] = consumer_ops; break;
        case MetricSourceKind::Counter: d[m.name] = vals[counter_index.at(m.source.operand)]; break;
        case MetricSourceKind::KthreadStime: d[m.name] = kthreads.at(m.name).take(); break;
        case MetricSourceKind::Ratio: break;  // derived from two others when summarized
      }
    }
    return d;
  };
  const int warm_n = warmup_intervals(h);
  SampleFn on_sample = [&](int iter, const Sample &s, bool warm) {
    // Per-CPU rates cover the measured intervals: mark where warmup ends.
    if (warm && iter + 1 == warm_n && f.per_cpu.enabled()) per_cpu.snapshot();
    if (opts.on_sample) opts.on_sample(p, iter, s, warm);
  };
  HarnessResult hr = run_harness(h, *producer, consumer.get(), measure, stop, on_sample);

  r.warmup = std::move(hr.warmup);
  r.samples = std::move(hr.samples);
  r.precision_reached = hr.enough;
  r.summary = summarize(r.samples, metrics, p.producers, r.report);
  if (f.per_cpu.enabled()) r.per_cpu = per_cpu.rates();
  if (!hr.error.empty()) return failed(std::move(r), hr.error);
  if (hr.interrupted) {
    r.status = PointResult::Status::Interrupted;
    r.reason = "interrupted";
  }
  return r;
}

}  // namespace bpfbench
