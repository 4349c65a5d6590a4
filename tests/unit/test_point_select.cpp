// --only: exact labels or shell globs, baselines follow their main point, and a pattern that
// matches nothing is an error listing the labels (it used to match substrings, so
// `--only lpm-1000` also ran lpm-100000, and to run nothing with exit 0 on a typo).
#include <catch2/catch.hpp>

#include "session/point_select.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"

using namespace bpfbench;

namespace {

RunPlan plan_of(std::initializer_list<const char *> labels) {
  RunPlan plan;
  for (const char *l : labels) {
    PlanPoint p;
    p.index = plan.points.size();
    p.file_index = p.index;
    p.label = l;
    plan.points.push_back(p);
  }
  return plan;
}

std::vector<std::string> labels(const RunPlan &plan) {
  std::vector<std::string> out;
  for (const auto &p : plan.points) out.push_back(p.label);
  return out;
}

}  // namespace

TEST_CASE("only: matches a label exactly, not as a substring", "[cli][only]") {
  RunPlan plan = plan_of({"lpm-100", "lpm-1000", "lpm-100000"});
  auto kept = select_points(plan, {"lpm-1000"});
  REQUIRE(kept);
  CHECK(*kept == 1);
  CHECK(labels(plan) == std::vector<std::string>{"lpm-1000"});
  CHECK(plan.points[0].index == 0);
}

TEST_CASE("only: takes shell globs and several patterns", "[cli][only]") {
  RunPlan plan = plan_of({"rb-libbpf", "rb-custom", "pb-libbpf", "pb-custom", "lpm-1"});
  auto kept = select_points(plan, {"rb-*", "pb-c?stom"});
  REQUIRE(kept);
  CHECK(labels(plan) == std::vector<std::string>{"rb-libbpf", "rb-custom", "pb-custom"});
  for (size_t i = 0; i < plan.points.size(); ++i) CHECK(plan.points[i].index == i);
}

TEST_CASE("only: keeps a main point's baseline, renumbered", "[cli][only]") {
  RunPlan plan = plan_of({"a", "b-baseline", "b", "c"});
  plan.points[1].is_baseline = true;
  plan.points[2].baseline = 1;
  SECTION("selected by the main label") { REQUIRE(select_points(plan, {"b"})); }
  SECTION("selected by the baseline's own label") { REQUIRE(select_points(plan, {"b-baseline"})); }
  CHECK(labels(plan) == std::vector<std::string>{"b-baseline", "b"});
  REQUIRE(plan.points[1].baseline);
  CHECK(*plan.points[1].baseline == 0);
}

TEST_CASE("only, exact (emit): the points named and no others, a main point without its baseline", "[cli][only]") {
  RunPlan plan = plan_of({"a", "b-baseline", "b", "c"});
  plan.points[1].is_baseline = true;
  plan.points[2].baseline = 1;
  SECTION("the main label: the main point alone, first") {
    REQUIRE(select_points(plan, {"b"}, Baselines::Exact));
    CHECK(labels(plan) == std::vector<std::string>{"b"});
    CHECK(plan.points[0].index == 0);
    CHECK(plan.points[0].file_index == 2);  // what the file's plan calls it stays
    CHECK_FALSE(plan.points[0].baseline);  // not in the plan: no index into it
  }
  SECTION("the baseline's own label: the baseline alone") {
    REQUIRE(select_points(plan, {"b-baseline"}, Baselines::Exact));
    CHECK(labels(plan) == std::vector<std::string>{"b-baseline"});
  }
  SECTION("both: both, the main point's baseline renumbered") {
    REQUIRE(select_points(plan, {"b*"}, Baselines::Exact));
    CHECK(labels(plan) == std::vector<std::string>{"b-baseline", "b"});
    REQUIRE(plan.points[1].baseline);
    CHECK(*plan.points[1].baseline == 0);
  }
}

TEST_CASE("only: with a pattern that matches nothing lists the labels", "[cli][only]") {
  RunPlan plan = plan_of({"base", "tp"});
  auto kept = select_points(plan, {"tp", "rawpt"});
  REQUIRE_FALSE(kept);
  CHECK(kept.error().message == "--only 'rawpt' matches no point label; the labels are: base, tp");
}

TEST_CASE("run, plan, emit and check accept --only", "[cli][only]") {
  test::TempDir dir;
  std::string f = dir.write("o.bdsl", "bench trigger as \"{prog}\" < prog [base, tp, rawtp]; >\n");
  auto plan = test::run_process({BPFBENCH_BINARY, "plan", f, "--only", "*tp"});
  INFO(plan.out << plan.err);
  CHECK(plan.exit_code == 0);
  CHECK(plan.out.find("rawtp") != std::string::npos);
  CHECK(plan.out.find("base") == std::string::npos);
  for (const char *cmd : {"check", "emit", "plan", "run"}) {
    auto r = test::run_process({BPFBENCH_BINARY, cmd, f, "--only", "nope"});
    INFO(cmd << ": " << r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--only 'nope' matches no point label; the labels are: base, tp, rawtp") != std::string::npos);
  }
  auto check = test::run_process({BPFBENCH_BINARY, "check", f, "--only", "base"});
  CHECK(check.exit_code == 0);
  CHECK(check.out.find("ok, 1 point") != std::string::npos);
}
