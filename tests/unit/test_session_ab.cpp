// `ab` below the CLI, in-process: the settings that make no sense, each side's input, the
// points matched, and (root + BPF) real comparisons — ABBA turns, a control run's floor,
// a metric that is 0, two template folders, a B refused before the first turn.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "results/ab_report.hpp"
#include "session/ab_kernels.hpp"
#include "session/ab_session.hpp"
#include "session_support.hpp"
#include "verify_fixtures.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using bpfbench::test::TempDir;

namespace {

const char *kAbBench = "suite \"S\" < bench trigger as \"t\" < prog base; warmup 0s; duration 1s; > >\n";

std::string ab_read(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A side as `ab` loads it (the CLI adds only the printing of its diagnostics), its programs
// compiled when `compile`.
void load_side(const AbArgs &a, const std::string &file, const std::vector<std::string> &sets, const char *opt,
               const std::string &templates, AbVariant &v, bool compile = true) {
  Result<FileArgs> in = ab_variant_input(a, file, sets, opt, templates);
  INFO((in ? "" : in.error().message));
  REQUIRE(in);
  v.name = ab_variant_name(file, sets, opt, templates);
  const bool ok = run_frontend_for(*in, *v.fe);
  std::string diags;
  for (const auto &d : v.fe->diags.all()) diags += render(d, v.fe->sources);
  INFO(diags);
  REQUIRE(ok);
  REQUIRE_FALSE(v.fe->diags.has_errors());
  if (compile) REQUIRE(compile_programs(*v.fe, v.programs));
}

// Matches, runs and judges as `ab` does after verifying (no log folder: notes carry the error).
AbReport run_ab(const AbArgs &a, const AbVariant &va, const AbVariant &vb, std::vector<std::string> *progress = nullptr,
                const AbFloors &floors = std::nullopt) {
  AbReport rep = ab_report_head(a, va, vb);
  std::vector<AbMatchedPoint> matched = match_ab_points(va, vb, ab_match_by_position(a) || a.control, a.only, rep);
  REQUIRE_FALSE(matched.empty());
  FeatureProber prober;
  AbRunOptions o = ab_run_options(a, prober);
  if (progress) o.progress = [progress](const std::string &line) { progress->push_back(line); };
  StopSource stop;
  run_ab_points(va, vb, matched, a, floors, o, stop, rep);
  return rep;
}

// A family folder: copies of the shipped trigger family and the shared include/, with
// two more metrics, `calls` (producer operations) and `hits_per_call` (their ratio), and
// without the hits == calls self-check; `double_tp`: its tp program counts every call of
// the bpfbench process twice.
fs::path trigger_copy(const fs::path &dir, bool double_tp) {
  fs::create_directories(dir);
  for (const char *sub : {"trigger", "include"})
    fs::copy(std::string(BPFBENCH_SOURCE_DIR) + "/bpf_templates/" + sub, dir / sub, fs::copy_options::recursive);
  auto family = nlohmann::json::parse(ab_read(dir / "trigger/family.json"));
  family["metrics"].push_back({{"name", "calls"}, {"source", "producer"}, {"unit", "M/s"}, {"doc", "getpgid() calls"}});
  family["metrics"].push_back(
      {{"name", "hits_per_call"}, {"source", "ratio:hits/calls"}, {"unit", "ratio"}, {"doc", "counted runs per call"}});
  family.erase("self_checks");
  std::ofstream(dir / "trigger/family.json") << family.dump(2);
  if (double_tp) {
    std::string c = ab_read(dir / "trigger/prog.bpf.c");
    const std::string from = "int bench_tp(void *ctx)\n{\n\tif (bb_ours())\n\t\tbb_hit(ctx);";
    size_t at = c.find(from);
    REQUIRE(at != std::string::npos);
    c.replace(at, from.size(),
              "int bench_tp(void *ctx)\n{\n\tif (bb_ours()) {\n\t\tbb_hit(ctx);\n\t\tbb_hit(ctx);\n\t}");
    std::ofstream(dir / "trigger/prog.bpf.c") << c;
  }
  return dir;
}

}  // namespace

TEST_CASE("ab settings: the combinations that make no sense are named", "[ab][session]") {
  TempDir d;
  const std::string f = d.write("a.bdsl", kAbBench), g = d.write("b.bdsl", kAbBench);
  struct Case {
    std::function<void(AbArgs &)> set;
    std::string message;
  };
  std::vector<Case> cases{
      {[&](AbArgs &a) { a.files = {f}; },
       "one file needs --a/--b settings, --a-templates/--b-templates, --a-kernel/--b-kernel (or --control)"},
      {[&](AbArgs &a) { a.files = {f}, a.a_kernel = "6.1"; }, "--a-kernel and --b-kernel come together"},
      {[&](AbArgs &a) { a.files = {f}, a.a_kernel = a.b_kernel = "6.1"; },
       "--a-kernel and --b-kernel name the same kernel"},
      {[&](AbArgs &a) {
         a.files = {f, g}, a.a_kernel = "6.1", a.b_kernel = "6.12";
       },
       "--a-kernel/--b-kernel run one file on two kernels"},
      {[&](AbArgs &a) { a.files = {f}, a.a_kernel = "6.1", a.b_kernel = "6.12", a.control = true; },
       "have no place with them"},
      {[&](AbArgs &a) { a.files = {f}, a.a_kernel = "6.1", a.b_kernel = "6.12", a.a_sets = {"producers=2"}; },
       "have no place with them"},
      {[&](AbArgs &a) {
         a.files = {f, g}, a.a_sets = {"producers=2"};
       },
       "--a/--b set the two variants of one file"},
      {[&](AbArgs &a) {
         a.files = {f, g}, a.control = true;
       },
       "--control runs one file against itself"},
      {[&](AbArgs &a) { a.files = {f}, a.control = true, a.b_sets = {"producers=2"}; },
       "--control runs A against itself: --b has no place in it"},
      {[&](AbArgs &a) { a.files = {f}, a.control = true, a.floor_from = "c.json"; },
       "--floor-from applies a control run's floor: not to a control run"},
      {[&](AbArgs &a) { a.files = {f}, a.control = true, a.a_templates = d.path.string(); },
       "--control runs A against itself: --a-templates/--b-templates have no place in it"},
      {[&](AbArgs &a) { a.files = {f}, a.a_templates = d.path.string(), a.b_templates = (d.path / ".").string(); },
       "--a-templates and --b-templates name the same folder"},
      {[&](AbArgs &a) {
         a.files = {f}, a.a_sets = {"producers=2", "producers=3"};
       },
       "--a producers=2 and --a producers=3 both set 'producers': give each setting once"},
      {[&](AbArgs &a) {
         a.files = {f, g}, a.rule.max_pairs = 2;
       },
       "--max-pairs 2 is below the minimum of 3 pairs"},
  };
  for (const auto &c : cases) {
    AbArgs a;
    c.set(a);
    INFO(c.message);
    auto usage = check_ab_usage(a);
    REQUIRE(!usage);
    CHECK(usage.error().message.find(c.message) != std::string::npos);
  }
  AbArgs fine;
  fine.files = {f, g};
  CHECK(check_ab_usage(fine));
  fine.files = {f};
  fine.a_kernel = "6.1";
  fine.b_kernel = "6.12";
  CHECK(check_ab_usage(fine));
  CHECK(ab_kernels(fine));
}

TEST_CASE("ab sides: a side's input carries its settings and template folder, a bad one is named", "[ab][session]") {
  TempDir d;
  const std::string f = d.write("t.bdsl", kAbBench);
  AbArgs a;
  a.files = {f};
  Result<FileArgs> in = ab_variant_input(a, f, {"producers=2"}, "--b", "");
  REQUIRE(in);
  CHECK(in->file == f);
  REQUIRE(in->overrides.params.size() == 1);
  CHECK(in->overrides.params[0].name == "producers");
  CHECK(ab_variant_name(f, {"producers=2"}, "--b", "") == f + " --b producers=2");
  CHECK(ab_variant_name(f, {}, "--a", "dir") == f + " --a-templates dir");

  auto bad = ab_variant_input(a, f, {"producers"}, "--a", "");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("--a takes NAME=VALUE, got 'producers'") != std::string::npos);
  // A family folder without the shared include/: the side could not compile against its own.
  fs::create_directories(d.path / "fams");
  auto bare = ab_variant_input(a, f, {}, "--a", (d.path / "fams").string());
  REQUIRE_FALSE(bare);
  CHECK(bare.error().message == "--a-templates " + (d.path / "fams").string() +
                                    ": no include/bpfbench_shared.h in it (copy bpf_templates/include there with the "
                                    "families)");
  // Settings the plan refuses are the front end's errors, named by the side.
  for (auto [set, message] : {std::pair{"cmp_str_len=512", "--a: unknown parameter 'cmp_str_len'"},
                              std::pair{"producers=0", "--a producers=0: "}}) {
    Result<FileArgs> side = ab_variant_input(a, f, {set}, "--a", "");
    REQUIRE(side);
    Frontend fe;
    run_frontend_for(*side, fe);
    std::string diags;
    for (const auto &x : fe.diags.all()) diags += render(x, fe.sources);
    INFO(diags);
    CHECK(diags.find(message) != std::string::npos);
  }
}

