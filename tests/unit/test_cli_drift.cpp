// End to end: `run --calibration` writes calibration points and per-point noise facts
// that `compare` reads back; `ab --a-templates/--b-templates` runs one file against two
// family folders.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_paths.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using bpfbench::test::run_process;
using bpfbench::test::TempDir;

namespace {

using bpfbench::test::kBin;

std::string write(const fs::path &p, const std::string &text) {
  std::ofstream(p) << text;
  return p.string();
}

std::string read(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A family folder: copies of the shipped trigger family and the shared include/, with
// two more metrics, `calls` (producer operations) and `hits_per_call` (their ratio), and
// without the hits == calls self-check; `double_tp`: its tp program counts every call of
// the bpfbench process twice.
fs::path trigger_copy(const fs::path &dir, bool double_tp) {
  fs::create_directories(dir);
  for (const char *sub : {"trigger", "include"})
    fs::copy(std::string(BPFBENCH_SOURCE_DIR) + "/bpf_templates/" + sub, dir / sub, fs::copy_options::recursive);
  auto family = nlohmann::json::parse(read(dir / "trigger/family.json"));
  family["metrics"].push_back({{"name", "calls"}, {"source", "producer"}, {"unit", "M/s"}, {"doc", "getpgid() calls"}});
  family["metrics"].push_back(
      {{"name", "hits_per_call"}, {"source", "ratio:hits/calls"}, {"unit", "ratio"}, {"doc", "counted runs per call"}});
  family.erase("self_checks");
  write(dir / "trigger/family.json", family.dump(2));
  if (double_tp) {
    std::string c = read(dir / "trigger/prog.bpf.c");
    const std::string from = "int bench_tp(void *ctx)\n{\n\tif (bb_ours())\n\t\tbb_hit(ctx);";
    size_t at = c.find(from);
    REQUIRE(at != std::string::npos);
    c.replace(at, from.size(),
              "int bench_tp(void *ctx)\n{\n\tif (bb_ours()) {\n\t\tbb_hit(ctx);\n\t\tbb_hit(ctx);\n\t}");
    write(dir / "trigger/prog.bpf.c", c);
  }
  return dir;
}

}  // namespace

TEST_CASE("run: --calibration below 100ms is refused", "[drift][cli]") {
  auto r = run_process({kBin, "run", "--calibration", "50ms", "x.bdsl"}, 30);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--calibration: 50ms is below the 100ms minimum") != std::string::npos);
}

TEST_CASE("run: a 1 s calibration at start and end, noise per point", "[drift][cli][runtime]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  std::string bdsl = write(d.path / "t.bdsl", "bench trigger as \"t\" < prog base; warmup 0s; duration 1s; >\n");
  std::string json = (d.path / "r.json").string();
  auto r = run_process({kBin, "run", bdsl, "--calibration", "1s", "--json", json}, 60);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("calibration (start): ") != std::string::npos);
  CHECK(r.out.find("calibration (end): ") != std::string::npos);
  auto j = nlohmann::json::parse(read(json));
  const auto &cal = j.at("calibration");
  CHECK(cal["duration_s"] == 1.0);
  REQUIRE(cal["points"].size() == 2);
  CHECK(cal["points"][0]["when"] == "start");
  CHECK(cal["points"][1]["when"] == "end");
  for (const auto &p : cal["points"]) {
    CHECK(p["metric"] == "hits");
    CHECK(p["mean"].get<double>() > 0);
    CHECK(p["n"] == 10);  // 10 intervals of 100 ms
    CHECK(p["noise"]["wall_s"].get<double>() >= 1.0);
    CHECK(p["noise"]["other_cpu_pct"].is_number());  // /proc/stat is readable here
    CHECK(p["noise"]["load1"].is_number());
  }
  const auto &noise = j["points"].at(0).at("noise");
  CHECK(noise["wall_s"].get<double>() >= 1.0);
  CHECK(noise["other_cpu_pct"].get<double>() >= 0);
  CHECK(noise["other_cpu_pct"].get<double>() <= 100);
  // compare reads it back: the same file against itself has calibration ratio 1.
  auto c = run_process({kBin, "compare", json, json}, 30);
  INFO(c.out << c.err);
  CHECK(c.exit_code == 0);
  CHECK(c.out.find("calibration B/A 1.0000") != std::string::npos);
  // --normalize needs both calibrations: a file without one is bad input, not a ratio of 1.
  j.erase("calibration");
  std::string bare = write(d.path / "bare.json", j.dump());
  auto n = run_process({kBin, "compare", json, bare, "--normalize"}, 30);
  CHECK(n.exit_code == 2);
  CHECK(n.err.find("--normalize: " + bare + " has no calibration") != std::string::npos);
}

TEST_CASE("ab: --a-templates/--b-templates, B's folder is the one used", "[drift][ab][cli]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  fs::path a = trigger_copy(d.path / "a", false), b = trigger_copy(d.path / "b", false);
  write(b / "trigger/prog.bpf.c", read(b / "trigger/prog.bpf.c") + "\nthis is not C;\n");
  std::string bdsl = write(d.path / "t.bdsl", "bench trigger as \"t\" < prog tp; warmup 0s; duration 1s; >\n");
  auto r = run_process({kBin, "ab", bdsl, "--a-templates", a.string(), "--b-templates", b.string()}, 60);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find((b / "trigger/prog.bpf.c").string()) != std::string::npos);  // B's compile error
  CHECK(r.err.find((a / "trigger/prog.bpf.c").string()) == std::string::npos);
  auto same = run_process({kBin, "ab", bdsl, "--a-templates", a.string(), "--b-templates", a.string()}, 30);
  CHECK(same.exit_code == 2);
  CHECK(same.err.find("name the same folder") != std::string::npos);
  fs::remove_all(a / "include");
  auto bare = run_process({kBin, "ab", bdsl, "--a-templates", a.string(), "--b-templates", b.string()}, 30);
  CHECK(bare.exit_code == 2);
  CHECK(bare.err.find("--a-templates " + a.string() + ": no include/bpfbench_shared.h in it") != std::string::npos);
}

TEST_CASE("ab: two template folders differing in one program", "[drift][ab][cli][runtime]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  fs::path a = trigger_copy(d.path / "a", false), b = trigger_copy(d.path / "b", true);
  // The compared metric is the first reported: hits per getpgid() call of bpfbench's own
  // producer, 1 for A and 2 for B however fast either turn ran (the machine may change speed
  // between turns; a ratio of hit rates moved by 35 % in one CI run under load).
  std::string bdsl = write(d.path / "t.bdsl",
                           "bench trigger as \"t\" < prog tp; warmup 0s; duration 1s; report hits_per_call, hits >\n");
  auto r = run_process({kBin, "ab", bdsl, "--a-templates", a.string(), "--b-templates", b.string(), "--max-pairs", "3",
                        "--precision", "0.01", "--format", "json"},
                       120);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["a"] == bdsl + " --a-templates " + a.string());
  CHECK(j["b"] == bdsl + " --b-templates " + b.string());
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
  CHECK(r.err.find("the same program") == std::string::npos);
  // Every turn is its own load of bench_tp: where its JITed code started, mod 64.
  REQUIRE(p["turns"].size() == 6);
  for (const auto &t : p["turns"]) {
    REQUIRE(t["jit_offset64"].is_number());
    CHECK(t["jit_offset64"].get<int>() < 64);
  }
}
