// `bpfbench ab` statistics (results/paired.hpp, results/ab_report.hpp) against hand-computed
// values: ABBA order, paired ratio and CI, stop rule, verdicts, control floor, matching.
#include <catch2/catch.hpp>

#include <cmath>

#include "compiler/bdsl/lower.hpp"
#include "compiler/pipeline.hpp"
#include "results/ab_report.hpp"
#include "results/paired.hpp"

using namespace bpfbench;
using Catch::Detail::Approx;

namespace {

std::vector<double> ones(size_t n) { return std::vector<double>(n, 1.0); }

AbReport two_files() {
  AbReport r;
  r.a = "a.bdsl";
  r.b = "b.bdsl";
  return r;
}

}  // namespace

TEST_CASE("ab: turns run in ABBA order, each pair one A and one B", "[ab]") {
  std::string s;
  for (AbSide x : abba_order(10)) s += to_string(x);
  CHECK(s == "ABBAABBAAB");
  AbPointReport p;
  // Values by turn: A 100, B 110, B 105, A 100 -> pairs (100, 110) and (100, 105).
  p.add_turn(AbSide::A, 100);
  CHECK(p.a.empty());  // half a pair is no pair
  p.add_turn(AbSide::B, 110);
  p.add_turn(AbSide::B, 105);
  p.add_turn(AbSide::A, 100);
  REQUIRE(p.a.size() == 2);
  CHECK(p.a == std::vector<double>{100, 100});
  CHECK(p.b == std::vector<double>{110, 105});
}

TEST_CASE("ab: paired ratio and its CI match a hand computation", "[ab]") {
  // Ratios 1.10, 1.05, 0.99. ln: 0.0953102, 0.0487902, -0.0100503; mean 0.0446833.
  // Deviations 0.0506268, 0.0041068, -0.0547337; squares sum 0.0055757; /2 -> sd 0.0528002.
  // t(0.975, 2) = 4.302653; half = 4.302653 * 0.0528002 / sqrt(3) = 0.1311629.
  // ratio = e^0.0446833 = 1.045697; CI e^(0.0446833 -/+ 0.1311629) = [0.917154, 1.192255];
  // half-width (e^0.1311629 - 1) = 14.0154 %.
  PairedRatio r = paired_ratio({100, 200, 100}, {110, 210, 99});
  REQUIRE(r.ok);
  CHECK(r.n == 3);
  CHECK(r.mean_log == Approx(0.0446833).epsilon(1e-5));
  CHECK(r.sd_log == Approx(0.0528002).epsilon(1e-5));
  CHECK(r.ratio == Approx(1.045697).epsilon(1e-6));
  CHECK(r.ci_low == Approx(0.917154).epsilon(1e-6));
  CHECK(r.ci_high == Approx(1.192255).epsilon(1e-6));
  CHECK(r.half_width_pct == Approx(14.0154).epsilon(1e-5));
  CHECK(r.max_abs_log == Approx(0.0953102).epsilon(1e-6));
  // Ratios 1.02, 1.03, 1.01, 1.02: mean ln 0.0197786, sd 0.0080052, t(0.975, 3) = 3.182446,
  // half = 3.182446 * 0.0080052 / 2 = 0.0127380: ratio 1.019975, CI [1.007065, 1.033051].
  PairedRatio q = paired_ratio({1, 1, 1, 1}, {1.02, 1.03, 1.01, 1.02});
  CHECK(q.ratio == Approx(1.019975).epsilon(1e-6));
  CHECK(q.ci_low == Approx(1.007065).epsilon(1e-6));
  CHECK(q.ci_high == Approx(1.033051).epsilon(1e-6));
  CHECK(q.half_width_pct == Approx(1.281949).epsilon(1e-5));
}

