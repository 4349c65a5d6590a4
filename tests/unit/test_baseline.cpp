// `baseline < ... >`: checking, lowering into baseline + main points, and the _adj columns.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "compiler/pipeline.hpp"
#include "results/baseline.hpp"
#include "results/stat_math.hpp"

using namespace bpfbench;

namespace {

struct BdslFile {
  std::string path;
  explicit BdslFile(const std::string &text) {
    char tmpl[] = "/tmp/bpfbench-baseline-XXXXXX.bdsl";
    int fd = mkstemps(tmpl, 5);
    REQUIRE(fd >= 0);
    close(fd);
    path = tmpl;
    std::ofstream(path) << text;
  }
  ~BdslFile() { unlink(path.c_str()); }
};

bool frontend(const std::string &text, Frontend &fe) {
  BdslFile f(text);
  FrontendOptions opts;
  opts.nproc = 2;
  return run_frontend(f.path, opts, fe);
}

MetricSummary metric(const std::string &name, const std::string &unit, double mean, double sd, size_t n = 10) {
  MetricSummary m;
  m.name = name;
  m.unit = unit;
  m.mean = m.median = m.min = m.max = mean;
  m.stddev = sd;
  m.n = n;
  m.ci95 = ci_half_width(sd, n);
  return m;
}

}  // namespace

TEST_CASE("a baseline point runs before each main point with its overrides", "[check][baseline]") {
  Frontend fe;
  bool ok = frontend("bench local_storage as \"{prog}-{nr_maps}\" < sweep nr_maps [1, 10]; prog seq_get;\n"
                     "  baseline < lookup false; gets 5; >\n  report hits, latency; >\n",
                     fe);
  INFO(render_all(fe.diags, fe.sources));
  REQUIRE(ok);
  const auto &pts = fe.plan->points;
  REQUIRE(pts.size() == 4);
  for (size_t i = 0; i < 4; i += 2) {
    const PlanPoint &b = pts[i], &m = pts[i + 1];
    CHECK(b.is_baseline);
    CHECK_FALSE(b.baseline);
    CHECK_FALSE(m.is_baseline);
    REQUIRE(m.baseline);
    CHECK(*m.baseline == b.index);
    CHECK(b.label == m.label + "-baseline");
    CHECK(b.param("lookup")->i == 0);
    CHECK(m.param("lookup")->i == 1);
    CHECK(b.param("gets")->i == 5);
    CHECK(m.param("gets")->i == 10000);
    CHECK(b.param("nr_maps")->i == m.param("nr_maps")->i);
  }
  CHECK(pts[1].label == "seq_get-1");
  CHECK(pts[3].label == "seq_get-10");
  CHECK(pts[2].label == "seq_get-10-baseline");
}

TEST_CASE("baseline mistakes are reported where they are", "[check][baseline]") {
  struct Case {
    const char *text, *message;
  };
  const Case cases[] = {
      {"bench local_storage < baseline < sweep nr_maps [1, 2]; > >", "a baseline holds only 'name value;' settings"},
      {"bench local_storage < baseline < lokup false; > >", "unknown parameter 'lokup' for family 'local_storage'"},
      {"bench local_storage < baseline < nr_maps [1, 2]; > >", "a baseline setting takes one value, not a list"},
      {"bench local_storage < baseline < lookup false; > baseline < gets 1; > >", "a bench has at most one baseline"},
      {"defaults < baseline < lookup false; > >\nbench local_storage < >",
       "'baseline' belongs in a bench, not in defaults"},
      {"bench local_storage < baseline < lookup false; lookup true; > >", "'lookup' is set twice in this baseline"},
  };
  for (const auto &c : cases) {
    Frontend fe;
    CHECK_FALSE(frontend(c.text, fe));
    std::string out = render_all(fe.diags, fe.sources);
    INFO(c.text << "\n" << out);
    CHECK(out.find(c.message) != std::string::npos);
  }
}

TEST_CASE("report latency is accepted for families with hits", "[check][baseline]") {
  Frontend fe;
  CHECK(frontend("bench bpf_loop < report hits, latency; >", fe));
  Frontend bad;
  CHECK_FALSE(frontend("bench bpf_loop < report latncy; >", bad));
}

