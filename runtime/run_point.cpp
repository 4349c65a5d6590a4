#include "runtime/run_point.hpp"

#include <bpf/libbpf.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "compiler/bdsl/names.hpp"
#include "runtime/batch_timing.hpp"
#include "runtime/consumer_setup.hpp"
#include "runtime/counters.hpp"
#include "runtime/cpuset.hpp"
#include "runtime/hw_counters.hpp"
#include "runtime/interference.hpp"
#include "runtime/kthread_stat.hpp"
#include "runtime/latency_hist.hpp"
#include "runtime/map_churn.hpp"
#include "runtime/memory_cgroup.hpp"
#include "runtime/producer_config.hpp"
#include "runtime/profiler.hpp"
#include "runtime/prog_facts.hpp"
#include "runtime/prog_stats.hpp"
#include "runtime/self_checks.hpp"
#include "runtime/setup_actions.hpp"
#include "runtime/test_run_input.hpp"

namespace bpfbench {

std::vector<MetricSpec> effective_metrics(const FamilyManifest &f, const ProgramSpec &prog) {
  std::vector<MetricSpec> out = f.metrics;
  for (auto &m : out)
    if (auto it = prog.metric_sources.find(m.name); it != prog.metric_sources.end()) m.source = it->second;
  return out;
}

namespace {

// Attaches one program from its SEC(), mounting tracefs first when the section needs it.
Result<> attach_program(BpfObject &obj, const std::string &function, const std::string &section, const AttachSpec &as) {
  if (section_needs_tracefs(section)) BB_TRY(ensure_tracefs());
  return obj.attach(function, as);
}

// One point against the kernel, step by step; each step either succeeds or ends the point
// with a status (failed, skipped, interrupted). Members are destroyed in reverse order:
// kernel-thread readers and components, then counters, the object, and last the setup
// state (its forked children outlive the run and are reaped when it goes).
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
    watch_begin();
    choose_counters();
    BB_TRY(load_and_attach(object));
    watch_.check_hooks();
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
  void watch_begin();
  void choose_counters();
  Result<> load_and_attach(const std::vector<uint8_t> &object);
  Result<> enter_memory_cgroup();
  Result<> open_and_load(const std::vector<uint8_t> &object, const std::vector<SetupActionSpec> &actions,
                         bool stats_log);
  void read_prog_facts_after_load();
  void watch_prog_stats();
  void start_prog_stats();
  Result<> make_components();
  Result<> test_run_components();
  Result<> calibrate_batch();
  void set_map_churn();
  Result<> watch_kernel_threads();
  void measure();
  void bracket_measured_part();
  void finish_observers();
  Result<> self_check();
  std::map<std::string, uint64_t> read_interval(uint64_t producer_ops);

  const PlanPoint &p_;
  const FamilyManifest &f_;
  const RunOptions &opts_;
  StopSource &stop_;
  const ProgramSpec *prog_ = nullptr;
  PointResult r_;

  HarnessOptions h_;
  std::vector<MetricSpec> metrics_;
  std::vector<std::string> counter_vars_;
  std::map<std::string, size_t> counter_index_;  // var -> index in counter_vars_
  std::vector<std::string> functions_;           // programs to load

