// Interleaved ab statistics (results/interleaved.hpp): the CI over loads, the built-in
// control's floor, the stop rule, and the interval's coverage on synthetic slice streams
// with a known ratio, per-load offsets and a machine whose speed wanders.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "results/ab_report.hpp"
#include "results/interleaved.hpp"
#include "results/stat_math.hpp"
#include "runtime/ab/dispatcher.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

using Jit = std::vector<std::pair<std::optional<uint32_t>, std::optional<uint32_t>>>;

// `per_unit` pairs for each unit, every pair of unit u reading B/A = ratios[u] (A at 100).
std::vector<AbSlicePair> constant_units(const std::vector<double> &ratios, size_t per_unit) {
  std::vector<AbSlicePair> out;
  for (size_t k = 0; k < per_unit; ++k)
    for (size_t u = 0; u < ratios.size(); ++u) out.push_back({uint32_t(u), 100, 100 * ratios[u], 100, 100 * ratios[u]});
  return out;
}

// One synthetic point: `units` loads a side; each load runs at its own fixed offset
// (sd `load_sd`, in logs: JIT placement), the machine's speed wanders as an AR(1) process
// over slices (shared by the two slices of a pair: both see the moment), each slice has
// white noise `slice_sd`; B is `ratio` times A.
std::vector<AbSlicePair> synthetic(std::mt19937 &rng, double ratio, size_t units, size_t pairs_per_unit, double load_sd,
                                   double slice_sd) {
  std::normal_distribution<double> n01(0, 1);
  std::vector<double> a_off(units), b_off(units);
  for (size_t u = 0; u < units; ++u) {
    a_off[u] = load_sd * n01(rng);
    b_off[u] = load_sd * n01(rng);
  }
  std::vector<AbSlicePair> out;
  double machine = 0;
  for (size_t k = 0; k < pairs_per_unit; ++k)
    for (size_t u = 0; u < units; ++u) {
      machine = 0.95 * machine + 0.05 * n01(rng);  // slow wander, ~16 % sd over a run
      double a = std::exp(machine + a_off[u] + slice_sd * n01(rng));
      double b = ratio * std::exp(machine + b_off[u] + slice_sd * n01(rng));
      out.push_back({uint32_t(u), a, b, a, b});
    }
  return out;
}

}  // namespace

TEST_CASE("ab interleaved: the CI is over units, each the mean log ratio of its pairs", "[ab][interleaved]") {
  // Four units at 0.97, 0.98, 0.96, 0.97: mean log = ln of their geometric mean.
  std::vector<double> r = {0.97, 0.98, 0.96, 0.97};
  InterleavedStats s = interleaved_stats(constant_units(r, 5), Jit{{8, 40}, {16, std::nullopt}});
  REQUIRE(s.ratio.ok);
  CHECK(s.ratio.n == 4);       // units, not the 20 pairs
  CHECK(s.ratio.pairs == 20);  // slice pairs
  CHECK_FALSE(s.time_blocks);
  std::vector<double> logs;
  for (double x : r) logs.push_back(std::log(x));
  double mean = (logs[0] + logs[1] + logs[2] + logs[3]) / 4, ss = 0;
  for (double l : logs) ss += (l - mean) * (l - mean);
  double half = student_t_quantile(0.995, 3) * std::sqrt(ss / 3) / 2;  // 99 %: the verdict's
  CHECK(s.ratio.ratio == Approx(std::exp(mean)).epsilon(1e-12));
  CHECK(s.ratio.ci_low == Approx(std::exp(mean - half)).epsilon(1e-12));
  CHECK(s.ratio.ci_high == Approx(std::exp(mean + half)).epsilon(1e-12));
  REQUIRE(s.units.size() == 4);
  CHECK(std::exp(s.units[1].mean_log) == Approx(0.98));
  CHECK(s.units[0].a_jit64 == 8u);
  CHECK(s.units[0].b_jit64 == 40u);
  CHECK_FALSE(s.units[1].b_jit64);
  CHECK_FALSE(s.units[2].a_jit64);  // no residue given for it
  // The built-in control: A's units 0 and 1 against each other (equal: 0), B's (ln .98/.97),
  // units 2 and 3 likewise: four comparisons, and the floor is their |mean| (how far the same
  // code read from itself), not |mean| + half-width.
  CHECK(s.control_n == 4);
  PairedRatio c = log_ratio_ci({0, std::log(0.98 / 0.97), 0, std::log(0.97 / 0.96)});
  CHECK(s.control_floor_pct == Approx(std::expm1(std::fabs(c.mean_log)) * 100).epsilon(1e-9));
  CHECK(s.control_floor_pct < std::expm1(std::fabs(c.mean_log) + c.half_log) * 100);
  CHECK(interleaved_floor_pct(s, 0) == s.control_floor_pct);
  CHECK(interleaved_floor_pct(s, 1000) == 1000);
}