TEST_CASE("ab: no ratio from zero, negative or missing values", "[ab]") {
  CHECK_FALSE(paired_ratio({}, {}).ok);
  CHECK_FALSE(paired_ratio({1, 2}, {1}).ok);
  PairedRatio z = paired_ratio({1, 0}, {1, 1});
  CHECK_FALSE(z.ok);
  CHECK(z.why.find("pair 2") != std::string::npos);
  CHECK_FALSE(paired_ratio({1, NAN}, {1, 1}).ok);
  PairedRatio one = paired_ratio({1}, {2});  // one pair: a ratio, no interval
  CHECK(one.ok);
  CHECK(std::isinf(one.half_log));
  // No further pair can make a ratio of such a stream: the stop rule ends it at once (it
  // ran without end before: bloom's hashmap-without-bloom, whose hits are 0).
  CHECK(ab_stop_state(z, AbStopRule{}, 0) == AbStop::NoRatio);
  CHECK(ab_stop_state(paired_ratio({}, {}), AbStopRule{}, 0) == AbStop::Continue);
  AbPointReport p;
  p.metric = "hits";
  for (AbSide s : abba_order(2)) p.add_turn(s, 0);
  CHECK(p.note.rfind("no ratio of hits: pair 1 has a value that is not a positive number", 0) == 0);
  p.judge();
  CHECK(p.verdict == Verdict::NotComparable);
}

TEST_CASE("ab: the stop rule on synthetic ratio streams", "[ab]") {
  AbStopRule rule;  // 1 %, 3..20 pairs
  // A steady stream (all ratios 1.02): the CI is 0 wide, but not before 3 pairs.
  std::vector<double> a, b;
  std::vector<AbStop> states;
  for (int i = 0; i < 4; ++i) {
    a.push_back(1), b.push_back(1.02);
    states.push_back(ab_stop_state(paired_ratio(a, b), rule, 0));
  }
  CHECK(states == std::vector<AbStop>{AbStop::Continue, AbStop::Continue, AbStop::Reached, AbStop::Reached});
  // Ratios alternating 0.9 / 1.1: the CI stays wider than 1 %: max pairs ends it at 20.
  a.clear(), b.clear();
  size_t stopped_at = 0;
  for (size_t i = 1; i <= 50 && !stopped_at; ++i) {
    a.push_back(1), b.push_back(i % 2 ? 0.9 : 1.1);
    if (AbStop s = ab_stop_state(paired_ratio(a, b), rule, 0); s != AbStop::Continue) {
      CHECK(s == AbStop::MaxPairs);
      stopped_at = i;
    }
  }
  CHECK(stopped_at == 20);
  // The time limit ends it too, but never before the minimum of 3 pairs.
  rule.max_time_s = 10;
  CHECK(ab_stop_state(paired_ratio({1, 1}, {0.9, 1.1}), rule, 11) == AbStop::Continue);
  CHECK(ab_stop_state(paired_ratio({1, 1, 1}, {0.9, 1.1, 0.9}), rule, 11) == AbStop::MaxTime);
  // The q stream above (half-width 1.28 %) meets a 1.5 % target, not a 1 % one.
  PairedRatio q = paired_ratio({1, 1, 1, 1}, {1.02, 1.03, 1.01, 1.02});
  CHECK(ab_stop_state(q, AbStopRule{1.5, 3, 20, 0}, 0) == AbStop::Reached);
  CHECK(ab_stop_state(q, AbStopRule{1.0, 3, 20, 0}, 0) == AbStop::Continue);
}

TEST_CASE("ab: verdicts follow the metric's direction, the CI and the floor", "[ab]") {
  // q: B/A 1.019975, CI [1.007065, 1.033051] excludes 1.
  PairedRatio q = paired_ratio({1, 1, 1, 1}, {1.02, 1.03, 1.01, 1.02});
  CHECK(ab_verdict(q, true, 0) == Verdict::Faster);   // throughput: higher is better
  CHECK(ab_verdict(q, false, 0) == Verdict::Slower);  // latency: B is 2 % slower
  CHECK(speed_change_pct(q, false) == Approx((1 / 1.0199755 - 1) * 100).epsilon(1e-5));
  // A verdict needs the whole CI outside the floor: a floor above the CI's near end (1.0071)
  // makes it no change, one below it does not.
  CHECK(ab_verdict(q, true, 2.5) == Verdict::NoChange);
  CHECK(ab_verdict(q, true, 1.5) == Verdict::NoChange);
  CHECK(ab_verdict(q, true, 0.5) == Verdict::Faster);
  // The 3-pair example: CI [0.917, 1.192] holds 1 -> within noise whatever the floor.
  CHECK(ab_verdict(paired_ratio({100, 200, 100}, {110, 210, 99}), true, 0) == Verdict::NoChange);
  CHECK(ab_verdict(paired_ratio({1}, {2}), true, 0) == Verdict::NotComparable);
}