TEST_CASE("ab matching: by suite and label with the rest listed, by position for one file, --only by A's labels",
          "[ab][session]") {
  TempDir d;
  const std::string before = d.write("before.bdsl", "suite \"S\" < bench trigger as \"t\" < prog base; >\n"
                                                    "  bench trigger as \"only-before\" < prog base; > >\n"
                                                    "bench trigger as \"u\" < prog base; baseline < prog base; > >\n");
  const std::string after = d.write("after.bdsl", "bench trigger as \"u\" < prog base; baseline < prog base; > >\n"
                                                  "suite \"S\" < bench trigger as \"t\" < prog base; > >\n"
                                                  "bench trigger as \"only-after\" < prog base; >\n");
  AbArgs a;
  a.files = {before, after};
  AbVariant va, vb;
  load_side(a, before, {}, "--a", "", va, false);
  load_side(a, after, {}, "--b", "", vb, false);
  AbReport rep;
  auto m = match_ab_points(va, vb, ab_match_by_position(a), "", rep);
  REQUIRE(m.size() == 2);  // baselines are never compared
  for (const auto &x : m) {
    CHECK(x.a->label == x.b->label);
    CHECK(x.a->suite == x.b->suite);
  }
  CHECK(rep.only_a == std::vector<std::string>{"S / only-before"});
  CHECK(rep.only_b == std::vector<std::string>{"only-after"});
  AbReport only;
  auto t = match_ab_points(va, vb, false, "t*", only);
  REQUIRE(t.size() == 1);
  CHECK(t[0].a->label == "t");

  // One file, --b settings that change the labels: matched by plan position.
  const std::string sweep = d.write("s.bdsl", "bench trigger as \"p{producers}\" < prog base; >\n"
                                              "bench trigger as \"q{producers}\" < prog base; >\n");
  AbArgs one;
  one.files = {sweep};
  one.b_sets = {"producers=2"};
  REQUIRE(ab_match_by_position(one));
  AbVariant sa, sb;
  load_side(one, sweep, {}, "--a", "", sa, false);
  load_side(one, sweep, one.b_sets, "--b", "", sb, false);
  AbReport pos;
  auto p = match_ab_points(sa, sb, true, "q1", pos);
  REQUIRE(p.size() == 1);
  CHECK(p[0].a->label == "q1");
  CHECK(p[0].b->label == "q2");
  // The same points for the verifier: both sides, A alone in a control run.
  CHECK(ab_verify_sides(sa, sb, p, false).size() == 2);
  auto control = ab_verify_sides(sa, sa, p, true);
  REQUIRE(control.size() == 1);
  CHECK(control[0].side == "A");
  CHECK(control[0].points == std::vector<const PlanPoint *>{p[0].a});
}