  MemoryCgroup cgroup_;  // cgroup_memory metrics: left last, once children are reaped
  SetupState setup_;
  BpfObject obj_;
  BssCounters counters_;
  LatencyHistReader hist_;                   // bb_lat_hist, when the template keeps one
  BatchTimingRun batch_;                     // bb_batch_ns, when the template keeps them
  std::unique_ptr<PointProfiler> profiler_;  // run --profile
  std::unique_ptr<HwCounters> hw_;           // run --hw-counters
  PerCpuReader per_cpu_;
  ProducerConfig pc_;
  ProducerCounters consumed_{1};  // records consumers took: the `consumer` metric source
  std::unique_ptr<Producer> producer_;
  std::optional<ConsumerConfig> cc_;
  std::unique_ptr<Consumer> consumer_;
  std::map<std::string, KthreadStime> kthreads_;  // metric name -> reader
  std::vector<ResolvedSelfCheck> checks_;         // family.json `self_checks` that apply
  SourceTotals totals_;                           // what the checks add up
  uint64_t late_producer_ops_ = 0;                // the harness's count after the last sample
  VerifierStatsLog vlog_;                         // log_level 4 buffers (outlive the load)
  ProgStatsReader prog_reader_;                   // run_cnt / run_time_ns per program
  BpfStatsSwitch stats_switch_;                   // bpf_enable_stats while the harness runs
  InterferenceWatch watch_;                       // what runs beside the point
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

// What runs beside the point is watched from here (before its load) to the end of its
// measured part, on the CPUs its threads are pinned to (or all it may use).
void PointRunner::watch_begin() {
  std::vector<int> pinned;
  auto cpus = assign_cpus(h_.producers, h_.consumers, h_.affinity, h_.prod_cpus, h_.cons_cpus,
                          static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  if (cpus) {
    pinned = cpus->producers;
    pinned.insert(pinned.end(), cpus->consumers.begin(), cpus->consumers.end());
  }
  watch_.begin(measured_cpus(pinned));
}

// Which programs load, and which counters are read.
void PointRunner::choose_counters() {
  metrics_ = effective_metrics(f_, *prog_);
  for (const auto &m : metrics_) {
    if (m.source.kind != MetricSourceKind::Counter) continue;
    const std::string &var = m.source.operand;
    if (counter_index_.emplace(var, counter_vars_.size()).second) counter_vars_.push_back(var);
  }
  // A self-check may count a counter no metric reports (ringbuf's records emitted).
  checks_ = self_checks_for(f_, *prog_, p_);
  for (const auto &c : checks_)
    for (const auto *side : {&c.expected, &c.observed})
      for (const auto &src : *side)
        if (src.kind == MetricSourceKind::Counter && counter_index_.emplace(src.operand, counter_vars_.size()).second)
          counter_vars_.push_back(src.operand);
  functions_ = loaded_functions(*prog_);
}

// Opens and configures the object, prepares the setup actions and loads it; with
// `stats_log` the verifier writes its stats line into our buffers (log_level 4).
Result<> PointRunner::open_and_load(const std::vector<uint8_t> &object, const std::vector<SetupActionSpec> &actions,
                                    bool stats_log) {
  BB_TRY(obj_.open(object, object_name_for(f_)));
  BB_TRY(configure_object(obj_, p_, f_, functions_));
  // Setup actions (family.json `setup`): prepared before load (libbpf forgets inner
  // map definitions at load), run after it (maps exist), before attach.
  if (auto prepared = prepare_setup_actions(actions, obj_, setup_); !prepared)
    return Error("setup: " + prepared.error().message);
  if (stats_log) vlog_.arm(obj_, functions_);
  return obj_.load(opts_.verbose);
}

// Open, configure, run the setup actions, load, attach. A stop during setup leaves the
// point interrupted.
Result<> PointRunner::load_and_attach(const std::vector<uint8_t> &object) {
  if (functions_.empty() && counter_vars_.empty()) return {};
  BB_TRY(enter_memory_cgroup());
  const std::vector<SetupActionSpec> actions = setup_actions_for(f_, *prog_);
  if (Result<> loaded = open_and_load(object, actions, true); !loaded) {
    // A log_level 4 log holds only the stats: load again for the verifier's complaint.
    if (!loaded.error().bpf || loaded.error().bpf->phase != BpfPhase::Load) return loaded;
    obj_.reset();
    vlog_ = VerifierStatsLog{};
    setup_.inner.clear();
    BB_TRY(open_and_load(object, actions, false));
  }
  read_prog_facts_after_load();
  if (prog_->batch_timing) {
    auto batch = batch_.init(obj_);
    if (!batch) return batch.error();
    if (!*batch)
      return Error("program '" + prog_->name + "' times batches, but its object has no bb_batch_ns (BB_BATCH_TIMING)");
    setup_.calibrate_batch = [this] { return calibrate_batch(); };
  }
  Result<> ran = run_setup_actions(actions, obj_, p_, stop_, setup_);
  r_.setup_s = setup_.seconds;
  r_.self_checks = setup_.checks;
  if (!ran) {
    if (stop_.stop_requested()) return end_as(PointResult::Status::Interrupted, "interrupted during setup");
    return Error("setup: " + ran.error().message);
  }
  if (f_.per_cpu.enabled()) BB_TRY(per_cpu_.init(obj_, f_.per_cpu));
  if (!prog_->function.empty() && prog_->attach != AttachKind::None && prog_->attach != AttachKind::TestRun)
    BB_TRY(attach_program(obj_, prog_->function, prog_->section,
                          AttachSpec{prog_->attach, prog_->target, opts_.uprobe_binary}));
  // Extra programs work alongside (gp-latency's fexit-side program, a load generator):
  // attached from their SEC(), all but the test_run driver, which is run, not attached.
  for (const auto &x : attached_extra_programs(f_, *prog_)) {
    const char *sec = obj_.program(x) ? bpf_program__section_name(obj_.program(x)) : nullptr;
    BB_TRY(attach_program(obj_, x, sec ? sec : "", AttachSpec{}));
  }
  BB_TRY(counters_.init(obj_, counter_vars_));
  auto hist = hist_.init(obj_);
  if (!hist) return hist.error();
  watch_prog_stats();
  return {};
}

// A point with cgroup_memory metrics runs in a memory cgroup of its own from before load
// (maps are charged where they are made) to its end. None here skips the point.
Result<> PointRunner::enter_memory_cgroup() {
  bool need = false, need_peak = false;
  for (const auto &m : metrics_)
    if (m.source.kind == MetricSourceKind::CgroupMemory) {
      need = true;
      need_peak |= m.source.operand == "peak";
    }
  if (!need) return {};
  if (Result<> in = cgroup_.enter(need_peak); !in)
    return end_as(PointResult::Status::Skipped,
                  "a memory cgroup of its own is not available here: " + in.error().message);
  return {};
}

// The facts of every loaded program, the point's own first.
void PointRunner::read_prog_facts_after_load() {
  for (const auto &fn : functions_)
    if (int fd = obj_.program_fd(fn); fd >= 0)
      if (auto facts = read_prog_facts(fd, fn, vlog_.log(fn))) r_.prog_facts.push_back(*facts);
}

// Which programs' run-time stats are read: the point's program is "the program" (its
// counts are the prog_* metrics), whether attached or run by BPF_PROG_TEST_RUN; the
// test_run driver and attached extras are reported beside it in the JSON.
void PointRunner::watch_prog_stats() {
  r_.prog_stats.sysctl_was_enabled = read_bpf_stats_sysctl().value_or(false);
  if (!opts_.prog_stats) {
    r_.prog_stats.note = "off (the default; run --prog-stats turns them on)";
    return;
  }
  const std::string driver = test_run_driver(f_, *prog_);
  if (!prog_->function.empty()) prog_reader_.add(prog_->function, "measured", obj_.program_fd(prog_->function));
  if (!driver.empty() && driver != prog_->function) prog_reader_.add(driver, "driver", obj_.program_fd(driver));
  for (const auto &x : attached_extra_programs(f_, *prog_)) prog_reader_.add(x, "attached", obj_.program_fd(x));
  if (prog_reader_.empty()) r_.prog_stats.note = "no BPF program loaded";
}

// The producer, the consumer and, back-to-back, the consumer's trigger.
Result<> PointRunner::make_components() {
  auto pc = producer_config_for(p_, f_, *prog_);
  if (!pc) return pc.error();
  pc_ = std::move(*pc);
  if (pc_.kind == ProducerKind::TestRun) BB_TRY(test_run_components());
  pc_.socket_fd = setup_.sockets.send_fd;
  pc_.delivered = &consumed_.slot(0);
  if (pc_.kind == ProducerKind::MapChurn) set_map_churn();
  auto producer = make_producer(pc_);
  if (!producer) return producer.error();
  producer_ = std::move(*producer);
  auto cc = consumer_config_for(p_, f_.consumer_of(*prog_), obj_);
  if (!cc) return cc.error();
  cc_ = std::move(*cc);
  cc_->consumed = &consumed_.slot(0);
  cc_->socket_fd = setup_.sockets.receive_fd;
  cc_->interrupt = &stop_.flag();
  if (const ParamValue *v = p_.param(kind_params::verify); v && !v->is_int)
    cc_->verify_per_byte = v->s == "per_byte";
  if (runs_back_to_back(p_) && cc_->kind != ConsumerKind::None) {
    // Back-to-back: the consumer thread produces each batch after draining the last one.
    auto trigger = make_trigger(pc_);
    if (!trigger) return trigger.error();
    cc_->trigger = std::move(*trigger);
    h_.producers = 0;
  }
  auto consumer = make_consumer(*cc_);
  if (!consumer) return consumer.error();
  consumer_ = std::move(*consumer);
  return {};
}

// The test_run producer's program; with batch timing, the batch size (calibrated here, on
// the point's packet): a call is that many operations and one more.
Result<> PointRunner::test_run_components() {
  pc_.test_run_fd = obj_.program_fd(test_run_driver(f_, *prog_));
  if (!batch_.active()) return {};
  if (batch_.batch_iters() == 0) BB_TRY(calibrate_batch());  // not yet by setup's calibrate_batch
  pc_.ops_per_run = uint64_t(batch_.batch_iters()) + 1;
  return {};
}

// The batch size (BatchTimingRun::prepare) on the point's packet: after setup, or where the
// family's setup says (the `calibrate_batch` action: before what setup turns on later).
Result<> PointRunner::calibrate_batch() {
  const int fd = obj_.program_fd(test_run_driver(f_, *prog_));
  auto input = test_run_input_for(p_);
  if (!input) return input.error();
  auto iters = batch_.prepare(p_, [&] { return test_run_once(fd, input->data_in); });
  if (!iters) return iters.error();
  return {};
}

// map_churn: the object's template map and the `nr_entries` / `prefix_len` params.
void PointRunner::set_map_churn() {
  if (bpf_map *m = obj_.map(kChurnTemplateMap)) pc_.churn_map_fd = bpf_map__fd(m);
  if (const ParamValue *n = p_.param(kind_params::nr_entries); n && n->is_int && n->i > 0)
    pc_.churn_entries = static_cast<uint64_t>(n->i);
  if (const ParamValue *l = p_.param(kind_params::prefix_len); l && l->is_int && l->i > 0)
    pc_.churn_prefix_len = static_cast<uint32_t>(l->i);
}

// Kernel threads whose CPU time is a metric; a missing thread skips the point. A point
// param `kthread_pid` > 0 names the thread by pid instead (a pid that is not there fails
// the point: it was asked for).
Result<> PointRunner::watch_kernel_threads() {
  const int64_t pid = p_.int_param(kind_params::kthread_pid);
  for (const auto &m : metrics_) {
    if (m.source.kind != MetricSourceKind::KthreadStime) continue;
    if (pid > 0) {
      BB_TRY(kthreads_[m.name].init_pid(static_cast<pid_t>(pid)));
      continue;
    }
    if (auto watched = kthreads_[m.name].init(m.source.operand); !watched)
      return end_as(PointResult::Status::Skipped, watched.error().message);
  }
  return {};
}

// One interval's counts, metric by metric, from wherever each metric's source is.
std::map<std::string, uint64_t> PointRunner::read_interval(uint64_t producer_ops) {
  std::vector<uint64_t> vals(counter_vars_.size());
  for (size_t i = 0; i < vals.size(); ++i) vals[i] = counters_.take(i);
  if (hist_.active()) hist_.sample();
  uint64_t consumer_ops = consumed_.take();
  if (!checks_.empty()) {
    totals_["producer"] += producer_ops;
    totals_["consumer"] += consumer_ops;
    for (size_t i = 0; i < vals.size(); ++i) totals_["counter:" + counter_vars_[i]] += vals[i];
  }
  std::map<std::string, uint64_t> d;
  for (const auto &m : metrics_) {
    switch (m.source.kind) {
    case MetricSourceKind::Producer: d[m.name] = producer_ops; break;
    case MetricSourceKind::Consumer: d[m.name] = consumer_ops; break;
    case MetricSourceKind::Counter: d[m.name] = vals[counter_index_.at(m.source.operand)]; break;
    case MetricSourceKind::KthreadStime: d[m.name] = kthreads_.at(m.name).take(); break;
    case MetricSourceKind::CgroupMemory: d[m.name] = cgroup_.read(m.source.operand); break;
    case MetricSourceKind::Ratio: break;        // derived from two others when summarized
    case MetricSourceKind::Sum: break;          // added from the others below
    case MetricSourceKind::BatchTiming: break;  // below, all from one read
    }
  }
  batch_.read_levels(metrics_, d);
  if (stats_switch_.is_on()) prog_reader_.take(d);
  add_sum_counts(metrics_, d);
  return d;
}

// Switches the kernel's run-time stats on for the harness run (an fd; closing it puts the
// switch back as it was). A kernel that refuses leaves the point without prog_* metrics.
void PointRunner::start_prog_stats() {
  if (prog_reader_.empty()) return;
  if (Result<> on = stats_switch_.on(); !on) r_.prog_stats.note = on.error().message;
  r_.prog_stats.enabled = stats_switch_.is_on();
}

// The harness run and the summary of its measured intervals.
void PointRunner::measure() {
  const int warm_n = warmup_intervals(h_);
  SampleFn on_sample = [&](int iter, const Sample &s, bool warm) {
    // Per-CPU rates cover the measured intervals: mark where warmup ends.
    if (f_.per_cpu.enabled()) {
      if (!warm) per_cpu_.end_interval();
      else if (iter + 1 == warm_n) per_cpu_.snapshot();
    }
    if (warm && iter + 1 == warm_n) prog_reader_.mark_start();
    if (opts_.on_sample) opts_.on_sample(p_, iter, s, warm);
  };
  MeasureFn read = [this](uint64_t producer_ops) { return read_interval(producer_ops); };
  // The self-checks count from here: what setup or attach counted is no producer's doing.
  if (!checks_.empty())
    for (size_t i = 0; i < counter_vars_.size(); ++i) counters_.take(i);
  start_prog_stats();
  bracket_measured_part();
  // `timing_samples`: the kernel bench's end of a batch-timed run (when no CI target is).
  if (!h_.enough && batch_.target() > 0) {
    h_.enough = [this](const std::vector<Sample> &) { return batch_.reached(p_.producers); };
    h_.max_duration_ns = p_.duration_ns;
  }
  HarnessResult hr = run_harness(h_, *producer_, consumer_.get(), read, stop_, on_sample);
  r_.interference = watch_.end();
  late_producer_ops_ = hr.late_producer_ops;
  const bool with_stats = stats_switch_.is_on() && prog_reader_.has_measured();
  prog_reader_.mark_end();
  stats_switch_.off();
  if (with_stats) {
    r_.prog_stats.programs = prog_reader_.totals();
    r_.report.push_back("prog_ns");  // a column; prog_runs and prog_time_share are in the stats
  }

  r_.warmup = std::move(hr.warmup);
  r_.samples = std::move(hr.samples);
  r_.summary = summarize(r_.samples, with_prog_stat_metrics(metrics_, with_stats), p_.producers, r_.report);
  // `enough` also ends a run whose target is undefined (a zero mean): not reached, and why.
  if (const MetricSummary *m = r_.summary.find(r_.summary.primary); m && hr.enough && p_.precision_pct > 0)
    r_.precision_note = precision_undefined(*m);
  r_.precision_reached = p_.precision_pct > 0 && hr.enough && r_.precision_note.empty();
  if (batch_.active()) r_.batch_timing = batch_.result();
  if (f_.per_cpu.enabled()) r_.per_cpu = per_cpu_.rates();
  finish_observers();
  if (hr.error) {
    fail(*hr.error);
  } else if (hr.interrupted) {
    r_.status = PointResult::Status::Interrupted;
    r_.reason = "interrupted";
  }
}

// What watches the measured part besides the counters: the latency histogram, perf
// record (--profile) and the hardware counters (--hw-counters, opened here so the
// producer threads the harness creates inherit them), started and stopped with it.
void PointRunner::bracket_measured_part() {
  if (opts_.profile) {
    profiler_ = std::make_unique<PointProfiler>(*opts_.profile, p_.label);
    profiler_->prepare();  // perf's start-up before the harness, events off
  }
  if (opts_.hw_counters) {
    hw_ = std::make_unique<HwCounters>();
    if (!hw_->open()) hw_.reset();
  }
  h_.on_measure_begin = [this] {
    if (profiler_) profiler_->begin();
    if (hist_.active()) hist_.begin();
    batch_.begin();
    if (hw_) hw_->enable();
  };
  h_.on_measure_end = [this] {
    batch_.end();
    if (hw_) hw_->disable();
    if (hist_.active()) r_.latency_hist = hist_.since_begin();
    if (profiler_) profiler_->end();
  };
}

// After the harness (threads joined, so inherited counters are summed), while the
// programs are still loaded (perf script resolves their symbols from the kernel).
void PointRunner::finish_observers() {
  if (profiler_) r_.profile = profiler_->finish(&stop_.flag());
  if (!hw_) return;
  auto counts = hw_->read();
  if (!counts) return;
  const std::string &primary = r_.summary.primary.empty() ? std::string("hits") : r_.summary.primary;
  for (const auto &s : r_.samples)
    if (auto it = s.deltas.find(primary); it != s.deltas.end()) counts->ops += it->second;
  r_.hw_counters = *counts;
}

// Every thread has stopped: drain the buffer, read what came after the last sample, and
// compare each check's two counts. A disagreement fails the point with both of them.
Result<> PointRunner::self_check() {
  if (checks_.empty() || r_.status != PointResult::Status::Ok) return {};
  if (consumer_)
    if (auto drained = consumer_->drain_rest(); !drained) {
      if (stop_.stop_requested())
        return end_as(PointResult::Status::Interrupted, "interrupted during the self-check's drain");
      return Error("self-check: draining the buffer: " + drained.error().message);
    }
  read_interval(late_producer_ops_);  // into the totals only
  std::optional<Error> failed;
  for (const auto &c : checks_) {
    r_.self_checks.push_back(evaluate_self_check(c, totals_));
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