TEST_CASE("ab interleaved: one load a side is judged over time blocks, with no control", "[ab][interleaved]") {
  InterleavedStats s = interleaved_stats(constant_units({0.95}, 16), {});
  REQUIRE(s.ratio.ok);
  CHECK(s.time_blocks);
  CHECK(s.ratio.n == 8);  // eight blocks of two pairs
  CHECK(s.ratio.ratio == Approx(0.95));
  CHECK(std::isnan(s.control_floor_pct));
  CHECK(interleaved_floor_pct(s, 0.5) == 0.5);
  // Too few pairs for two blocks: no CI, and it says so.
  InterleavedStats few = interleaved_stats(constant_units({0.95}, 3), {});
  CHECK_FALSE(few.ratio.ok);
  CHECK(few.ratio.why == "too few slices for a CI");
}

TEST_CASE("ab interleaved: a slice with no events gives no ratio, never a made-up one", "[ab][interleaved]") {
  std::vector<AbSlicePair> p = constant_units({1, 1, 1, 1}, 2);
  p[5].b = 0;
  InterleavedStats s = interleaved_stats(p, {});
  CHECK_FALSE(s.ratio.ok);
  CHECK(s.ratio.why.find("slice pair 6") == 0);
  CHECK(s.ratio.why.find("no B events") != std::string::npos);
  CHECK(interleaved_stop_state(s, true, 0, InterleavedRule{}, 5) == AbStop::NoRatio);
}

TEST_CASE("ab interleaved: the stop rule", "[ab][interleaved]") {
  InterleavedRule rule;  // 1 s, 4 units, 0.5 %, 12 s
  InterleavedStats slower = interleaved_stats(constant_units({0.50, 0.51, 0.50, 0.49}, 4), {});
  CHECK(interleaved_stop_state(slower, true, 0, rule, 0.5) == AbStop::Continue);  // before min time
  CHECK(interleaved_stop_state(slower, true, 0, rule, 1.5) == AbStop::Decided);
  InterleavedStats three = interleaved_stats(constant_units({0.50, 0.51, 0.50}, 4), {});
  CHECK(interleaved_stop_state(three, true, 0, rule, 1.5) == AbStop::Continue);  // 3 units
  // The same point within a floor of 150 %: no verdict, and the CI is not yet precise.
  CHECK(interleaved_stop_state(slower, true, 150, rule, 1.5) == AbStop::Continue);
  CHECK(interleaved_stop_state(slower, true, 150, rule, 12) == AbStop::MaxTime);
  // A/A, tight: the precision is reached without a verdict, once there are 8 units (with
  // the first block's 4, a floor of 4 comparisons is too uncertain to say "no change").
  InterleavedStats same4 = interleaved_stats(constant_units({1.001, 0.999, 1.0, 1.0005}, 4), {});
  CHECK(interleaved_stop_state(same4, true, 0.5, rule, 2) == AbStop::Continue);
  InterleavedStats same =
      interleaved_stats(constant_units({1.001, 0.999, 1.0, 1.0005, 1.0, 0.9995, 1.0, 1.001}, 4), {});
  CHECK(interleaved_stop_state(same, true, 0.5, rule, 2) == AbStop::Reached);
  // Precise, the CI across the floor's edge: no verdict, and no change beyond floor +
  // precision, which is the answer (the whole CI need not fit inside the floor).
  InterleavedStats edge =
      interleaved_stats(constant_units({0.975, 0.978, 0.976, 0.977, 0.975, 0.978, 0.976, 0.977}, 4), {});
  REQUIRE(edge.ratio.half_width_pct < 0.5);
  REQUIRE(edge.ratio.ci_low < 1 / 1.024);
  REQUIRE(edge.ratio.ci_high > 1 / 1.024);
  CHECK(interleaved_stop_state(edge, true, 2.4, rule, 2) == AbStop::Reached);
  // Not yet precise (half-width over 0.5 %): it goes on, to the time limit.
  InterleavedStats wide =
      interleaved_stats(constant_units({0.965, 0.988, 0.966, 0.987, 0.965, 0.988, 0.966, 0.987}, 4), {});
  REQUIRE(wide.ratio.half_width_pct > 0.5);
  CHECK(interleaved_stop_state(wide, true, 2.4, rule, 2) == AbStop::Continue);
  CHECK(interleaved_stop_state(wide, true, 2.4, rule, 12) == AbStop::MaxTime);
}