TEST_CASE("ab guest turns: each guest runs the file's matched points with the command's harness settings",
          "[ab][session]") {
  AbArgs a;
  a.files = {"rel/t.bdsl"};
  a.in.template_dirs = {"fams"};
  a.in.overrides.duration_ns = 2'000'000'000;
  a.in.overrides.producers = 2;
  a.in.allow_large = true;
  CHECK(guest_turn_argv(a, "/usr/bin/bpfbench", {"t", "u"}, "/tmp/x/turn.json") ==
        std::vector<std::string>{"/usr/bin/bpfbench", "run", "rel/t.bdsl", "-q", "--calibration", "off", "--json",
                                 "/tmp/x/turn.json", "--only", "t", "--only", "u", "--templates", "fams", "-d",
                                 "2000000000ns", "-p", "2", "--allow-large"});
}

TEST_CASE("ab: a short real run pairs 3 turns of each in ABBA order", "[ab][session][runtime]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  const std::string before =
      d.write("before.bdsl", std::string(kAbBench) + "bench trigger as \"only-before\" < prog base; >\n");
  const std::string after = d.write("after.bdsl", kAbBench);
  AbArgs a;
  a.files = {before, after};
  a.rule.max_pairs = 3;
  a.rule.precision_pct = 0.01;
  AbVariant va, vb;
  load_side(a, before, {}, "--a", "", va);
  load_side(a, after, {}, "--b", "", vb);
  std::vector<std::string> progress;
  nlohmann::json j = ab_to_json(run_ab(a, va, vb, &progress));
  REQUIRE(j["points"].size() == 1);
  const auto &p = j["points"][0];
  CHECK(p["label"] == "t");
  CHECK(p["n_pairs"] == 3);
  CHECK(p["pairs"].size() == 3);
  std::string order;
  for (const auto &t : p["turns"]) {
    order += t["side"].get<std::string>();
    CHECK(t["jit_offset64"].is_null());  // `base` loads no BPF program
  }
  CHECK(order == "ABBAAB");
  // The default turn value: the 90th percentile of 100 ms intervals, 10 in a 1 s turn.
  CHECK(j["turn_value"] == "fast");
  for (const auto &t : p["turns"]) {
    CHECK(t["intervals"] == 10);
    CHECK(t["mean"].get<double>() > 0);
  }
  CHECK(p["ratio"].get<double>() > 0);
  CHECK(p["stop"] == "max pairs");
  CHECK(j["only_a"] == nlohmann::json::array({"only-before"}));  // unmatched: listed, not run
  REQUIRE_FALSE(progress.empty());
  CHECK(progress.back().find("pairs 3") != std::string::npos);
}