TEST_CASE("ab: the control floor and --floor-from", "[ab]") {
  // A against itself with ratios 1.02, 1.03, 1.01, 1.02: floor = |1.019975 - 1| + 1.281949 % = 3.2795 %.
  PairedRatio c = paired_ratio({1, 1, 1, 1}, {1.02, 1.03, 1.01, 1.02});
  CHECK(control_floor_pct(c) == Approx(1.99755 + 1.281949).epsilon(1e-4));
  AbReport rep;
  rep.control = true;
  AbPointReport p;
  p.suite = "S";
  p.label = "x";
  for (double v : {1.02, 1.03, 1.01, 1.02}) p.add_turn(AbSide::A, 1), p.add_turn(AbSide::B, v);
  rep.points.push_back(p);
  nlohmann::json j = ab_to_json(rep);
  CHECK(j["noise_floor_pct"].get<double>() == Approx(3.2795).epsilon(1e-4));
  auto floors = floors_from_control_json(j);
  REQUIRE(floors);
  CHECK(floor_for(*floors, {"S", "x"}) == Approx(3.2795).epsilon(1e-4));
  CHECK(floor_for(*floors, {"S", "other"}) == Approx(3.2795).epsilon(1e-4));  // the overall one
  // The same 2 % change in an A/B run is within that floor, so it is not "faster".
  AbPointReport ab = p;
  ab.floor_pct = floor_for(*floors, {"S", "x"});
  ab.judge();
  CHECK(ab.verdict == Verdict::NoChange);
  ab.floor_pct = 0;
  ab.judge();
  CHECK(ab.verdict == Verdict::Faster);
  j["control"] = false;  // an ordinary A/B result is no floor
  auto ordinary = floors_from_control_json(j);
  REQUIRE_FALSE(ordinary);
  CHECK(ordinary.error().message == "not the JSON of a control run (bpfbench ab --control --format json)");
}

TEST_CASE("ab: points match by suite and label, the rest listed", "[ab]") {
  std::vector<AbPointKey> a{{"S", "p1"}, {"S", "p2"}, {"T", "p1"}, {"", "loose"}};
  std::vector<AbPointKey> b{{"T", "p1"}, {"S", "p1"}, {"S", "p3"}, {"", "loose"}};
  AbMatch m = match_by_suite_label(a, b);
  CHECK(m.pairs == std::vector<std::pair<size_t, size_t>>{{0, 1}, {2, 0}, {3, 3}});
  CHECK(m.only_a == std::vector<std::string>{"S / p2"});
  CHECK(m.only_b == std::vector<std::string>{"S / p3"});
}

TEST_CASE("ab: suite geomeans and the worst regression", "[ab]") {
  AbReport rep;
  auto point = [](const std::string &suite, double ratio, bool hib) {
    AbPointReport p;
    p.suite = suite;
    p.higher_is_better = hib;
    for (double f : {0.999, 1.0, 1.001}) p.add_turn(AbSide::A, 1), p.add_turn(AbSide::B, ratio * f);
    p.judge();
    return p;
  };
  rep.points = {point("S", 1.10, true), point("S", 0.90, true), point("T", 1.05, false)};
  auto g = rep.geomeans();
  REQUIRE(g.size() == 2);
  // S: sqrt(1.10 * 0.90 * (0.999 * 1.0 * 1.001)^(2/3)) ~ sqrt(0.99) = 0.994987.
  CHECK(g[0].ratio == Approx(0.994987).epsilon(1e-5));
  CHECK(g[1].speed_change_pct == Approx((1 / 1.05 - 1) * 100).epsilon(1e-3));
  // T's latency went up 5 %: slower by 4.76 %, the worst; S's 0.90 point is 10 % slower.
  CHECK(rep.worst_regression_pct() == Approx(10).epsilon(1e-3));
}