TEST_CASE("ab interleaved: an interleaved point's report shows the units, the control and the facts",
          "[ab][interleaved]") {
  AbPointReport p;
  p.label = "r1";
  p.metric = "hits";
  p.method = AbMethod::Interleaved;
  AbInterleaved x;
  x.dispatch = "a dispatcher on raw_tp/bpf_trigger_tp tail-calls the active load (one program call per event)";
  x.copies = 2;
  x.blocks = 1;
  x.slice_ms = 20;
  x.stats = interleaved_stats(constant_units({0.5, 0.5, 0.5, 0.5}, 3), Jit{{8, 40}});
  ProgFacts fa;
  fa.verified_insns = 1013;
  fa.jited_len = 114;
  x.a_facts = fa;
  p.stats = x.stats.ratio;
  p.interleaved = x;
  p.judge();
  CHECK(p.verdict == Verdict::Slower);
  AbReport r;
  r.points.push_back(p);
  std::string text = ab_to_text(r);
  CHECK(text.find("ab: interleaved points:") != std::string::npos);
  CHECK(text.find("the CI is over loads, never slices, and at 99%") != std::string::npos);
  CHECK(text.find(" 99% CI ") != std::string::npos);  // the column: no whole-turn point here
  CHECK(text.find("95% CI") == std::string::npos);
  CHECK(text.find("--turn-value") == std::string::npos);  // no point ran in turns
  CHECK(text.find("interleaved: 2 loads a side × 1 block (4 units), 20 ms slices, 12 slice pairs; a dispatcher on "
                  "raw_tp/bpf_trigger_tp") != std::string::npos);
  CHECK(text.find("units (JIT residue mod 64 A/B, B/A): 1:8/40 0.5000  2:?/? 0.5000") != std::string::npos);
  CHECK(text.find("A 1013 insns verified, JIT 114 B; B n/a") != std::string::npos);
  nlohmann::json j = ab_to_json(r)["points"][0];
  CHECK(j["method"] == "interleaved");
  CHECK(j["n_pairs"] == 12);
  CHECK(j["n_units"] == 4);
  CHECK(j["interleaved"]["ci_unit"] == "load");
  CHECK(j["interleaved"]["confidence"] == 0.99);
  CHECK(j["interleaved"]["units"].size() == 4);
  CHECK(j["interleaved"]["units"][0]["a_jit_offset64"] == 8);
  CHECK(j["interleaved"]["a_facts"]["verified_insns"] == 1013);
  CHECK(j["interleaved"]["b_facts"].is_null());
  // A point in whole turns says why.
  AbPointReport t;
  t.label = "rb";
  t.method_note = "A: it has a consumer (ringbuf) of its own buffer";
  r.points = {t};
  CHECK(ab_to_text(r).find("  whole turns: A: it has a consumer (ringbuf) of its own buffer\n") != std::string::npos);
  CHECK(ab_to_json(r)["points"][0]["method"] == "turns");
}

// The interval must hold the true ratio as often as it says (95 % and the verdict's 99 %) on
// streams like this VM's: per-load offsets of 0.4 % (what two loads of one program differ by
// here), a machine whose speed wanders by far more than the change, and 1 % noise per slice.
// 2,000 synthetic points of 8 units, 24 pairs each.
TEST_CASE("ab interleaved: the CI over loads covers the true ratio as often as its confidence says",
          "[ab][interleaved]") {
  std::mt19937 rng(20261207);
  const double truth = 0.973;
  size_t covered = 0, covered99 = 0, aa_called = 0;
  const size_t trials = 2000;
  for (size_t t = 0; t < trials; ++t) {
    std::vector<AbSlicePair> pairs = synthetic(rng, truth, 8, 24, 0.004, 0.01);
    InterleavedStats s = interleaved_stats(pairs, {}, 0.95);
    REQUIRE(s.ratio.ok);
    covered += s.ratio.ci_low <= truth && truth <= s.ratio.ci_high;
    InterleavedStats s99 = interleaved_stats(pairs, {});
    covered99 += s99.ratio.ci_low <= truth && truth <= s99.ratio.ci_high;
    InterleavedStats aa = interleaved_stats(synthetic(rng, 1.0, 8, 24, 0.004, 0.01), {});
    Verdict v = ab_verdict(aa.ratio, true, interleaved_floor_pct(aa, 0));
    aa_called += v == Verdict::Faster || v == Verdict::Slower;
  }
  const double coverage = double(covered) / double(trials);
  CHECK(coverage > 0.93);
  CHECK(coverage < 0.97);
  CHECK(double(covered99) / double(trials) > 0.98);
  // At the verdict's 99 % and with the built-in control's floor, one look at A against A
  // hardly ever calls it changed.
  CHECK(double(aa_called) / double(trials) < 0.01);
  // Judged by slice instead of by load, the same streams would be covered far less often:
  // the per-load offsets are what the slice interval cannot see.
  std::mt19937 rng2(7);
  size_t slice_covered = 0;
  for (size_t t = 0; t < 500; ++t) {
    std::vector<AbSlicePair> p = synthetic(rng2, truth, 8, 24, 0.004, 0.01);
    std::vector<double> logs;
    for (const auto &x : p) logs.push_back(std::log(x.b / x.a));
    PairedRatio r = log_ratio_ci(logs);
    slice_covered += r.ci_low <= truth && truth <= r.ci_high;
  }
  CHECK(double(slice_covered) / 500 < 0.8);
}