TEST_CASE("ab: a control run's floor, applied to the next run by --floor-from", "[ab][session][runtime]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  const std::string f = d.write("t.bdsl", kAbBench);
  AbArgs c;
  c.files = {f};
  c.control = true;
  c.rule.max_pairs = 3;
  c.rule.precision_pct = 0.01;
  AbVariant va;
  load_side(c, f, {}, "--a", "", va);
  nlohmann::json cj = ab_to_json(run_ab(c, va, va));
  CHECK(cj["control"] == true);
  REQUIRE(cj["floors"].contains("S / t"));
  const double floor = cj["floors"]["S / t"].get<double>();
  CHECK(floor > 0);
  CHECK(cj["noise_floor_pct"].get<double>() == floor);  // one point: the largest is its own
  auto read = floors_from_control_json(cj);
  INFO((read ? "" : read.error().message));
  REQUIRE(read);
  AbFloors floors = *read;

  AbArgs a = c;
  a.control = false;
  a.b_sets = {"producers=1"};
  AbVariant vb;
  load_side(a, f, a.b_sets, "--b", "", vb);
  nlohmann::json j = ab_to_json(run_ab(a, va, vb, nullptr, floors));
  REQUIRE(j["points"].size() == 1);
  CHECK(j["points"][0]["floor_pct"].get<double>() == floor);
  CHECK(j["b"] == f + " --b producers=1");
}

