// Runtime tests (root + BPF): load failures carry the verifier log, a stop mid-run ends
// fast and leaves no program or link behind, uprobe variants count.
#include <catch2/catch.hpp>

#include <bpf/bpf.h>
#include <unistd.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <cstring>
#include <set>
#include <thread>

#include "runtime/bpf_object.hpp"
#include "runtime/privileges.hpp"
#include "runtime/run_point.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;
using Clock = std::chrono::steady_clock;

namespace {

// IDs of live BPF programs named `name` (the kernel truncates names to 15 chars).
std::set<uint32_t> prog_ids_named(const std::string &name) {
  std::set<uint32_t> ids;
  uint32_t id = 0;
  while (bpf_prog_get_next_id(id, &id) == 0) {
    int fd = bpf_prog_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_prog_info info{};
    uint32_t len = sizeof(info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && name.compare(0, 15, info.name) == 0) ids.insert(id);
    close(fd);
  }
  return ids;
}

// IDs of live links whose program is one of `progs`.
std::set<uint32_t> link_ids_of(const std::set<uint32_t> &progs) {
  std::set<uint32_t> ids;
  uint32_t id = 0;
  while (bpf_link_get_next_id(id, &id) == 0) {
    int fd = bpf_link_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_link_info info{};
    uint32_t len = sizeof(info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && progs.count(info.prog_id)) ids.insert(id);
    close(fd);
  }
  return ids;
}

}  // namespace

TEST_CASE("privilege check passes as root", "[runtime][privileges]") {
  BB_REQUIRE_ROOT();
  CHECK(check_privileges());
}

TEST_CASE("a verifier rejection fails in phase load with the log tail", "[runtime][lifecycle]") {
  BB_REQUIRE_ROOT();
  test::Families fams({test::fixtures_dir()});
  REQUIRE_FALSE(fams.diags.has_errors());
  const FamilyManifest &f = fams.get("verifier_reject");
  PlanPoint p = test::make_point(f, "reject");
  std::string err;
  auto obj = test::compile_point(p, fams, err);
  INFO(err);
  REQUIRE(!obj.empty());
  StopSource stop;
  PointResult r = run_point(p, f, obj, RunOptions{}, stop);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Failed);
  REQUIRE(r.error);
  CHECK(r.error->phase == BpfPhase::Load);
  CHECK(r.error->err == EACCES);
  CHECK(r.error->message.find("bench_reject") != std::string::npos);
  CHECK_FALSE(r.error->log_tail.empty());
  size_t lines = std::count(r.error->log_tail.begin(), r.error->log_tail.end(), '\n') + 1;
  CHECK(lines <= kLogTailLines);
  // The verifier's verdict is the log's point: it names the bad access.
  CHECK(r.error->log_tail.find("bb_hits") != std::string::npos);
  CHECK(r.reason.rfind("load: ", 0) == 0);
  CHECK(r.samples.empty());
  CHECK(prog_ids_named("bench_reject").empty());
}

TEST_CASE("a stop mid-run ends within a second and leaves no program or link", "[runtime][lifecycle]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  const FamilyManifest &f = fams.get("trigger");
  PlanPoint p = test::make_point(f, "rawtp", 1'000'000'000, 20'000'000'000);
  std::string err;
  auto obj = test::compile_point(p, fams, err);
  INFO(err);
  REQUIRE(!obj.empty());

  std::set<uint32_t> ours, our_links;
  StopSource stop;
  Clock::time_point stop_at;
  RunOptions opts;
  opts.on_sample = [&](const PlanPoint &, int iter, const Sample &, bool) {
    // While running: remember what this run loaded and attached, then stop. Only what
    // this process holds: another process may load bench_rawtp at the same time.
    test::HeldBpfObjects held = test::held_bpf_objects();
    ours = held.progs;
    our_links = held.links;
    if (iter == 1) {
      stop_at = Clock::now();
      stop.request_stop(SIGINT);
    }
  };
  PointResult r = run_point(p, f, obj, opts, stop);
  auto stopped_in = Clock::now() - stop_at;
  CHECK(r.status == PointResult::Status::Interrupted);
  CHECK(r.warmup.size() == 1);
  CHECK(r.samples.size() == 1);  // what was measured before the stop is kept
  CHECK(stopped_in < std::chrono::seconds(1));
  CHECK(ours.size() == 1);
  CHECK(our_links.size() == 1);
  // Links go at once; the kernel frees a detached program after an RCU grace period,
  // so its ID may linger briefly.
  CHECK(link_ids_of(ours).empty());
  std::set<uint32_t> left = ours;
  for (auto t0 = Clock::now(); !left.empty() && Clock::now() - t0 < std::chrono::seconds(3);) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::set<uint32_t> after = prog_ids_named("bench_rawtp");
    left.clear();
    for (uint32_t id : ours)
      if (after.count(id)) left.insert(id);
  }
  CHECK(left.empty());
}

