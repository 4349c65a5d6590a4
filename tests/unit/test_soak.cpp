// Soak test (root + BPF): many short trigger and ringbuf points back to back in this
// process, through run_point like `bpfbench run` does; what the process holds between
// points (fds, threads, memory) and the kernel objects the points created must not grow.
// BPFBENCH_SOAK_SECONDS sets the length (default 60: CI runs it on every push).
#include <catch2/catch.hpp>

#include <bpf/bpf.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "runtime/run_point.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;
using Clock = std::chrono::steady_clock;

namespace {

// What the process holds at one moment.
struct Census {
  int fds = 0;      // every open fd
  int bpf_fds = 0;  // BPF programs, maps, links and perf events (attachments)
  int threads = 0;
  long rss_kib = 0;
  size_t heap_bytes = 0;  // malloc'd and not yet freed
};

long status_field(const std::string &key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return std::strtol(line.c_str() + key.size() + 1, nullptr, 10);
  return -1;
}

Census take_census() {
  Census c;
  test::for_each_open_fd([&](const std::string &fd) {
    ++c.fds;
    c.bpf_fds += test::is_bpf_fd_target(test::fd_target(fd));
  });
  c.threads = int(status_field("Threads"));
  c.rss_kib = status_field("VmRSS");
  c.heap_bytes = mallinfo2().uordblks;
  return c;
}

// A census once the joined threads are gone from the thread group. pthread_join returns
// when the kernel clears the thread's tid (in exit_mm), before release_task takes it out
// of /proc/self/status's Threads: on a busy machine that took long enough for the count to
// show one thread too many (a clean-clone CI run: "threads 1 -> 2" in 3 points). Waits up
// to 500 ms for the count to come back to `threads`; a thread still there is a leak.
Census settled_census(int threads) {
  Census c = take_census();
  for (int i = 0; i < 50 && c.threads > threads; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    c = take_census();
  }
  return c;
}

// A kernel object by kind ('p'rog, 'm'ap, 'l'ink) and id. IDs are allocated cyclically,
// so one that is gone does not come back during the test.
using ObjectId = std::pair<char, uint32_t>;

// The BPF objects this process holds now.
void collect_object_ids(std::set<ObjectId> &out) {
  test::HeldBpfObjects h = test::held_bpf_objects();
  for (auto [kind, ids] : {std::pair{'p', &h.progs}, {'m', &h.maps}, {'l', &h.links}})
    for (uint32_t id : *ids) out.insert({kind, id});
}

bool still_exists(const ObjectId &o) {
  int fd = o.first == 'p'   ? bpf_prog_get_fd_by_id(o.second)
           : o.first == 'm' ? bpf_map_get_fd_by_id(o.second)
                            : bpf_link_get_fd_by_id(o.second);
  if (fd < 0) return false;
  close(fd);
  return true;
}

// Drops the objects that are gone; returns how many remain.
size_t prune_gone(std::set<ObjectId> &ids) {
  std::erase_if(ids, [](const ObjectId &o) { return !still_exists(o); });
  return ids.size();
}

struct SoakPoint {
  const FamilyManifest *family;
  PlanPoint point;
  std::vector<uint8_t> object;
};

std::string describe(const PlanPoint &p) {
  std::ostringstream s;
  s << p.family << "/" << p.program;
  for (const char *n : {"consumer", "back2back", "sampled"})
    if (const ParamValue *v = p.param(n)) s << " " << n << "=" << (v->is_int ? std::to_string(v->i) : v->s);
  return s.str();
}

std::string fmt_growth(const std::string &what, int round, const Census &base, const Census &now) {
  std::ostringstream s;
  s << what << " in round " << round + 1 << ": fds " << base.fds << " -> " << now.fds << ", BPF fds " << base.bpf_fds
    << " -> " << now.bpf_fds << ", threads " << base.threads << " -> " << now.threads;
  return s.str();
}

int soak_seconds() {
  const char *s = std::getenv("BPFBENCH_SOAK_SECONDS");
  int v = s ? std::atoi(s) : 0;
  return v > 0 ? v : 60;
}

}  // namespace