// A point whose compared metric is 0 in every turn (bloom's hashmap-without-bloom: every
// lookup misses, hits is 0) has no ratio and never will: one pair, a note, counted. Before,
// the stop rule waited for a CI that could not come and ab ran until it was killed.
TEST_CASE("ab: a point whose metric is 0 ends after one pair, without a ratio", "[ab][session][runtime]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  const std::string f = d.write("z.bdsl", "bench bloom_filter as \"miss\" < prog hashmap-without-bloom; warmup 0s; "
                                          "duration 1s; report hits, drops; >\n");
  AbArgs a;
  a.files = {f};
  a.control = true;
  a.method = AbMethodChoice::Turns;
  AbVariant va;
  load_side(a, f, {}, "--a", "", va);
  AbReport turns = run_ab(a, va, va);
  CHECK(ab_tally(turns).no_ratio == 1);
  auto j = ab_to_json(turns);
  REQUIRE(j["points"].size() == 1);
  const auto &p = j["points"][0];
  CHECK(p["method"] == "turns");
  CHECK(p["method_note"] == "--method turns");
  CHECK(p["turns"].size() == 2);
  CHECK(p["stop"] == "no ratio");
  CHECK(p["note"].get<std::string>().rfind("no ratio of hits: pair 1 has a value that is not a positive number", 0) ==
        0);
  CHECK(p["verdict"] == "not comparable");
  // Interleaved (the default here): the first round of slices ends it the same way.
  a.method = AbMethodChoice::Auto;
  AbReport x = run_ab(a, va, va);
  CHECK(ab_tally(x).no_ratio == 1);
  auto k = ab_to_json(x)["points"][0];
  CHECK(k["method"] == "interleaved");
  CHECK(k["stop"] == "no ratio");
  CHECK(k["note"].get<std::string>().rfind("no ratio of hits: slice pair 1 has a value that is not a positive number",
                                           0) == 0);
  CHECK(k["verdict"] == "not comparable");
}

TEST_CASE("ab: --a-templates/--b-templates, each side compiles its own folder", "[ab][session]") {
  TempDir d;
  fs::path a = trigger_copy(d.path / "a", false), b = trigger_copy(d.path / "b", false);
  std::ofstream(b / "trigger/prog.bpf.c", std::ios::app) << "\nthis is not C;\n";
  const std::string bdsl = d.write("t.bdsl", "bench trigger as \"t\" < prog tp; warmup 0s; duration 1s; >\n");
  AbArgs args;
  args.files = {bdsl};
  args.a_templates = a.string();
  args.b_templates = b.string();
  AbVariant va, vb;
  load_side(args, bdsl, {}, "--a", args.a_templates, va);
  load_side(args, bdsl, {}, "--b", args.b_templates, vb, false);
  CHECK_FALSE(compile_programs(*vb.fe, vb.programs));
  std::string diags;
  for (const auto &x : vb.fe->diags.all()) diags += render(x, vb.fe->sources);
  CHECK(diags.find((b / "trigger/prog.bpf.c").string()) != std::string::npos);  // B's compile error
  CHECK(diags.find((a / "trigger/prog.bpf.c").string()) == std::string::npos);
  // The same folder twice, and A's copy made the same as B's: said, the point still compared.
  AbVariant va2;
  load_side(args, bdsl, {}, "--b", args.a_templates, va2);
  AbReport rep;
  auto m = match_ab_points(va, va2, true, "", rep);
  CHECK(same_program_points(va, va2, m) == std::vector<std::string>{"t"});
}