TEST_CASE("ab: --a/--b settings apply to the points that have them", "[ab]") {
  ParamOverride o;
  CHECK(parse_param_override("nope", "--a", o).find("NAME=VALUE") != std::string::npos);
  REQUIRE(parse_param_override(" producers = 2 ", "--a", o).empty());
  CHECK(o.name == "producers");
  CHECK(o.text == "2");
  FrontendOptions opts;
  opts.template_dirs = {TemplateDir{BPFBENCH_SOURCE_DIR "/bpf_templates", "shipped"}};
  opts.overrides.params = {o};
  opts.nproc = 4;
  Frontend fe;
  REQUIRE(run_frontend_text("t.bdsl", "bench trigger as \"t-{producers}\" < prog base; >\n", opts, fe));
  REQUIRE(fe.plan->points.size() == 1);
  CHECK(fe.plan->points[0].producers == 2);
  CHECK(fe.plan->points[0].label == "t-2");
  Frontend bad;
  opts.overrides.params = {{"--b", "prodcers", "2"}};
  CHECK_FALSE(run_frontend_text("t.bdsl", "bench trigger < prog base; >\n", opts, bad));
  REQUIRE_FALSE(bad.diags.all().empty());
  CHECK(bad.diags.all()[0].message == "--b: unknown parameter 'prodcers' (no bench of the file has it)");
  Frontend range;
  opts.overrides.params = {{"--a", "prog", "nosuch"}};
  CHECK_FALSE(run_frontend_text("t.bdsl", "bench trigger < prog base; >\n", opts, range));
  REQUIRE_FALSE(range.diags.all().empty());
  CHECK(range.diags.all()[0].message.rfind("--a prog=nosuch: ", 0) == 0);
  Frontend swept;
  opts.overrides.params = {{"--a", "prog", "base"}};
  CHECK_FALSE(run_frontend_text("t.bdsl", "bench trigger as \"{prog}\" < prog [base, tp]; >\n", opts, swept));
  REQUIRE_FALSE(swept.diags.all().empty());
  CHECK(swept.diags.all()[0].message == "--a sets 'prog', which this bench sweeps");
}

// The refusal alone: before, "unknown parameter 'cmp_str_len' ... did you mean 'cmp_str_len'?"
// followed it (the refused bench made no points, so nothing marked the name known), and
// so did every other setting of the same --a/--b.
TEST_CASE("ab: a swept --a/--b param is one error, not also an unknown parameter", "[ab]") {
  FrontendOptions opts;
  opts.template_dirs = {TemplateDir{BPFBENCH_SOURCE_DIR "/bpf_templates", "shipped"}};
  opts.overrides.params = {{"--a", "cmp_str_len", "64"}, {"--a", "producers", "2"}};
  Frontend fe;
  CHECK_FALSE(run_frontend_text(
      "t.bdsl", "bench strncmp as \"s{cmp_str_len}\" < prog helper; sweep cmp_str_len [32, 64]; >\n", opts, fe));
  REQUIRE(fe.diags.all().size() == 1);
  CHECK(fe.diags.all()[0].message == "--a sets 'cmp_str_len', which this bench sweeps");
  // A name no bench has is still unknown.
  opts.overrides.params = {{"--a", "cmp_str_len", "64"}, {"--a", "cmp_str_lne", "2"}};
  Frontend typo;
  CHECK_FALSE(run_frontend_text(
      "t.bdsl", "bench strncmp as \"s{cmp_str_len}\" < prog helper; sweep cmp_str_len [32, 64]; >\n", opts, typo));
  REQUIRE(typo.diags.all().size() == 2);
  CHECK(typo.diags.all()[1].message == "--a: unknown parameter 'cmp_str_lne' (no bench of the file has it)");
}