TEST_CASE("uprobe variants count target calls", "[runtime][uprobes]") {
  BB_REQUIRE_ROOT();
  test::Families fams;
  REQUIRE_FALSE(fams.diags.has_errors());
  const FamilyManifest &f = fams.get("uprobes");
  FeatureProber prober;
  RunOptions opts;
  opts.prober = &prober;
  for (const auto &prog : f.programs) {
    // The uprobe.multi, nop5 and USDT programs: test_runtime_trigger_kinds.cpp, with shorter points.
    const std::string &n = prog.name;
    if (n.find("multi") != std::string::npos || n.find("nop5") != std::string::npos || n.rfind("usdt", 0) == 0)
      continue;
    DYNAMIC_SECTION("program " << prog.name) {
      PlanPoint p = test::make_point(f, prog.name, 1'000'000'000, 1'000'000'000);
      std::string err;
      auto obj = test::compile_point(p, fams, err);
      INFO(err);
      REQUIRE(!obj.empty());
      StopSource stop;
      PointResult r = run_point(p, f, obj, opts, stop);
      INFO(prog.name << ": " << to_string(r.status) << " " << r.reason);
      REQUIRE(r.status == PointResult::Status::Ok);
      CHECK(r.warmup.size() == 1);
      REQUIRE(r.samples.size() == 1);
      CHECK(r.samples[0].deltas.at("hits") > 0);
    }
  }
}

TEST_CASE("probe reports this kernel's features with reasons", "[runtime][probe]") {
  BB_REQUIRE_ROOT();
  FeatureProber prober;
  auto rows = prober.probe_all();
  auto find = [&](const std::string &kind, const std::string &name) {
    for (const auto &r : rows)
      if (r.kind == kind && r.name == name) return r;
    FAIL("no row " << kind << ":" << name);
    return FeatureRow{};
  };
  CHECK(find("attach", "raw_tp").available);
  CHECK(find("attach", "tracepoint").available);
  CHECK(find("attach", "uprobe").available);
  CHECK(find("helper", "bpf_loop").available);
  CHECK(find("prog_type", "raw_tracepoint").available);
  for (const auto &r : rows) {
    INFO(r.kind << ":" << r.name);
    CHECK(r.available == r.reason.empty());
  }
  CHECK_FALSE(prober.check("helper:bpf_no_such_helper").available);
  CHECK_FALSE(prober.check("bogus").available);
  auto j = probe_to_json(rows);
  CHECK(j.size() == rows.size());
  CHECK(render_probe_text(rows).find("attach:\n") != std::string::npos);
}

TEST_CASE("a tracefs that is there but cannot be read is said so, and nothing is mounted over it",
          "[runtime][lifecycle][tracefs]") {
  // events/ a symlink loop: stat fails with ELOOP, not ENOENT. Before, any stat failure
  // meant "not mounted" and tracefs was mounted over the directory.
  bpfbench::test::TempDir dir;
  std::filesystem::create_symlink(dir.path / "events", dir.path / "events");
  Result<> r = ensure_tracefs(dir.path.string());
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "tracefs at " + dir.path.string() + " cannot be read: " + (dir.path / "events").string() +
                                 ": Too many levels of symbolic links (ELOOP)");
  struct stat st {};
  CHECK(lstat((dir.path / "events").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));  // still the symlink: no tracefs mounted on the directory
}
