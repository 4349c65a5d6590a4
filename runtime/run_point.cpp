#include "runtime/run_point.hpp"

#include <unistd.h>

#include <map>

#include "compiler/bdsl/names.hpp"
#include "runtime/cpuset.hpp"
#include "runtime/point_components.hpp"
#include "runtime/point_load.hpp"
#include "runtime/point_observers.hpp"
#include "runtime/setup_actions.hpp"

namespace bpfbench {

std::vector<MetricSpec> effective_metrics(const FamilyManifest &f, const ProgramSpec &prog) {
  std::vector<MetricSpec> out = f.metrics;
  for (auto &m : out)
    if (auto it = prog.metric_sources.find(m.name); it != prog.metric_sources.end()) m.source = it->second;
  return out;
}

namespace {

// One point against the kernel, step by step; each step either succeeds or ends the point
// with a status (failed, skipped, interrupted). The point's three parts are their own
// structs: its load (the object, its memory cgroup and setup state), its components (the
// producer and the consumer) and its observers (what reads and watches the run). They are
// destroyed in reverse order: the observers (kernel-thread readers, counters), then the
// components, and last the load: the object, then the setup state (its forked children
// outlive the run and are reaped when it goes) and the memory cgroup.
class PointRunner {
 public:
  PointRunner(const PlanPoint &p, const FamilyManifest &f, const RunOptions &opts, StopSource &stop)
      : p_(p),
        f_(f),
        opts_(opts),
        stop_(stop) {
    r_.producers = p.producers;
    r_.report = p.report.empty() ? f.default_report : p.report;
  }

  PointResult run(const std::vector<uint8_t> &object) {
    if (Result<> done = steps(object); !done && r_.status == PointResult::Status::Ok) fail(done.error());
    return std::move(r_);
  }

 private:
  // The steps in order. A failed step returns its Error; one that skips or interrupts
  // the point sets that status first (then the Error only ends the steps).
  Result<> steps(const std::vector<uint8_t> &object) {
    prog_ = f_.program(p_.program.empty() ? f_.default_program : p_.program);
    if (!prog_) return Error("family '" + f_.name + "' has no program '" + p_.program + "'");
    BB_TRY(check_kernel_features());
    if (stop_.stop_requested()) return end_as(PointResult::Status::Interrupted, "stopped before start");
    BB_TRY(harness_options());
    obs_.watch_begin(h_);
    choose_counters();
    BB_TRY(load_and_attach(object));
    obs_.watch.check_hooks();
    BB_TRY(make_components());
    BB_TRY(watch_kernel_threads());
    if (opts_.on_started) opts_.on_started(p_);
    measure();
    return self_check();
  }

  void fail(const Error &e) {
    r_.status = PointResult::Status::Failed;
    r_.reason = e.message;
    r_.error = e.bpf;
  }
  Error end_as(PointResult::Status status, std::string reason) {
    r_.status = status;
    r_.reason = reason;
    return Error(std::move(reason));
  }

  Result<> check_kernel_features();
  Result<> harness_options();
  void choose_counters();
  Result<> load_and_attach(const std::vector<uint8_t> &object);
  Result<> make_components();
  Result<> watch_kernel_threads();
  std::map<std::string, uint64_t> read_interval(uint64_t producer_ops);
  void measure();
  Result<> self_check();

  const PlanPoint &p_;
  const FamilyManifest &f_;
  const RunOptions &opts_;
  StopSource &stop_;
  const ProgramSpec *prog_ = nullptr;
  PointResult r_;

  HarnessOptions h_;
  std::vector<MetricSpec> metrics_;