TEST_CASE("ab: turns keep their JIT offset, a point notes when A's and B's differ", "[ab]") {
  AbReport r = two_files();
  AbPointReport same;
  same.label = "same";
  same.add_turn(AbSide::A, 100, 8u);
  same.add_turn(AbSide::B, 101, 8u);
  same.add_turn(AbSide::B, 102, std::nullopt);  // unknown: neither side's set
  same.add_turn(AbSide::A, 100, 8u);
  CHECK(same.alignment_note().empty());
  AbPointReport moved;
  moved.label = "moved";
  moved.add_turn(AbSide::A, 100, 8u);
  moved.add_turn(AbSide::B, 150, 24u);
  moved.add_turn(AbSide::B, 150, 40u);
  moved.add_turn(AbSide::A, 100, 8u);
  CHECK(moved.alignment_note() == "JITed code offsets mod 64: A 8, B 24 40; a small loop's time can move with them");
  AbPointReport one_side;  // only A's offsets known (B a guest turn, or hidden): nothing to say
  one_side.add_turn(AbSide::A, 100, 8u);
  one_side.add_turn(AbSide::B, 100);
  CHECK(one_side.alignment_note().empty());
  r.points = {same, moved};
  std::string text = ab_to_text(r);
  CHECK(text.find("  JITed code offsets mod 64: A 8, B 24 40;") != std::string::npos);
  CHECK(text.find("A 8, B 8") == std::string::npos);
  CHECK(ab_to_markdown(r).find("moved: JITed code offsets mod 64: A 8, B 24 40;") != std::string::npos);
  nlohmann::json j = ab_to_json(r);
  CHECK(j["points"][0]["turns"][0]["jit_offset64"] == 8);
  CHECK(j["points"][0]["turns"][2]["jit_offset64"].is_null());
  CHECK_FALSE(j["points"][0].contains("alignment_note"));
  CHECK(j["points"][1]["alignment_note"].get<std::string>().rfind("JITed code offsets mod 64: A 8, B 24 40", 0) == 0);
}

// The pair ratios of a real ab run here (point r3 of a 2026-12-04 yardstick run): turns 3
// and 4 straddle a drop of the machine's speed from ~1.63 to ~1.04 M/s. Every pair counts:
// the far pair widens the interval, nothing is left out, and the verdict is what the
// interval says.
TEST_CASE("ab: every pair counts, a far one widens the CI and is never left out", "[ab]") {
  PairedRatio r = paired_ratio(ones(8), {0.971, 1.565, 0.962, 0.975, 0.969, 0.973, 0.958, 0.977});
  REQUIRE(r.ok);
  CHECK(r.n == 8);
  CHECK(r.pairs == 8);
  CHECK(r.max_abs_log == Approx(std::log(1.565)).epsilon(1e-9));
  CHECK(r.ci_high > 1);  // the straddling pair alone puts 1 inside the interval
  CHECK(ab_verdict(r, true, 0) == Verdict::NoChange);
  PairedRatio steady = paired_ratio(ones(7), {0.971, 0.962, 0.975, 0.969, 0.973, 0.958, 0.977});
  CHECK(ab_verdict(steady, true, 0) == Verdict::Slower);
}

TEST_CASE("ab: a turn's value, fast or mean, from its intervals", "[ab]") {
  MetricSummary m;
  m.values = {5, 1, 9, 3, 7, 2, 10, 4, 8, 6};  // 1..10
  m.mean = 5.5;
  // The 90th percentile, linear between order statistics: 9 + 0.1 * (10 - 9).
  CHECK(ab_turn_statistic(m, AbTurnValue::Fast) == Approx(9.1));
  CHECK(ab_turn_statistic(m, AbTurnValue::Mean) == 5.5);
  // Lower is better (ns/op): the fast end is the 10th percentile.
  m.higher_is_better = false;
  CHECK(ab_turn_statistic(m, AbTurnValue::Fast) == Approx(1.9));
  // One interval: nothing to choose from, the mean.
  m.values = {3};
  m.mean = 3;
  CHECK(ab_turn_statistic(m, AbTurnValue::Fast) == 3);
  // A report with turns says which value its turns hold.
  AbReport r = two_files();
  r.points.emplace_back();
  r.turn_value = AbTurnValue::Fast;
  CHECK(ab_to_json(r)["turn_value"] == "fast");
  CHECK(ab_to_text(r).find("(--turn-value fast)") != std::string::npos);
  r.turn_value = AbTurnValue::Mean;
  CHECK(ab_to_json(r)["turn_value"] == "mean");
  CHECK(ab_to_text(r).find("--turn-value") == std::string::npos);
}

// A point's turns valued by a statistic: turn_value() applies the point's turn_stat.
TEST_CASE("ab: turn_value applies the point's turn statistic", "[ab]") {
  MetricSummary m;
  m.name = "hits";
  m.n = 10;
  m.values = {1, 1, 1, 1, 1, 1, 1, 1, 2, 2};
  m.mean = 1.2;
  AbPointReport p;
  p.metric = "hits";
  CHECK(p.turn_value(&m, "A") == 1.2);
  p.turn_stat = AbTurnValue::Fast;
  CHECK(*p.turn_value(&m, "A") == Approx(2.0));
}
