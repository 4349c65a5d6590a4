// `bpfbench ab` end to end: argument errors (exit 2, a clear message) and one short real
// run (root + BPF) whose JSON holds the pairs in ABBA order.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "test_paths.hpp"
#include "run_process.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using bpfbench::test::run_process;

namespace {

using bpfbench::test::kBin;

struct AbDir {
  fs::path dir;
  AbDir() {
    char tmpl[] = "/tmp/bpfbench-ab-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    dir = tmpl;
    fs::permissions(dir, fs::perms::all);
  }
  ~AbDir() { fs::remove_all(dir); }
  std::string file(const std::string &name, const std::string &text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

const char *kBench = "suite \"S\" < bench trigger as \"t\" < prog base; warmup 0s; duration 1s; > >\n";

}  // namespace

TEST_CASE("ab: argument errors exit 2 with a clear message", "[ab][cli]") {
  AbDir d;
  std::string f = d.file("a.bdsl", kBench), g = d.file("b.bdsl", kBench);
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::vector<Case> cases{
      {{f}, "one file needs --a/--b settings, --a-templates/--b-templates, --a-kernel/--b-kernel (or --control)"},
      {{f, "--a-kernel", "6.1"}, "--a-kernel and --b-kernel come together"},
      {{f, "--a-kernel", "6.1", "--b-kernel", "6.1"}, "--a-kernel and --b-kernel name the same kernel"},
      {{f, g, "--a-kernel", "6.1", "--b-kernel", "6.12"}, "--a-kernel/--b-kernel run one file on two kernels"},
      {{f, "--a-kernel", "6.1", "--b-kernel", "6.12", "--control"}, "have no place with them"},
      {{f, "--a-kernel", "6.1", "--b-kernel", "6.12", "--a", "producers=2"}, "have no place with them"},
      {{f, "--a-kernel", "6.1", "--b-kernel", "6.12", "--accel", "xen"}, "--accel"},
      {{f, g, "--a", "producers=2"}, "--a/--b set the two variants of one file"},
      {{f, g, "--control"}, "--control runs one file against itself"},
      {{f, "--control", "--b", "producers=2"}, "--control runs A against itself"},
      {{f, g, "--max-pairs", "2"}, "--max-pairs 2 is below the minimum of 3 pairs"},
      {{f, "--a", "producers"}, "--a takes NAME=VALUE, got 'producers'"},
      {{f, "--a", "cmp_str_len=512", "--b", "cmp_str_len=528"}, "--a: unknown parameter 'cmp_str_len'"},
      {{f, "--a", "producers=0", "--b", "producers=1"}, "--a producers=0: "},
      {{f, g, "--floor-from", d.file("x.json", "{}")}, "not the JSON of a control run"},
      {{f, g, "--format", "xml"}, "--format"},
      {{f, g, "--turn-value", "p90"}, "--turn-value"},
  };
  for (const auto &c : cases) {
    std::vector<std::string> argv{kBin, "ab"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = run_process(argv, 30);
    INFO(c.message << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
  }
}

TEST_CASE("ab: a short real run pairs 3 turns of each in ABBA order", "[ab][cli][runtime]") {
  BB_REQUIRE_ROOT();
  AbDir d;
  std::string before = d.file("before.bdsl", std::string(kBench) + "bench trigger as \"only-before\" < prog base; >\n");
  std::string after = d.file("after.bdsl", kBench);
  auto r = run_process({kBin, "ab", before, after, "--max-pairs", "3", "--precision", "0.01", "--format", "json"}, 120);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
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
  CHECK(r.err.find("pairs 3") != std::string::npos);             // progress on stderr
}

TEST_CASE("ab: --control stores the floor, --floor-from applies it", "[ab][cli][runtime]") {
  BB_REQUIRE_ROOT();
  AbDir d;
  std::string f = d.file("t.bdsl", kBench);
  auto c =
      run_process({kBin, "ab", f, "--control", "--max-pairs", "3", "--precision", "0.01", "--format", "json"}, 120);
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  auto cj = nlohmann::json::parse(c.out);
  CHECK(cj["control"] == true);
  REQUIRE(cj["floors"].contains("S / t"));
  double floor = cj["floors"]["S / t"].get<double>();
  CHECK(floor > 0);
  CHECK(cj["noise_floor_pct"].get<double>() == floor);  // one point: the largest is its own
  std::string control = d.file("control.json", c.out);
  auto r = run_process({kBin, "ab", f, "--b", "producers=1", "--max-pairs", "3", "--precision", "0.01", "--floor-from",
                        control, "--format", "json"},
                       120);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["points"].size() == 1);
  CHECK(j["points"][0]["floor_pct"].get<double>() == floor);
  CHECK(j["b"] == f + " --b producers=1");
}

// A point whose compared metric is 0 in every turn (bloom's hashmap-without-bloom: every
// lookup misses, hits is 0) has no ratio and never will: one pair, a note, exit 2. Before,
// the stop rule waited for a CI that could not come and ab ran until it was killed.
TEST_CASE("ab: a point whose metric is 0 ends after one pair, without a ratio", "[ab][cli][runtime]") {
  BB_REQUIRE_ROOT();
  AbDir d;
  std::string f = d.file("z.bdsl", "bench bloom_filter as \"miss\" < prog hashmap-without-bloom; warmup 0s; "
                                   "duration 1s; report hits, drops; >\n");
  auto r = run_process({kBin, "ab", f, "--control", "--method", "turns", "--format", "json"}, 120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("1 point without a ratio (its note says why)") != std::string::npos);
  auto j = nlohmann::json::parse(r.out);
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
  auto x = run_process({kBin, "ab", f, "--control", "--format", "json"}, 120);
  INFO(x.out << x.err);
  CHECK(x.exit_code == 2);
  auto k = nlohmann::json::parse(x.out)["points"][0];
  CHECK(k["method"] == "interleaved");
  CHECK(k["stop"] == "no ratio");
  CHECK(k["note"].get<std::string>().rfind("no ratio of hits: slice pair 1 has a value that is not a positive number",
                                           0) == 0);
  CHECK(k["verdict"] == "not comparable");
}