TEST_CASE("ab interleaved: the dispatcher's C names the hook and tail-calls slot 0", "[ab][interleaved]") {
  std::string c = dispatcher_source("?raw_tp/bpf_trigger_tp");
  CHECK(c.find("SEC(\"?raw_tp/bpf_trigger_tp\")") != std::string::npos);
  CHECK(c.find("bpf_tail_call(ctx, &bb_ab_slot, 0);") != std::string::npos);
  CHECK(c.find("BPF_MAP_TYPE_PROG_ARRAY") != std::string::npos);
  CHECK(plain_section("uprobe.multi/x:y+1-z"));
  CHECK_FALSE(plain_section("tp/\"); evil(\""));
  CHECK_FALSE(plain_section("tp/a\\nb"));
  CHECK_FALSE(plain_section(""));
}

namespace {

// One point as the runner judges it: blocks of `copies` fresh loads a side (each load its own
// offset, sd `load_sd`), rounds of two pairs a unit, the stop rule after every round with
// 0.64 s a round (8 units × 4 slices of 20 ms), two rounds a block, up to the rule's 12 s.
// Returns whether a verdict (faster or slower) was reached.
bool judged_point(std::mt19937 &rng, double ratio, size_t copies, double load_sd, double slice_sd) {
  std::normal_distribution<double> n01(0, 1);
  InterleavedRule rule;
  rule.precision_pct = 1;
  std::vector<AbSlicePair> pairs;
  std::vector<double> a_off, b_off;
  double machine = 0, t = 0;
  for (size_t round = 0; t < rule.max_time_s; ++round) {
    if (round % 2 == 0)
      for (size_t k = 0; k < copies; ++k) {
        a_off.push_back(load_sd * n01(rng));
        b_off.push_back(load_sd * n01(rng));
      }
    const size_t first = a_off.size() - copies;
    for (size_t k = 0; k < copies; ++k)
      for (int pair = 0; pair < 2; ++pair) {
        machine = 0.95 * machine + 0.05 * n01(rng);
        const double a = std::exp(machine + a_off[first + k] + slice_sd * n01(rng));
        const double b = ratio * std::exp(machine + b_off[first + k] + slice_sd * n01(rng));
        pairs.push_back({uint32_t(first + k), a, b, a, b});
      }
    t += 0.64;
    InterleavedStats s = interleaved_stats(pairs, {}, rule.confidence);
    AbStop stop = interleaved_stop_state(s, true, 0, rule, t);
    if (stop == AbStop::Decided) return true;
    if (stop != AbStop::Continue) return false;
  }
  return false;
}

}  // namespace

// The rule looks at a point after every round, up to ~19 times: A against A must still be
// called changed in at most ~1 of 20 points, and a 2.6 % change (the docs' yardstick) found
// in nearly all, on streams like this VM's slow spells (loads 1.5 % apart, 2.5 % per slice).
// (With these seeds: A/A 7 of 400 called, the change found in 395 of 400.)
TEST_CASE("ab interleaved: judged after every round, A/A stays at most ~5 % called and 2.6 % is found",
          "[ab][interleaved]") {
  std::mt19937 rng(42);
  const size_t trials = 400;
  size_t aa_called = 0, found = 0;
  for (size_t i = 0; i < trials; ++i) {
    aa_called += judged_point(rng, 1.0, 8, 0.015, 0.025);
    found += judged_point(rng, 0.974, 8, 0.015, 0.025);
  }
  CHECK(double(aa_called) / double(trials) <= 0.06);
  CHECK(double(found) / double(trials) >= 0.93);
}