  PointLoad load_;
  PointComponents comp_;
  PointObservers obs_;
};

// Kernel features, before anything is loaded. A missing one skips the point; one the
// environment prevents from probing fails it.
Result<> PointRunner::check_kernel_features() {
  FeatureProber local;
  FeatureProber &prober = opts_.prober ? *opts_.prober : local;
  for (const auto &req : prog_->requires_features) {
    FeatureStatus st = prober.check(req);
    if (!st.available && st.environment) return Error(st.reason);
    if (!st.available)
      return end_as(PointResult::Status::Skipped,
                    FeatureProber::describe(req) + " not supported by this kernel (" + st.reason + ")");
  }
  return {};
}

// Cheap checks first, so a bad cpuset fails before any load.
Result<> PointRunner::harness_options() {
  h_.warmup_ns = p_.warmup_ns;
  h_.duration_ns = p_.duration_ns;
  h_.interval_ns = effective_interval_ns(p_, opts_);
  h_.producers = p_.producers;
  h_.consumers = p_.consumers;
  h_.affinity = p_.affinity;
  if (p_.precision_pct > 0) {
    r_.precision_pct = p_.precision_pct;
    int64_t iv = h_.interval_ns > 0 ? h_.interval_ns : 1'000'000'000;
    PrecisionRule rule{p_.precision_pct, size_t(std::max<int64_t>(2, (p_.min_duration_ns + iv - 1) / iv)),
                       size_t(std::max<int64_t>(1, (p_.max_duration_ns + iv - 1) / iv))};
    h_.max_duration_ns = p_.max_duration_ns;
    h_.enough = [this, rule](const std::vector<Sample> &s) {
      Summary sum = summarize(s, metrics_, p_.producers, r_.report);
      const MetricSummary *m = sum.find(sum.primary);
      if (!m) return false;
      AdaptiveState st = adaptive_state(*m, rule);
      return st == AdaptiveState::Reached || st == AdaptiveState::Undefined;
    };
  }
  using CpuField = std::pair<const std::string *, std::vector<int> *>;
  for (const CpuField &cf : {CpuField{&p_.prod_cpus, &h_.prod_cpus}, CpuField{&p_.cons_cpus, &h_.cons_cpus}}) {
    if (cf.first->empty()) continue;
    auto cpus = parse_cpuset(*cf.first);
    if (!cpus) return cpus.error();
    *cf.second = *cpus;
  }
  return {};
}

// Which programs load, and which counters are read.
void PointRunner::choose_counters() {
  metrics_ = effective_metrics(f_, *prog_);
  for (const auto &m : metrics_)
    if (m.source.kind == MetricSourceKind::Counter) obs_.read_counter(m.source.operand);
  // A self-check may count a counter no metric reports (ringbuf's records emitted).
  obs_.checks = self_checks_for(f_, *prog_, p_);
  for (const auto &c : obs_.checks)
    for (const auto *side : {&c.expected, &c.observed})
      for (const auto &src : *side)
        if (src.kind == MetricSourceKind::Counter) obs_.read_counter(src.operand);
  load_.functions = loaded_functions(*prog_);
}

// Open, configure, load, run the setup actions, attach; the observers that read the object
// start on it after setup (per-CPU counters) and after attach. A stop during setup leaves
// the point interrupted.
Result<> PointRunner::load_and_attach(const std::vector<uint8_t> &object) {
  if (load_.functions.empty() && obs_.counter_vars.empty()) return {};
  if (Result<> in = load_.enter_memory_cgroup(metrics_); !in)
    return end_as(PointResult::Status::Skipped,
                  "a memory cgroup of its own is not available here: " + in.error().message);
  const std::vector<SetupActionSpec> actions = setup_actions_for(f_, *prog_);
  BB_TRY(load_.load(object, actions, p_, f_, opts_.verbose));
  load_.read_prog_facts(r_.prog_facts);
  if (prog_->batch_timing) {
    BB_TRY(comp_.init_batch_timing(load_.obj, prog_->name));
    load_.setup.calibrate_batch = [this] { return comp_.calibrate_batch(p_, f_, *prog_, load_.obj); };
  }
  Result<> ran = run_setup_actions(actions, load_.obj, p_, stop_, load_.setup);
  r_.setup_s = load_.setup.seconds;
  r_.self_checks = load_.setup.checks;
  if (!ran) {
    if (stop_.stop_requested()) return end_as(PointResult::Status::Interrupted, "interrupted during setup");
    return Error("setup: " + ran.error().message);
  }
  if (f_.per_cpu.enabled()) BB_TRY(obs_.per_cpu.init(load_.obj, f_.per_cpu));
  BB_TRY(load_.attach(f_, *prog_, opts_.uprobe_binary));
  BB_TRY(obs_.map_object(load_.obj));
  obs_.watch_prog_stats(f_, *prog_, load_.obj, opts_.prog_stats, r_.prog_stats);
  return {};
}

// The producer, the consumer and, back-to-back, the consumer's trigger (then the consumer
// thread produces each batch: the harness starts no producer threads).
Result<> PointRunner::make_components() {
  BB_TRY(comp_.make(p_, f_, *prog_, load_.obj, load_.setup.sockets, stop_));
  if (comp_.back_to_back) h_.producers = 0;
  return {};
}

// Kernel threads whose CPU time is a metric; a missing thread skips the point. A point
// param `kthread_pid` > 0 names the thread by pid instead (a pid that is not there fails
// the point: it was asked for).
Result<> PointRunner::watch_kernel_threads() {
  const int64_t pid = p_.int_param(kind_params::kthread_pid);
  for (const auto &m : metrics_) {
    if (m.source.kind != MetricSourceKind::KthreadStime) continue;
    if (pid > 0) {
      BB_TRY(obs_.kthreads[m.name].init_pid(static_cast<pid_t>(pid)));
      continue;
    }
    if (auto watched = obs_.kthreads[m.name].init(m.source.operand); !watched)
      return end_as(PointResult::Status::Skipped, watched.error().message);
  }
  return {};
}

std::map<std::string, uint64_t> PointRunner::read_interval(uint64_t producer_ops) {
  return obs_.read_interval(metrics_, producer_ops, comp_.consumed, load_.cgroup, comp_.batch);
}

// The harness run and the summary of its measured intervals.
void PointRunner::measure() {
  const int warm_n = warmup_intervals(h_);
  SampleFn on_sample = [&](int iter, const Sample &s, bool warm) {
    // Per-CPU rates cover the measured intervals: mark where warmup ends.
    if (f_.per_cpu.enabled()) {
      if (!warm) obs_.per_cpu.end_interval();
      else if (iter + 1 == warm_n) obs_.per_cpu.snapshot();
    }
    if (warm && iter + 1 == warm_n) obs_.prog_reader.mark_start();
    if (opts_.on_sample) opts_.on_sample(p_, iter, s, warm);
  };
  MeasureFn read = [this](uint64_t producer_ops) { return read_interval(producer_ops); };
  obs_.zero_checked_counters();  // the self-checks count from here
  obs_.start_prog_stats(r_.prog_stats);
  obs_.open_profilers(opts_.profile, opts_.hw_counters, p_.label);
  obs_.bracket(h_, comp_.batch, r_.latency_hist);
  // `timing_samples`: the kernel bench's end of a batch-timed run (when no CI target is).
  if (!h_.enough && comp_.batch.target() > 0) {
    h_.enough = [this](const std::vector<Sample> &) { return comp_.batch.reached(p_.producers); };
    h_.max_duration_ns = p_.duration_ns;
  }
  HarnessResult hr = run_harness(h_, *comp_.producer, comp_.consumer.get(), read, stop_, on_sample);
  r_.interference = obs_.watch.end();
  obs_.late_producer_ops = hr.late_producer_ops;
  const bool with_stats = obs_.stop_prog_stats(r_.prog_stats);
  if (with_stats) r_.report.push_back("prog_ns");  // a column; prog_runs and prog_time_share are in the stats

  r_.warmup = std::move(hr.warmup);
  r_.samples = std::move(hr.samples);
  r_.summary = summarize(r_.samples, with_prog_stat_metrics(metrics_, with_stats), p_.producers, r_.report);
  // `enough` also ends a run whose target is undefined (a zero mean): not reached, and why.
  if (const MetricSummary *m = r_.summary.find(r_.summary.primary); m && hr.enough && p_.precision_pct > 0)
    r_.precision_note = precision_undefined(*m);
  r_.precision_reached = p_.precision_pct > 0 && hr.enough && r_.precision_note.empty();
  if (comp_.batch.active()) r_.batch_timing = comp_.batch.result();
  if (f_.per_cpu.enabled()) r_.per_cpu = obs_.per_cpu.rates();
  obs_.finish(r_, &stop_.flag());
  if (hr.error) {
    fail(*hr.error);
  } else if (hr.interrupted) {
    r_.status = PointResult::Status::Interrupted;
    r_.reason = "interrupted";
  }
}

// Every thread has stopped: drain the buffer, read what came after the last sample, and
// compare each check's two counts. A disagreement fails the point with both of them.
Result<> PointRunner::self_check() {
  if (obs_.checks.empty() || r_.status != PointResult::Status::Ok) return {};
  if (comp_.consumer)
    if (auto drained = comp_.consumer->drain_rest(); !drained) {
      if (stop_.stop_requested())
        return end_as(PointResult::Status::Interrupted, "interrupted during the self-check's drain");
      return Error("self-check: draining the buffer: " + drained.error().message);
    }
  read_interval(obs_.late_producer_ops);  // into the totals only
  std::optional<Error> failed;
  for (const auto &c : obs_.checks) {
    r_.self_checks.push_back(evaluate_self_check(c, obs_.totals));
    if (!r_.self_checks.back().ok && !failed) failed = Error(self_check_failure(r_.self_checks.back()));
  }
  if (failed) return *failed;
  return {};
}

}  // namespace

// libbpf names internal maps "<first 8 chars of the object name>.bss": keep it readable.
std::string object_name_for(const FamilyManifest &f) {
  std::string n = "bb_" + f.name;
  for (char &c : n)
    if (!is_c_ident_char(c)) c = '_';
  return n.substr(0, 15);
}

// Writes the point's rodata, map_size and map_extra params, the builtin bb_tgid, and autoload.
Result<> configure_object(BpfObject &obj, const PlanPoint &p, const FamilyManifest &f,
                          const std::vector<std::string> &functions) {
  BB_TRY(obj.set_rodata("bb_tgid", getpid(), /*optional=*/true));
  // A template that declares it learns the point's producer count (htab_mem's key step).
  BB_TRY(obj.set_rodata("bb_producers", p.producers, /*optional=*/true));
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
    if (spec->dest == ParamDest::Rodata) BB_TRY(obj.set_rodata(name, v));
    else if (spec->dest == ParamDest::MapSize) BB_TRY(obj.set_map_size(spec->map, static_cast<uint32_t>(v)));
    else if (spec->dest == ParamDest::MapExtra) BB_TRY(obj.set_map_extra(spec->map, static_cast<uint64_t>(v)));
  }
  return obj.set_autoload_only(functions);
}

int64_t effective_interval_ns(const PlanPoint &p, const RunOptions &opts) {
  if (opts.interval_ns > 0) return opts.interval_ns;
  return p.interval_ns > 0 ? p.interval_ns : 1'000'000'000;
}

std::string test_run_driver(const FamilyManifest &f, const ProgramSpec &prog) {
  if (f.producer_of(prog) != ProducerKind::TestRun) return "";
  return prog.extra_programs.empty() ? prog.function : prog.extra_programs.front();
}

std::vector<std::string> loaded_functions(const ProgramSpec &prog) {
  std::vector<std::string> functions;
  if (!prog.function.empty()) functions.push_back(prog.function);
  for (const auto &x : prog.extra_programs) functions.push_back(x);
  return functions;
}

std::vector<std::string> attached_extra_programs(const FamilyManifest &f, const ProgramSpec &prog) {
  std::vector<std::string> out;
  const std::string driver = test_run_driver(f, prog);
  for (const auto &x : prog.extra_programs)
    if (x != driver && x != prog.function) out.push_back(x);
  return out;
}

PointResult run_point(const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object,
                      const RunOptions &opts, StopSource &stop) {
  return PointRunner(p, f, opts, stop).run(object);
}

}  // namespace bpfbench
