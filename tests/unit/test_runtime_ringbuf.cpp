// Runtime tests (root + BPF) of the ringbuf family and its consumers: every consumer
// receives records; back-to-back over a fixed number of triggers is lossless and exact;
// sampled notification still delivers every record by the end of a run.
#include <catch2/catch.hpp>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>

#include "runtime/consumer_setup.hpp"
#include "runtime/counters.hpp"
#include "runtime/run_point.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

using test::num;
using test::set_param;
using test::word;

// The point's object loaded and attached the way run_point does it, with the drops
// counter mapped, so a test can drive one consumer component directly.
struct RingLoaded {
  BpfObject obj;
  BssCounters drops;
  std::string error;

  RingLoaded(const PlanPoint &p, const test::Families &fams) {
    const FamilyManifest &f = fams.get("ringbuf");
    const ProgramSpec *prog = f.program(p.program);
    auto elf = test::compile_point(p, fams, error);
    if (elf.empty()) return;
    auto fail = [&](const Result<> &r) {
      if (!r) error = r.error().message;
      return !r;
    };
    if (fail(obj.open(elf, "bb_ringbuf")) || fail(obj.set_rodata("bb_tgid", getpid(), true))) return;
    for (const char *n : {"batch", "sample_rate", "sampled"})
      if (fail(obj.set_rodata(n, p.param(n)->i))) return;
    if (fail(obj.set_map_size("ringbuf", static_cast<uint32_t>(p.param("ring_size")->i))) ||
        fail(obj.set_autoload_only({prog->function})) || fail(obj.load()))
      return;
    if (fail(ensure_tracefs())) return;
    if (fail(obj.attach(prog->function, AttachSpec{})) || fail(drops.init(obj, {"bb_drops"}))) return;
  }
};

// Runs the consumer on its own thread until `done` says so (or 10 s pass), then stops it.
void run_consumer(Consumer &c, const std::function<bool()> &done, const std::function<void()> &meanwhile = {}) {
  std::atomic<bool> stop{false};
  std::string err = "not run";
  std::thread t([&] { err = test::error_of(c.run(0, stop)); });
  if (meanwhile) meanwhile();
  test::wait_until(done, std::chrono::seconds(10), std::chrono::milliseconds(5));
  stop = true;
  t.join();
  CHECK(err == "");
}

struct Variant {
  const char *prog, *consumer;
};
constexpr Variant kVariants[] = {{"reserve_commit", "libbpf"},
                                 {"reserve_commit", "custom"},
                                 {"output", "custom"},
                                 {"perfbuf", "libbpf"},
                                 {"perfbuf", "custom"}};

// A variant's consumer over sampled notification (wake once sample_rate records wait),
// with its object loaded and attached; `error` says why not.
struct SampledConsumer {
  PlanPoint p;
  std::unique_ptr<RingLoaded> l;
  ProducerCounters consumed{1};
  std::unique_ptr<Consumer> c;
  std::string error;

  SampledConsumer(const test::Families &fams, const Variant &v, uint64_t batch, uint64_t sample_rate) {
    const FamilyManifest &f = fams.get("ringbuf");
    p = test::make_point(f, v.prog);
    set_param(p, "batch", num(batch));
    set_param(p, "sample_rate", num(sample_rate));
    set_param(p, "sampled", num(1));
    set_param(p, "consumer", word(v.consumer));
    l = std::make_unique<RingLoaded>(p, fams);
    if (!(error = l->error).empty()) return;
    auto cc = consumer_config_for(p, f.consumer_of(*f.program(v.prog)), l->obj);
    if (!cc) {
      error = cc.error().message;
      return;
    }
    cc->consumed = &consumed.slot(0);
    auto made = make_consumer(*cc);
    if (!made) error = made.error().message;
    else if (!(c = std::move(*made))) error = "no consumer";
  }
};

}  // namespace

