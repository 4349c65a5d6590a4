// Maps filled at setup by a program (the setup action run_program) and the
// families that rely on it: bloom_filter, hashmap_lookup, lpm_trie. Short real points
// (no warmup, two 500 ms intervals); they need root and BPF.
#include <catch2/catch.hpp>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <string>

#include "runtime/bpf_object.hpp"

#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "point_runner.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

// Fixture and shipped families; points of two 500 ms intervals.
struct MapFillRunner : test::PointRunner {
  MapFillRunner() : PointRunner({test::fixtures_dir()}, 500'000'000) {}
};

const SelfCheck *find_check(const PointResult &r, const std::string &name) {
  for (const auto &c : r.self_checks)
    if (c.name == name) return &c;
  return nullptr;
}

// The run_program check passed with `n` read back.
void require_filled(const PointResult &r, double n) {
  const SelfCheck *c = find_check(r, "run_program");
  REQUIRE(c);
  CHECK(c->ok);
  CHECK(c->expected == n);
  CHECK(c->observed == n);
}

}  // namespace

TEST_CASE("run_program runs once at setup and checks its return value", "[runtime][setup][run_program]") {
  BB_REQUIRE_ROOT();
  MapFillRunner t;
  PlanPoint p = t.point("setup_run", "count");
  PointResult r = t.run(p);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Ok);
  require_filled(r, 5);
  CHECK(test::sampled_total(r, "hits") > 0);
  CHECK(test::sampled_total(r, "bad") == 0);  // it ran before attach

  test::set_param(p, "ret", test::num(4));
  r = t.run(p);
  CHECK(r.status == PointResult::Status::Failed);
  CHECK(r.reason == "setup: run_program 'setup_prog' returned 4, expected 5");
  const SelfCheck *c = find_check(r, "run_program");
  REQUIRE(c);
  CHECK_FALSE(c->ok);
  CHECK(c->observed == 4);
  CHECK(c->detail == "program 'setup_prog' return value: returned 4, expected 5");

  test::set_param(p, "ret", test::num(-7));
  r = t.run(p);
  CHECK(r.reason == "setup: run_program 'setup_prog' returned -7 (E2BIG), expected 5");
}

TEST_CASE("bloom_filter: every value found, false-positive rate in [0, 1]", "[runtime][families][bloom]") {
  BB_REQUIRE_ROOT();
  MapFillRunner t;
  PlanPoint p = t.point("bloom_filter", "lookup");
  PointResult r = t.run(p);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Ok);
  require_filled(r, 1000);
  CHECK(test::sampled_total(r, "hits") > 0);
  REQUIRE(find_check(r, "every_value_found"));
  CHECK(find_check(r, "every_value_found")->ok);

  // 2-byte values: 10000 of the 65536 are in the set, so lookups both hit and miss.
  p = t.point("bloom_filter", "hashmap-with-bloom");
  test::set_param(p, "value_size", test::num(2));
  test::set_param(p, "nr_entries", test::num(10000));
  r = t.run(p);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Ok);
  require_filled(r, 10000);
  const uint64_t hits = test::sampled_total(r, "hits"), drops = test::sampled_total(r, "drops"),
                 fh = test::sampled_total(r, "false_hits"), neg = test::sampled_total(r, "negatives");
  CHECK(hits > 0);
  CHECK(drops > 0);
  CHECK(fh <= neg);
  // Every hash map miss was a false hit: exact over the whole run (the self-check), not over
  // the measured intervals, whose boundaries read the two counters a few runs apart.
  REQUIRE(find_check(r, "false_hits_are_drops"));
  CHECK(find_check(r, "false_hits_are_drops")->ok);
  CHECK(fh + drops / 10 >= drops);
  CHECK(drops + drops / 10 >= fh);
  REQUIRE(neg > 0);
  const double rate = double(fh) / double(neg);
  CHECK(rate >= 0.0);
  CHECK(rate <= 1.0);
  const MetricSummary *m = r.summary.find("false_positive_rate");
  REQUIRE(m);
  CHECK(m->mean >= 0.0);
  CHECK(m->mean <= 1.0);
  CHECK(find_check(r, "every_lookup_counted")->ok);
}

TEST_CASE("hashmap_lookup: struct keys filled in BPF, every lookup hits", "[runtime][families][hashmap_lookup]") {
  BB_REQUIRE_ROOT();
  MapFillRunner t;
  PlanPoint p = t.point("hashmap_lookup", "lookup");
  test::set_param(p, "key_size", test::num(16));
  test::set_param(p, "nr_loops", test::num(100000));
  PointResult r = t.run(p);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Ok);
  require_filled(r, 500);
  CHECK(test::sampled_total(r, "hits") > 0);
  CHECK(find_check(r, "every_lookup_hit")->ok);
  const MetricSummary *lat = r.summary.find("latency");
  REQUIRE(lat);
  CHECK(lat->mean > 0);
  CHECK_FALSE(r.per_cpu.empty());
}