TEST_CASE("soak: short trigger and ringbuf points back to back leak no fds, threads, memory or BPF objects",
          "[runtime][soak][no-asan]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  REQUIRE_FALSE(fams.diags.has_errors());

  // Every trigger program (unsupported ones skip, cheaply, after the first probe) and
  // every ringbuf producer x consumer, in parallel and back-to-back, one sampled.
  constexpr int64_t kShort = 50'000'000;  // one 50 ms interval, no warmup
  std::vector<SoakPoint> points;
  const FamilyManifest &trigger = fams.get("trigger");
  for (const auto &prog : trigger.programs)
    points.push_back({&trigger, test::make_point(trigger, prog.name, 0, kShort), {}});
  const FamilyManifest &ringbuf = fams.get("ringbuf");
  struct Rb {
    const char *prog, *consumer;
    int b2b, sampled;
  };
  for (Rb v : {Rb{"reserve_commit", "libbpf", 0, 0}, Rb{"reserve_commit", "custom", 1, 0}, Rb{"output", "custom", 0, 1},
               Rb{"perfbuf", "libbpf", 1, 0}, Rb{"perfbuf", "custom", 0, 0}}) {
    PlanPoint p = test::make_point(ringbuf, v.prog, 0, kShort);
    test::set_param(p, "consumer", test::word(v.consumer));
    test::set_param(p, "back2back", test::num(v.b2b));
    test::set_param(p, "sampled", test::num(v.sampled));
    points.push_back({&ringbuf, std::move(p), {}});
  }
  for (auto &sp : points) {
    std::string err;
    sp.object = test::compile_point(sp.point, fams, err);
    INFO(describe(sp.point) << ": " << err);
    REQUIRE(!sp.object.empty());
  }

  FeatureProber prober;
  RunOptions opts;
  opts.prober = &prober;
  opts.interval_ns = kShort;
  // While a point runs, note the kernel objects it holds: they must all go away later.
  std::set<ObjectId> outstanding;
  size_t objects_seen = 0;
  opts.on_sample = [&](const PlanPoint &, int, const Sample &, bool) {
    std::set<ObjectId> now;
    collect_object_ids(now);
    for (const auto &o : now) objects_seen += outstanding.insert(o).second;
  };

  // Censuses after each round. The first is the baseline: by then every lazy cache
  // (feature probes, the allocator's) has been filled once.
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(soak_seconds());
  std::vector<Census> after_round;
  std::vector<size_t> alive_after_round;  // kernel objects of finished points not yet freed
  int rounds = 0, ran = 0, skipped = 0;
  std::vector<std::string> growth;  // points that left something behind, reported together
  for (; rounds < 3 || Clock::now() < deadline; ++rounds) {
    for (const auto &sp : points) {
      StopSource stop;
      PointResult r = run_point(sp.point, *sp.family, sp.object, opts, stop);
      INFO(describe(sp.point) << ": " << to_string(r.status) << " " << r.reason);
      REQUIRE((r.status == PointResult::Status::Ok || r.status == PointResult::Status::Skipped));
      (r.status == PointResult::Status::Ok ? ran : skipped) += 1;
      if (rounds == 0) continue;
      // From point to point nothing may stay open: no fd, no BPF object fd, no thread.
      const Census &base = after_round.front();
      const Census now = settled_census(base.threads);
      if (now.bpf_fds != base.bpf_fds || now.threads != base.threads || now.fds > base.fds + 2)
        growth.push_back(fmt_growth(describe(sp.point), rounds, base, now));
    }
    alive_after_round.push_back(prune_gone(outstanding));
    after_round.push_back(take_census());
  }
  // The kernel frees programs and maps after an RCU grace period: give it a moment.
  for (int i = 0; i < 50 && prune_gone(outstanding) > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();

  const Census &base = after_round.front(), &mid = after_round[after_round.size() / 2], &last = after_round.back();
  const size_t most_alive = *std::max_element(alive_after_round.begin() + 1, alive_after_round.end());
  WARN("soak: " << ran + skipped << " points (" << ran << " run, " << skipped << " skipped as unsupported) in "
                << rounds << " rounds, " << secs << " s. After round 1 / round " << after_round.size() / 2 + 1
                << " / the last round: fds " << base.fds << " / " << mid.fds << " / " << last.fds << ", BPF fds "
                << base.bpf_fds << " / " << mid.bpf_fds << " / " << last.bpf_fds << ", threads " << base.threads
                << " / " << mid.threads << " / " << last.threads << ", RSS " << base.rss_kib << " / " << mid.rss_kib
                << " / " << last.rss_kib << " KiB, heap in use " << base.heap_bytes << " / " << mid.heap_bytes << " / "
                << last.heap_bytes << " B. BPF objects created " << objects_seen
                << "; not yet freed at the end of a round: " << alive_after_round.front() << " after round 1, at most "
                << most_alive << " later; " << outstanding.size() << " after a 5 s grace");

  CHECK(ran > 0);
  CHECK(objects_seen >= size_t(ran));  // the census of kernel objects saw the points' objects
  {
    INFO("first of " << growth.size() << " points that left something behind: " << (growth.empty() ? "" : growth[0]));
    CHECK(growth.empty());
  }
  // Memory. The heap in use grows for some rounds and then stays flat (in a 60 s run
  // here: +72 KiB over the first half, +5 KiB over the second), so only the second half
  // is held to a slack: 64 KiB, which a leak of ~160 B per point over its ~400 points
  // would exceed.
  CHECK(last.heap_bytes <= mid.heap_bytes + 64 * 1024);
  CHECK(last.rss_kib <= base.rss_kib + 4 * 1024);
  // Kernel objects: only the last point's may still be freeing at a round's end, then none.
  CHECK(most_alive <= alive_after_round.front() + 16);
  std::ostringstream left;
  for (const auto &[kind, id] : outstanding) left << " " << kind << id;
  INFO("BPF objects (p=prog, m=map, l=link) still alive:" << left.str());
  CHECK(outstanding.empty());
}