TEST_CASE("ab: two template folders differing in one program", "[ab][session][runtime]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  fs::path fa = trigger_copy(d.path / "a", false), fb = trigger_copy(d.path / "b", true);
  // The compared metric is the first reported: hits per getpgid() call of bpfbench's own
  // producer, 1 for A and 2 for B however fast either turn ran (the machine may change speed
  // between turns; a ratio of hit rates moved by 35 % in one CI run under load).
  const std::string bdsl =
      d.write("t.bdsl", "bench trigger as \"t\" < prog tp; warmup 0s; duration 1s; report hits_per_call, hits >\n");
  AbArgs a;
  a.files = {bdsl};
  a.a_templates = fa.string();
  a.b_templates = fb.string();
  a.rule.max_pairs = 3;
  a.rule.precision_pct = 0.01;
  AbVariant va, vb;
  load_side(a, bdsl, {}, "--a", a.a_templates, va);
  load_side(a, bdsl, {}, "--b", a.b_templates, vb);
  AbReport rep0;
  CHECK(same_program_points(va, vb, match_ab_points(va, vb, true, "", rep0)).empty());
  auto j = ab_to_json(run_ab(a, va, vb));
  CHECK(j["a"] == bdsl + " --a-templates " + fa.string());
  CHECK(j["b"] == bdsl + " --b-templates " + fb.string());
  REQUIRE(j["points"].size() == 1);
  const auto &p = j["points"][0];
  CHECK(p["n_pairs"] == 3);
  CHECK(p["metric"] == "hits_per_call");
  CHECK(p["ratio"].get<double>() > 1.99);
  CHECK(p["ratio"].get<double>() < 2.01);
  for (const auto &pair : p["pairs"]) {
    CHECK(pair["a"].get<double>() == Approx(1.0).epsilon(0.01));
    CHECK(pair["b"].get<double>() == Approx(2.0).epsilon(0.01));
  }
  // Every turn is its own load of bench_tp: where its JITed code started, mod 64.
  REQUIRE(p["turns"].size() == 6);
  for (const auto &t : p["turns"]) {
    REQUIRE(t["jit_offset64"].is_number());
    CHECK(t["jit_offset64"].get<int>() < 64);
  }
}

// Two points; B's second dereferences a random number in its inline C, which the verifier
// refuses at once ("R1 invalid mem access 'scalar'").
TEST_CASE("ab: B refused at its second point is found before the first turn, its log kept",
          "[ab][session][runtime][verify]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  const std::string fa = d.write("a.bdsl", test::kBothFine), fb = d.write("b.bdsl", test::kSecondRefused);
  AbArgs a;
  a.files = {fa, fb};
  AbVariant va, vb;
  load_side(a, fa, {}, "--a", "", va);
  load_side(a, fb, {}, "--b", "", vb);
  AbReport rep;
  auto matched = match_ab_points(va, vb, false, "", rep);
  REQUIRE(matched.size() == 2);
  std::vector<Refusal> refusals;
  std::vector<std::string> kept;
  StopSource stop;
  VerifyTally t = verify_points(
      ab_verify_sides(va, vb, matched, false), stop,
      [&](const Refusal &r) {
        refusals.push_back(r);
        kept.push_back(r.kept.path + r.kept.error);
      },
      d.path.string());
  CHECK(t.verified == 3);
  CHECK(t.refused == 1);
  CHECK_FALSE(t.interrupted);
  REQUIRE(refusals.size() == 1);
  const Refusal &r = refusals[0];
  CHECK(r.where.label == "two");
  CHECK(r.where.side == "B");
  CHECK(r.where.location == fb + ":4:3");
  CHECK_FALSE(r.same_as);
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].ends_with("bpfbench-verifier-logs/two.B.bench_tp.log"));
  CHECK(fs::exists(d.path / "bpfbench-verifier-logs" / "two.B.bench_tp.log"));
}