TEST_CASE("lpm_trie: lookup on a filled trie, insert and delete reset it", "[runtime][families][lpm]") {
  BB_REQUIRE_ROOT();
  MapFillRunner t;
  for (const char *prog : {"lookup", "insert", "delete"}) {
    INFO(prog);
    PlanPoint p = t.point("lpm_trie", prog);
    test::set_param(p, "nr_entries", test::num(1000));
    PointResult r = t.run(p);
    INFO(r.reason);
    REQUIRE(r.status == PointResult::Status::Ok);
    if (std::string(prog) != "insert") require_filled(r, 1000);
    // Insert and delete pass nr_entries - 1 many times in a second: their resets worked.
    CHECK(test::sampled_total(r, "hits") > 1000);
    CHECK(find_check(r, "every_op_succeeded")->ok);
  }
}

TEST_CASE("bloom_filter nr_hash_funcs: one object for every count, the loaded filter's map_extra is the point's",
          "[runtime][families][bloom]") {
  BB_REQUIRE_ROOT();
  MapFillRunner t;
  const FamilyManifest &f = t.fams.get("bloom_filter");
  const ParamSpec *spec = f.param("nr_hash_funcs");
  REQUIRE(spec);
  CHECK(spec->dest == ParamDest::MapExtra);
  CHECK(spec->map == "bloom_map");
  PlanPoint two = t.point("bloom_filter", "lookup", {{"nr_hash_funcs", 2}});
  PlanPoint seven = t.point("bloom_filter", "lookup", {{"nr_hash_funcs", 7}});
  std::string err;
  const std::vector<uint8_t> elf = test::compile_point(two, t.fams, err);
  INFO(err);
  REQUIRE_FALSE(elf.empty());
  CHECK(test::compile_point(seven, t.fams, err) == elf);  // the count is not in the C
  for (const PlanPoint *p : {&two, &seven}) {
    BpfObject obj;
    REQUIRE(obj.open(elf, "bb_bloom_filter"));
    auto configured = configure_object(obj, *p, f, {f.program("lookup")->function});
    INFO((configured ? "" : configured.error().message));
    REQUIRE(configured);
    auto loaded = obj.load();
    INFO((loaded ? "" : loaded.error().message));
    REQUIRE(loaded);
    bpf_map_info info{};
    uint32_t len = sizeof(info);
    REQUIRE(bpf_obj_get_info_by_fd(bpf_map__fd(obj.map("bloom_map")), &info, &len) == 0);
    CHECK(info.type == BPF_MAP_TYPE_BLOOM_FILTER);
    CHECK(info.map_extra == static_cast<uint64_t>(p->param("nr_hash_funcs")->i));
  }
  // And a whole point with a count other than the default runs and finds every value.
  PointResult r = t.run(seven);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Ok);
  require_filled(r, 1000);
  REQUIRE(find_check(r, "every_value_found"));
  CHECK(find_check(r, "every_value_found")->ok);
}

TEST_CASE("bloom_filter count_per_lookup: the kernel bench's per-lookup counting is loaded only when asked, counts agree",
          "[runtime][families][bloom]") {
  BB_REQUIRE_ROOT();
  MapFillRunner t;
  const FamilyManifest &f = t.fams.get("bloom_filter");
  for (const char *prog : {"hashmap-without-bloom", "hashmap-with-bloom"}) {
    INFO(prog);
    const std::string fn = f.program(prog)->function;
    PlanPoint off = t.point("bloom_filter", prog, {{"count_per_lookup", 0}});
    PlanPoint on = t.point("bloom_filter", prog, {{"count_per_lookup", 1}});
    std::string err;
    const std::vector<uint8_t> elf = test::compile_point(off, t.fams, err);
    INFO(err);
    REQUIRE_FALSE(elf.empty());
    CHECK(test::compile_point(on, t.fams, err) == elf);  // a rodata param: one object
    // The flag picks one of two loops and the verifier drops the other: the kernel bench's,
    // with an increment per lookup, is the longer one.
    uint32_t xlated[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      BpfObject obj;
      REQUIRE(obj.open(elf, "bb_bloom_filter"));
      REQUIRE(configure_object(obj, i ? on : off, f, {fn}));
      REQUIRE(obj.load());
      bpf_prog_info info{};
      uint32_t len = sizeof(info);
      REQUIRE(bpf_obj_get_info_by_fd(obj.program_fd(fn), &info, &len) == 0);
      xlated[i] = info.xlated_prog_len;
    }
    CHECK(xlated[1] > xlated[0]);
    // With it on, a whole point runs and still counts each lookup once, a hit or a drop.
    PointResult r = t.run(on);
    INFO(r.reason);
    REQUIRE(r.status == PointResult::Status::Ok);
    REQUIRE(find_check(r, "every_lookup_counted"));
    CHECK(find_check(r, "every_lookup_counted")->ok);
    // Its per-lookup slots are bpfbench's counts too: a false hit is counted apart from the
    // drop it also is, and both reach the check.
    if (std::string(prog) == "hashmap-with-bloom") {
      REQUIRE(find_check(r, "false_hits_are_drops"));
      CHECK(find_check(r, "false_hits_are_drops")->ok);
    }
  }
}
