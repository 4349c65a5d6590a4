#include "runtime/ab/interleave_run.hpp"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <memory>

#include "runtime/ab/dispatcher.hpp"
#include "runtime/ab/load_copy.hpp"
#include "runtime/ab/producer_threads.hpp"
#include "runtime/clock.hpp"
#include "runtime/cpuset.hpp"
#include "runtime/interference.hpp"
#include "runtime/producer_config.hpp"
#include "runtime/prog_stats.hpp"

namespace bpfbench {

namespace {

void sleep_to(int64_t deadline) {
  timespec ts{static_cast<time_t>(deadline / 1'000'000'000), static_cast<long>(deadline % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {}
}

// One slice's reading of the active load.
struct SliceValue {
  double value = 0, wall = 0;
  double thread_cpu_s = 0;  // CPU time per producer thread in the counted window
  std::optional<double> prog_ns;
};

using Copies = std::vector<std::unique_ptr<LoadedCopy>>;

class InterleaveRunner {
 public:
  InterleaveRunner(const AbSideInput &a, const AbSideInput &b, const InterleavePlan &plan, const InterleaveOptions &o,
                   StopSource &stop)
      : a_(a),
        b_(b),
        plan_(plan),
        o_(o),
        stop_(stop) {}

  Result<InterleaveRun> run() {
    t0_ = monotonic_ns();
    BB_TRY(prepare());
    while (run_.stop == AbStop::Continue && !stop_.stop_requested()) BB_TRY(block());
    run_.interference = watch_.end();
    run_.interrupted = stop_.stop_requested() && run_.stop == AbStop::Continue;
    run_.elapsed_s = elapsed();
    return std::move(run_);
  }

 private:
  double elapsed() const { return double(monotonic_ns() - t0_) / 1e9; }

  // The producer, the CPUs it runs on, the dispatcher and the run-time stats switch.
  Result<> prepare() {
    const PlanPoint &p = *a_.point;
    prog_ = a_.family->program(p.program.empty() ? a_.family->default_program : p.program);
    auto pc = producer_config_for(p, *a_.family, *prog_);
    if (!pc) return pc.error();
    pc_ = std::move(*pc);
    std::vector<int> prod_cpus;
    if (!p.prod_cpus.empty()) {
      auto c = parse_cpuset(p.prod_cpus);
      if (!c) return c.error();
      prod_cpus = *c;
    }
    auto cpus = assign_cpus(p.producers, 0, p.affinity, prod_cpus, {}, int(sysconf(_SC_NPROCESSORS_ONLN)));
    if (!cpus) return cpus.error();
    cpus_ = cpus->producers;
    watch_.begin(measured_cpus(cpus_));
    if (plan_.dispatch == AbDispatch::Dispatcher) {
      BB_TRY(dispatcher_.attach(*prog_, o_.uprobe_binary, o_.verbose));
      watch_.check_hooks();
    }
    if (o_.prog_stats)
      if (Result<> on = stats_.on(); !on) run_.prog_stats_note = on.error().message;
    return {};
  }

  // K fresh loads a side, the producer threads, one warm pass over every load, rounds of
  // slices until the block's time or the stop rule, then everything of the block goes.
  Result<> block() {
    Copies as, bs;
    // Declared after the loads, so gone before them on every path: the threads stop and the
    // slot empties while the programs they reach are still loaded.
    struct BlockEnd {
      ProducerThreads &threads;
      Dispatcher &dispatcher;
      ~BlockEnd() {
        threads.stop();
        dispatcher.clear();
      }
    } end{threads_, dispatcher_};
    BB_TRY(in_side("A", load(a_, as, run_.a_facts)));
    BB_TRY(in_side("B", load(b_, bs, run_.b_facts)));
    const uint32_t first_unit = uint32_t(run_.jit64.size());
    for (size_t k = 0; k < as.size(); ++k)
      run_.jit64.emplace_back(as[k]->facts() ? as[k]->facts()->jit_offset64 : std::nullopt,
                              bs[k]->facts() ? bs[k]->facts()->jit_offset64 : std::nullopt);
    ++run_.blocks;
    BB_TRY(activate(*as[0]));
    if (!producer_) {
      pc_.test_run_fd = as[0]->driver_fd();
      pc_.active_test_run_fd = &active_fd_;
      auto made = make_producer(pc_);
      if (!made) return made.error();
      producer_ = std::move(*made);
    }
    BB_TRY(threads_.start(*producer_, cpus_));
    for (const Copies *side : {&as, &bs})
      for (const auto &c : *side) {
        BB_TRY(activate(*c));
        sleep_to(monotonic_ns() + 5'000'000);
      }
    // test_run reports the runs' own duration for packet programs (skb, XDP, ...), not for
    // every type (raw_tp: none): the warm pass's calls say which, once, before any slice.
    if (run_.blocks == 1) run_.kernel_time = pc_.kind == ProducerKind::TestRun && threads_.take_kernel_ns() > 0;
    const int64_t block_end = monotonic_ns() + o_.block_ns;
    Result<> rounds = {};
    for (size_t round = 0; run_.stop == AbStop::Continue && !stop_.stop_requested(); ++round) {
      rounds = one_round(as, bs, first_unit, round);
      if (!rounds || (o_.block_ns > 0 && monotonic_ns() >= block_end)) break;
    }
    threads_.stop();
    if (auto e = threads_.error()) return *e;
    return rounds;
  }

  // A failed load names its side ("in B: load: ..."), since both are loaded here.
  static Result<> in_side(const char *side, Result<> r) {
    if (r) return r;
    Error e = r.error();
    e.message = std::string("in ") + side + ": " + e.message;
    return e;
  }

  Result<> load(const AbSideInput &side, Copies &out, std::optional<ProgFacts> &first_facts) {
    for (size_t k = 0; k < std::max<size_t>(o_.copies, 1); ++k) {
      auto c = std::make_unique<LoadedCopy>();
      BB_TRY(c->load(side, plan_.metric, o_.verbose, stop_));
      if (!first_facts) first_facts = c->facts();
      out.push_back(std::move(c));
    }
    return {};
  }

  Result<> activate(LoadedCopy &c) {
    if (plan_.dispatch == AbDispatch::Dispatcher) BB_TRY(dispatcher_.activate(c.measured_fd()));
    active_fd_.store(c.driver_fd(), std::memory_order_relaxed);
    return {};
  }

  int entry_fd(const LoadedCopy &c) const {
    return plan_.dispatch == AbDispatch::Dispatcher ? dispatcher_.fd() : c.measured_fd();
  }

  Result<SliceValue> slice(LoadedCopy &c);
  Result<> one_round(Copies &as, Copies &bs, uint32_t first_unit, size_t round);

  const AbSideInput &a_, &b_;
  const InterleavePlan &plan_;
  const InterleaveOptions &o_;
  StopSource &stop_;
  const ProgramSpec *prog_ = nullptr;
  int64_t t0_ = 0;
  InterleaveRun run_;
  ProducerConfig pc_;
  std::vector<int> cpus_;
  std::atomic<int> active_fd_{-1};
  BpfStatsSwitch stats_;
  InterferenceWatch watch_;
  Dispatcher dispatcher_;
  std::unique_ptr<Producer> producer_;
  ProducerThreads threads_;  // declared after the producer: joined before it goes
};

// Switch, settle, then count the active load's events over the threads' CPU time.
Result<SliceValue> InterleaveRunner::slice(LoadedCopy &c) {
  BB_TRY(activate(c));
  const int64_t start = monotonic_ns();
  sleep_to(start + o_.settle_ns);
  const bool counter = plan_.metric.source == MetricSourceKind::Counter;
  const bool ns = stats_.is_on();
  (void)(counter ? c.take() : threads_.take_ops());
  (void)threads_.take_kernel_ns();
  std::optional<ProgCounters> p0, p1;
  if (ns)
    if (auto r = read_prog_counters(entry_fd(c))) p0 = *r;
  const uint64_t cpu0 = threads_.cpu_ns();
  const int64_t w0 = monotonic_ns();
  // The counted window is always slice - settle long, from when it began: a settle that
  // overslept (this thread preempted) must not leave a window of a few microseconds.
  sleep_to(w0 + o_.slice_ns - o_.settle_ns);
  const uint64_t n = counter ? c.take() : threads_.take_ops();
  const uint64_t kernel_ns = threads_.take_kernel_ns();
  const uint64_t cpu1 = threads_.cpu_ns();
  const int64_t w1 = monotonic_ns();
  if (ns)
    if (auto r = read_prog_counters(entry_fd(c))) p1 = *r;
  SliceValue v;
  const double cpu_s = double(cpu1 - cpu0) / 1e9, wall_s = double(w1 - w0) / 1e9;
  // test_run: the kernel's own clock around the runs (neither the syscall's cost nor the
  // time the thread was preempted is in it); else the producer threads' CPU time.
  const double basis_s = run_.kernel_time ? double(kernel_ns) / 1e9 : cpu_s;
  v.value = basis_s > 0 ? double(n) / basis_s : 0;
  v.wall = wall_s > 0 ? double(n) / wall_s : 0;
  v.thread_cpu_s = cpu_s / double(std::max<size_t>(cpus_.size(), 1));
  if (p0 && p1 && p1->run_cnt > p0->run_cnt)
    v.prog_ns = double(p1->run_time_ns - p0->run_time_ns) / double(p1->run_cnt - p0->run_cnt);
  return v;
}

// Every unit of the block once, four slices each (A B B A, or B A A B every other round):
// two pairs a unit; then the statistics and the stop rule.
Result<> InterleaveRunner::one_round(Copies &as, Copies &bs, uint32_t first_unit, size_t round) {
  // A slice says little when its producers hardly ran in it: under 0.2 ms of CPU per
  // thread (of an 18 ms window; a few hundred events of a fast program). A slice with no
  // event is a value (a metric that is 0 has no ratio: the statistics say so at once). A
  // share of the window is no criterion: on a loaded machine every slice gets a small
  // share, and its events per CPU second are still the program's speed (at a load average
  // of 25-32 on 2 CPUs: 5-8 % shares, ~1 ms a slice; a 20 % minimum dropped every pair).
  auto says_little = [](const SliceValue &v) { return v.thread_cpu_s < kMinSliceCpuS; };
  for (size_t k = 0; k < as.size(); ++k) {
    const bool a_first = (round + k) % 2 == 0;
    SliceValue v[4];
    for (int i = 0; i < 4; ++i) {
      const bool is_a = (i == 0 || i == 3) == a_first;
      auto s = slice(is_a ? *as[k] : *bs[k]);
      if (!s) return s.error();
      v[i] = *s;
      if (stop_.stop_requested()) return {};
    }
    for (int pair = 0; pair < 2; ++pair) {
      const SliceValue &x = v[2 * pair], &y = v[2 * pair + 1];
      const bool x_is_a = (pair == 0) == a_first;
      const SliceValue &va = x_is_a ? x : y, &vb = x_is_a ? y : x;
      if (says_little(va) || says_little(vb)) {
        ++run_.dropped_pairs;
        continue;
      }
      run_.pairs.push_back({first_unit + uint32_t(k), va.value, vb.value, va.wall, vb.wall, va.prog_ns, vb.prog_ns});
    }
  }
  if (auto e = threads_.error()) return *e;
  run_.stats = interleaved_stats(run_.pairs, run_.jit64, o_.rule.confidence);
  const double t = elapsed();
  run_.stop = interleaved_stop_state(run_.stats, true, o_.user_floor_pct, o_.rule, t);
  if (o_.on_round) o_.on_round(run_.stats, t);
  return {};
}

}  // namespace

Result<InterleaveRun> run_interleaved(const AbSideInput &a, const AbSideInput &b, const InterleavePlan &plan,
                                      const InterleaveOptions &o, StopSource &stop) {
  return InterleaveRunner(a, b, plan, o, stop).run();
}

}  // namespace bpfbench