TEST_CASE("apply_baseline subtracts latency and adds _adj right after it", "[runtime][baseline]") {
  PointResult main, base;
  main.report = {"hits", "latency", "important_hits"};
  main.summary.metrics = {metric("hits", "M/s", 10, 1), metric("latency", "ns/op", 100, 3),
                          metric("important_hits", "M/s", 1, 0)};
  base.summary.metrics = {metric("hits", "M/s", 50, 1), metric("latency", "ns/op", 20, 4)};

  PointResult skipped = base;
  skipped.status = PointResult::Status::Skipped;
  PointResult untouched = main;
  apply_baseline(untouched, skipped);
  CHECK(untouched.report == main.report);

  apply_baseline(main, base);
  CHECK(main.report == std::vector<std::string>{"hits", "latency", "latency_adj", "important_hits"});
  const MetricSummary *adj = main.summary.find("latency_adj");
  REQUIRE(adj);
  CHECK(adj->mean == Approx(80));
  CHECK(adj->stddev == Approx(5));
  CHECK(adj->unit == "ns/op");
  CHECK_FALSE(main.summary.find("hits_adj"));  // rates do not subtract
}

// Expected values computed by hand (mpmath): Welch se = sqrt(sd_m²/n_m + sd_b²/n_b),
// df by Welch–Satterthwaite, half-width = t_{0.975, df} * se.
TEST_CASE("latency_adj has the Welch CI of the difference", "[runtime][baseline]") {
  PointResult main, base;
  main.report = {"latency"};
  main.summary.metrics = {metric("latency", "ns/op", 100, 3, 10)};
  base.summary.metrics = {metric("latency", "ns/op", 20, 4, 5)};
  apply_baseline(main, base);
  const MetricSummary *adj = main.summary.find("latency_adj");
  REQUIRE(adj);
  // se = sqrt(0.9 + 3.2) = 2.024846, df = 6.343396, t = 2.415159: not main's 2.146071.
  CHECK(adj->ci95 == Approx(4.890323).epsilon(1e-5));
  CHECK(adj->cv == Approx(5.0 / 80));

  // Rounds: each side on its round means (main 100, 102, 104; baseline 19, 21), and the
  // difference keeps no round means of its own (they would be main's).
  PointResult rmain, rbase;
  rmain.report = {"latency"};
  rmain.summary.metrics = {metric("latency", "ns/op", 102, 3, 30)};
  rmain.summary.metrics[0].round_means = {100, 102, 104};
  rbase.summary.metrics = {metric("latency", "ns/op", 20, 4, 20)};
  rbase.summary.metrics[0].round_means = {19, 21};
  apply_baseline(rmain, rbase);
  const MetricSummary *radj = rmain.summary.find("latency_adj");
  REQUIRE(radj);
  CHECK(radj->mean == Approx(82));
  // se = sqrt(4/3 + 2/2) = 1.527525, df = 2.882353.
  CHECK(radj->ci95 == Approx(4.975468).epsilon(1e-5));
  CHECK(radj->round_means.empty());

  // A side with one value has no spread: no CI, as for a plain metric.
  PointResult one, onebase;
  one.report = {"latency"};
  one.summary.metrics = {metric("latency", "ns/op", 100, 0, 1)};
  onebase.summary.metrics = {metric("latency", "ns/op", 20, 4, 5)};
  apply_baseline(one, onebase);
  REQUIRE(one.summary.find("latency_adj"));
  CHECK(one.summary.find("latency_adj")->ci95 == 0);
}

TEST_CASE("the seed-study examples pass the front end", "[check][examples]") {
  for (const char *name :
       {"local_storage", "hashmap_full_update", "bpf_loop", "strncmp", "timing", "rcu_tasks_trace"}) {
    Frontend fe;
    FrontendOptions opts;
    opts.nproc = 2;
    std::string path = std::string(BPFBENCH_SOURCE_DIR) + "/examples/" + name + ".bdsl";
    bool ok = run_frontend(path, opts, fe);
    INFO(path << "\n" << render_all(fe.diags, fe.sources));
    CHECK(ok);
    if (!ok) continue;
    CHECK(!fe.plan->points.empty());
    if (std::string(name) == "local_storage") {
      // 5 hashmap + 16 local storage points, each after its baseline.
      CHECK(fe.plan->points.size() == 42);
      for (const auto &p : fe.plan->points) CHECK((p.is_baseline || p.baseline.has_value()));
    }
  }
}
