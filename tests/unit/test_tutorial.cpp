// docs/adding-a-family.md cannot rot: its files (fenced blocks tagged `file=PATH`) are
// copied into a temporary folder outside the source tree, checked and, as root, run.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "compiler/family/manifest_json.hpp"
#include "results/stats.hpp"
#include "run_process.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;

namespace {

// Every "```lang file=PATH" ... "```" block of the tutorial: PATH -> contents.
std::map<std::string, std::string> tutorial_files() {
  std::ifstream in(std::string(BPFBENCH_SOURCE_DIR) + "/docs/adding-a-family.md");
  REQUIRE(in);
  std::map<std::string, std::string> out;
  std::regex open(R"(^```\S*\s+file=(\S+)\s*$)");
  std::string line, path, text;
  bool inside = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!inside && std::regex_match(line, m, open)) {
      inside = true;
      path = m[1];
      text.clear();
    } else if (inside && line == "```") {
      inside = false;
      REQUIRE(out.count(path) == 0);
      out[path] = text;
    } else if (inside) {
      text += line + "\n";
    }
  }
  CHECK_FALSE(inside);
  return out;
}

struct TutorialDir {
  fs::path root;
  TutorialDir() {
    char tmpl[] = "/tmp/bpfbench-tutorial-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    root = tmpl;
    for (const auto &[rel, text] : tutorial_files()) {
      REQUIRE(fs::path(rel).is_relative());
      fs::create_directories((root / rel).parent_path());
      std::ofstream(root / rel, std::ios::binary) << text;
    }
  }
  ~TutorialDir() { fs::remove_all(root); }
};

// The mean of `metric` on each "Summary:" line.
std::vector<double> summary_means(const std::string &out, const std::string &metric) {
  std::vector<double> v;
  std::regex re(", " + metric + R"(\s+([0-9.]+) ±)");
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    size_t at = line.find("Summary: ");  // after "<label>: " with -q
    if (at == std::string::npos) continue;
    std::string text = ", " + line.substr(at + 9);  // "hits" is the first metric on the line
    if (std::regex_search(text, m, re)) v.push_back(std::stod(m[1]));
  }
  return v;
}

}  // namespace

TEST_CASE("the tutorial holds one manifest, one template and one .bdsl", "[tutorial]") {
  auto files = tutorial_files();
  CHECK(files.size() == 3);
  CHECK(files.count("bpf_templates/array_lookup/family.json"));
  CHECK(files.count("bpf_templates/array_lookup/prog.bpf.c"));
  CHECK(files.count("array_lookup.bdsl"));
}

TEST_CASE("the tutorial's latency is per lookup, hit or miss", "[tutorial][metrics]") {
  TutorialDir d;
  auto files = tutorial_files();
  bpfbench::SourceManager sources;
  bpfbench::Diagnostics diags;
  auto f = bpfbench::parse_manifest((d.root / "bpf_templates/array_lookup/family.json").string(),
                                    files.at("bpf_templates/array_lookup/family.json"), sources, diags);
  INFO(bpfbench::render_all(diags, sources));
  REQUIRE(f);
  // One producer: 6 M lookups found and 2 M missed per second are 8 M lookups, 125 ns each
  // (1000 / hits would say 166.7 ns: the cost of a lookup, counted per hit).
  std::vector<bpfbench::Sample> samples(3);
  for (auto &s : samples) {
    s.duration_s = 1.0;
    s.deltas = {{"hits", 6'000'000}, {"misses", 2'000'000}};
    bpfbench::add_sum_counts(f->metrics, s.deltas);
  }
  auto sum = bpfbench::summarize(samples, f->metrics, 1, {"hits", "misses", "latency"});
  REQUIRE(sum.find("latency"));
  CHECK(sum.find("latency")->mean == Approx(125.0));
  CHECK(sum.find("total_ops")->mean == Approx(8.0));  // the Summary's "total operations"
}

TEST_CASE("the tutorial's family, written only in a temp dir, loads and checks", "[tutorial][cli]") {
  TutorialDir d;
  std::string bdsl = (d.root / "array_lookup.bdsl").string();
  auto list = bpfbench::test::run_process({BPFBENCH_BINARY, "list", bdsl});
  INFO(list.err);
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find("array_lookup — ") != std::string::npos);
  CHECK(list.out.find("(next to " + bdsl + ")") != std::string::npos);
  auto check = bpfbench::test::run_process({BPFBENCH_BINARY, "check", "--compile", bdsl});
  INFO(check.err);
  CHECK(check.exit_code == 0);
  CHECK(check.out.find("3 points") != std::string::npos);
}

TEST_CASE("the tutorial's family runs and reports hits > 0", "[tutorial][runtime][cli]") {
  BB_REQUIRE_ROOT();
  TutorialDir d;
  std::string bdsl = (d.root / "array_lookup.bdsl").string();
  auto r = bpfbench::test::run_process({BPFBENCH_BINARY, "run", "-q", "-w", "1s", "-d", "2s", bdsl}, 120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);  // its `expect hits > 0; expect misses == 0;` held
  auto hits = summary_means(r.out, "hits");
  REQUIRE(hits.size() == 3);
  for (double h : hits) CHECK(h > 0);
  auto misses = summary_means(r.out, "misses");
  REQUIRE(misses.size() == 3);
  CHECK(misses[0] == 0);
  // The first bench reports latency per lookup: 1000 / (hits + misses per producer).
  std::regex lat(R"(, latency\s+([0-9.]+) ns/op)");
  std::vector<double> lats;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), lat); it != std::sregex_iterator(); ++it)
    lats.push_back(std::stod((*it)[1]));
  REQUIRE(lats.size() == 2);
  for (size_t i = 0; i < 2; ++i) CHECK(lats[i] == Approx(1000.0 / (hits[i] + misses[i])).epsilon(0.01));
  CHECK(r.out.find("FAILED") == std::string::npos);
}