TEST_CASE("ringbuf: every consumer receives records", "[runtime][ringbuf]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  REQUIRE_FALSE(fams.diags.has_errors());
  const FamilyManifest &f = fams.get("ringbuf");
  RunOptions opts;
  opts.interval_ns = 250'000'000;
  for (bool b2b : {false, true})
    for (const auto &v : kVariants) {
      DYNAMIC_SECTION(v.prog << " " << v.consumer << (b2b ? " back-to-back" : " parallel")) {
        PlanPoint p = test::make_point(f, v.prog, 250'000'000, 1'000'000'000);
        set_param(p, "consumer", word(v.consumer));
        set_param(p, "back2back", num(b2b));
        std::string err;
        auto obj = test::compile_point(p, fams, err);
        INFO(err);
        REQUIRE(!obj.empty());
        StopSource stop;
        PointResult r = run_point(p, f, obj, opts, stop);
        INFO(to_string(r.status) << " " << r.reason);
        REQUIRE(r.status == PointResult::Status::Ok);
        REQUIRE(r.samples.size() == 4);
        // Over the whole run, not per interval: a machine-wide stall (e.g. the kernel
        // freeing a huge map another test made) can empty an interval or two.
        uint64_t hits = 0;
        for (const auto &s : r.samples) hits += s.deltas.at("hits");
        CHECK(hits > 0);
        if (b2b)  // the consumer drains each batch before the next: nothing is ever refused
          for (const auto &s : r.samples) CHECK(s.deltas.at("drops") == 0);
      }
    }
}

TEST_CASE("ringbuf: back-to-back consumes batch x triggers exactly, no drops", "[runtime][ringbuf]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  const FamilyManifest &f = fams.get("ringbuf");
  constexpr uint64_t kTriggers = 2000, kBatch = 123;
  for (const char *count : {"plain", "atomic"})  // record_count: the kernel bench's atomic_inc per record
    for (bool sampled : {false, true})
      for (const auto &v : kVariants) {
      DYNAMIC_SECTION(v.prog << " " << v.consumer << (sampled ? " sampled" : "") << " " << count) {
        PlanPoint p = test::make_point(f, v.prog);
        set_param(p, "record_count", word(count));
        set_param(p, "batch", num(kBatch));
        set_param(p, "sample_rate", num(kBatch));  // sampled b2b needs sample_rate <= batch
        set_param(p, "sampled", num(sampled));
        set_param(p, "ring_size", num(4 << 20));
        set_param(p, "consumer", word(v.consumer));
        RingLoaded l(p, fams);
        INFO(l.error);
        REQUIRE(l.error.empty());
        auto cc = consumer_config_for(p, f.consumer_of(*f.program(v.prog)), l.obj);
        INFO((cc ? "" : cc.error().message));
        REQUIRE(cc);
        ProducerCounters consumed(1);
        cc->consumed = &consumed.slot(0);
        auto trigger = make_trigger(ProducerConfig{ProducerKind::Syscall});
        REQUIRE(trigger);
        cc->trigger = *trigger;
        cc->max_triggers = kTriggers;
        auto c = make_consumer(*cc);
        REQUIRE(c);
        REQUIRE(*c);
        uint64_t total = 0;
        run_consumer(**c, [&] { return (total += consumed.take()) >= kTriggers * kBatch; });
        total += consumed.take();
        CHECK(total == kTriggers * kBatch);
        CHECK(l.drops.take(0) == 0);
      }
    }
}

TEST_CASE("ringbuf: sampled notification delivers every record by the end", "[runtime][ringbuf]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  // sample_rate far above what is ever waiting: most records never cause a wakeup.
  constexpr uint64_t kTriggers = 101, kBatch = 7;
  for (const auto &v : kVariants) {
    DYNAMIC_SECTION(v.prog << " " << v.consumer) {
      SampledConsumer sc(fams, v, kBatch, 5000);
      INFO(sc.error);
      REQUIRE(sc.error.empty());
      // This thread produces (the consumer is another thread); then the run ends.
      run_consumer(
          *sc.c, [] { return true; },
          [] {
            for (uint64_t i = 0; i < kTriggers; ++i) (void)syscall(__NR_getpgid);
          });
      CHECK(sc.l->drops.take(0) == 0);
      CHECK(sc.consumed.take() == kTriggers * kBatch);
    }
  }
}

TEST_CASE("ringbuf: records that never wake the consumer are read within a poll timeout",
          "[runtime][ringbuf]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  // sample_rate 10^6 (16 MB waiting for a ringbuf wakeup, 10^6 records for a perf one):
  // none of these 700 records wakes the consumer, as with a missed wakeup. A consumer that
  // reads only when woken would see none of them until it stops.
  constexpr uint64_t kTriggers = 100, kBatch = 7;
  for (const auto &v : kVariants) {
    DYNAMIC_SECTION(v.prog << " " << v.consumer) {
      SampledConsumer sc(fams, v, kBatch, 1000000);
      INFO(sc.error);
      REQUIRE(sc.error.empty());
      for (uint64_t i = 0; i < kTriggers; ++i) (void)syscall(__NR_getpgid);
      uint64_t total = 0;
      const auto t0 = std::chrono::steady_clock::now();
      run_consumer(*sc.c, [&] { return (total += sc.consumed.take()) >= kTriggers * kBatch; });
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      CHECK(total == kTriggers * kBatch);
      CHECK(waited < 5.0);  // one 100 ms poll timeout; the deadline that stops it is 10 s
      CHECK(sc.l->drops.take(0) == 0);
    }
  }
}
