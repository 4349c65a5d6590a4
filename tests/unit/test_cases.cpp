// Data-driven front-end tests: every tests/cases/*.bdsl carries its expectations inline.
//   # expect-error: [file:]LINE:COL[-ENDCOL]: message text (a substring of the message)
//   # expect-warning: ...        same, for warnings
//   # expect-points: N           the plan has exactly N points
//   # expect-points-min: N       at least N
// A case without expect-error lines must produce no error.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "compiler/pipeline.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;

namespace {

struct Expectation {
  Severity severity;
  std::string file;  // "" = the case file itself
  uint32_t line, col, end_col;
  std::string text;
  bool met = false;
};

struct Case {
  std::vector<Expectation> expect;
  std::optional<size_t> points, points_min;
};

Case read_case(const fs::path &path) {
  Case c;
  std::ifstream in(path);
  std::string line;
  std::regex re(R"(#\s*expect-(error|warning):\s*(?:([^:\s]+\.bdsl):)?(\d+):(\d+)(?:-(\d+))?:\s*(.*\S))");
  std::regex pts(R"(#\s*expect-points(-min)?:\s*(\d+))");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, re)) {
      c.expect.push_back(Expectation{m[1] == "error" ? Severity::Error : Severity::Warning, m[2],
                                     static_cast<uint32_t>(std::stoul(m[3])), static_cast<uint32_t>(std::stoul(m[4])),
                                     m[5].matched ? static_cast<uint32_t>(std::stoul(m[5])) : 0, m[6]});
    } else if (std::regex_search(line, m, pts)) {
      (m[1].matched ? c.points_min : c.points) = std::stoul(m[2]);
    }
  }
  return c;
}

bool matches(const Expectation &e, const Diagnostic &d, const SourceManager &sm, const fs::path &main) {
  if (d.severity != e.severity || !d.range.valid()) return false;
  fs::path got = sm.file(d.range.file).path;
  fs::path want = e.file.empty() ? main : main.parent_path() / e.file;
  if (fs::weakly_canonical(got) != fs::weakly_canonical(want)) return false;
  if (d.range.line != e.line || d.range.col != e.col) return false;
  if (e.end_col && d.range.end_col != e.end_col) return false;
  return d.message.find(e.text) != std::string::npos;
}

std::vector<fs::path> case_files() {
  std::vector<fs::path> out;
  for (const auto &entry : fs::directory_iterator(fs::path(BPFBENCH_SOURCE_DIR) / "tests/cases"))
    if (entry.path().extension() == ".bdsl") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("tests/cases: every case meets its inline expectations", "[cases]") {
  auto files = case_files();
  REQUIRE(files.size() >= 30);
  for (const auto &path : files) {
    DYNAMIC_SECTION(path.filename().string()) {
      Case c = read_case(path);
      Frontend fe;
      FrontendOptions opts;
      opts.nproc = 2;                                                         // keep plans independent of the machine
      opts.limits = MachineLimits{32768, 100000, 0, 1000, int64_t{8} << 30, {0, 1}};  // and machine checks
      bool ok = run_frontend(path.string(), opts, fe);
      std::string rendered = render_all(fe.diags, fe.sources);
      INFO("diagnostics:\n" << rendered);
      for (const auto &d : fe.diags.all()) {
        bool expected = false;
        for (auto &e : c.expect)
          if (!e.met && matches(e, d, fe.sources, path)) expected = e.met = true;
        if (d.severity == Severity::Error) CHECK(expected);
      }
      for (const auto &e : c.expect) {
        INFO("expected " << (e.severity == Severity::Error ? "error" : "warning") << " at " << e.line << ":" << e.col
                         << ": " << e.text);
        CHECK(e.met);
      }
      bool wants_error = std::any_of(c.expect.begin(), c.expect.end(),
                                     [](const Expectation &e) { return e.severity == Severity::Error; });
      CHECK(ok == !wants_error);
      if ((c.points || c.points_min) && !fe.plan) FAIL("no plan");
      if (c.points) CHECK(fe.plan->points.size() == *c.points);
      if (c.points_min) CHECK(fe.plan->points.size() >= *c.points_min);
    }
  }
}
