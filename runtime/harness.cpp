#include "runtime/harness.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "util/limit_hints.hpp"
#include "runtime/clock.hpp"
#include "runtime/cpuset.hpp"

namespace bpfbench {
namespace {

// Sleeps until `deadline` (monotonic ns) or until a stop flag is set, in slices short
// enough that a stop is noticed within ~50 ms.
void sleep_until(int64_t deadline, const std::atomic<bool> &a, const std::atomic<bool> &b) {
  constexpr int64_t kSlice = 50'000'000;
  while (!a.load() && !b.load()) {
    int64_t left = deadline - monotonic_ns();
    if (left <= 0) return;
    int64_t wake = monotonic_ns() + std::min(left, kSlice);
    timespec ts{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  }
}

// A thread that cannot be created (RLIMIT_NPROC, RLIMIT_AS for its stack) fails the run
// with what it was for and the limit to raise, instead of an exception.
template <class Fail, class Body>
void start_thread(std::vector<std::thread> &threads, const char *what, int i, int n, const Fail &fail, Body body) {
  try {
    threads.emplace_back(std::move(body));
  } catch (const std::system_error &e) {
    fail(fmt::format("cannot create the thread of {} {} of {}: {} ({})", what, i + 1, n, e.code().message(),
                     task_limit_hint()));
  }
}

// The start gate: every thread waits (a futex sleep, no CPU) until all are created, so
// creating the 1000th thread does not compete with 999 running ones (1024 uprobe producers
// on 2 CPUs took ~25 s to start, most of it in the kernel), and the run starts with all of
// them at once.
struct StartGate {
  std::atomic<bool> open{false};
  void wait() { open.wait(false); }
  void release() {
    open.store(true);
    open.notify_all();
  }
};

// jthread-like guard: opens the gate, stops and joins the threads when the harness
// returns, on every path.
struct Joiner {
  std::atomic<bool> &stop;
  StartGate &gate;
  std::vector<std::thread> &threads;
  ~Joiner() {
    stop.store(true);
    gate.release();
    for (auto &t : threads)
      if (t.joinable()) t.join();
  }
};

int intervals(int64_t ns, int64_t interval) {
  if (interval <= 0) interval = 1'000'000'000;
  return static_cast<int>((std::max<int64_t>(ns, 0) + interval - 1) / interval);
}

// The sampling loop: one read of the counters per interval, the warmup intervals then the
// measured ones, until all are taken, `opts.enough` says so, or a stop (a failed thread or
// the user). Sets `res.interrupted` when the user stopped it early.
void sample_intervals(const HarnessOptions &opts, ProducerCounters &counters, const MeasureFn &measure,
                      const std::atomic<bool> &stop, const StopSource &external, const SampleFn &on_sample,
                      HarnessResult &res) {
  const int nwarm = warmup_intervals(opts), nmeas = measured_intervals(opts);
  const int64_t interval = opts.interval_ns > 0 ? opts.interval_ns : 1'000'000'000;
  int64_t t0 = monotonic_ns();
  measure(counters.take());  // drop whatever happened while threads started
  int64_t prev = t0;
  for (int iter = 0; iter < nwarm + nmeas; ++iter) {
    if (iter == nwarm && opts.on_measure_begin) opts.on_measure_begin();  // right after the last warmup read
    sleep_until(t0 + (iter + 1) * interval, stop, external.flag());
    if (stop.load() || external.stop_requested()) break;
    int64_t now = monotonic_ns();
    Sample s;
    s.deltas = measure(counters.take());
    s.duration_s = double(now - prev) / 1e9;
    prev = now;
    bool warm = iter < nwarm;
    (warm ? res.warmup : res.samples).push_back(s);
    if (on_sample) on_sample(iter, s, warm);
    if (!warm && opts.enough && opts.enough(res.samples)) {
      res.enough = true;
      break;
    }
  }
  // The measured part began iff every warmup sample was taken (the loop then reached iter nwarm).
  if (res.warmup.size() == size_t(nwarm) && opts.on_measure_end) opts.on_measure_end();
  bool complete = res.enough || int(res.warmup.size() + res.samples.size()) == nwarm + nmeas;
  res.interrupted = !complete && external.stop_requested();
}

}  // namespace

int warmup_intervals(const HarnessOptions &o) { return intervals(o.warmup_ns, o.interval_ns); }
int measured_intervals(const HarnessOptions &o) {
  return std::max(1, intervals(o.enough ? o.max_duration_ns : o.duration_ns, o.interval_ns));
}

HarnessResult run_harness(const HarnessOptions &opts, Producer &producer, Consumer *consumer, const MeasureFn &measure,
                          const StopSource &external, const SampleFn &on_sample) {
  HarnessResult res;
  int nr_consumers = consumer ? opts.consumers : 0;
  auto cpus = assign_cpus(opts.producers, nr_consumers, opts.affinity, opts.prod_cpus, opts.cons_cpus,
                          static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  if (!cpus) {
    res.error = cpus.error();
    return res;
  }

  std::atomic<bool> stop{false};
  std::mutex err_mu;
  auto fail = [&](const std::string &why) {
    std::lock_guard<std::mutex> g(err_mu);
    if (!res.error) res.error = Error(why);
    stop.store(true);
  };

  ProducerCounters counters(static_cast<size_t>(std::max(opts.producers, 0)));
  std::vector<std::thread> threads;
  StartGate gate;
  Joiner joiner{stop, gate, threads};  // whatever happens below, threads are stopped and joined

  // A stop or a failure is checked before each thread is created; the threads wait at the
  // gate until the last one exists (or the run ends first: then they see `stop`).
  auto go_on = [&] { return !stop.load() && !external.stop_requested(); };
  for (int i = 0; i < nr_consumers && go_on(); ++i) {
    int cpu = cpus->consumers[static_cast<size_t>(i)];
    start_thread(threads, "consumer", i, nr_consumers, fail, [&, i, cpu] {
      if (auto pinned = pin_thread_to(cpu); !pinned) return fail(pinned.error().message);
      gate.wait();
      if (stop.load()) return;
      if (auto ok = consumer->run(i, stop); !ok) fail(ok.error().message);
    });
  }
  for (int i = 0; i < opts.producers && go_on(); ++i) {
    int cpu = cpus->producers[static_cast<size_t>(i)];
    start_thread(threads, "producer", i, opts.producers, fail, [&, i, cpu] {
      if (auto pinned = pin_thread_to(cpu); !pinned) return fail(pinned.error().message);
      gate.wait();
      if (stop.load()) return;
      if (auto ok = producer.run(i, counters.slot(static_cast<size_t>(i)), stop); !ok) fail(ok.error().message);
    });
  }
  gate.release();

  sample_intervals(opts, counters, measure, stop, external, on_sample, res);
  stop.store(true);
  for (auto &t : threads) t.join();
  threads.clear();
  res.late_producer_ops = counters.take();
  return res;
}

}  // namespace bpfbench
