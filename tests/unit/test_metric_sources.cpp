// Metric sources: `sum:a+b` counts, the operation count a derived latency
// divides by, and the counter and map names of family.json checked against the compiled
// object (`check --compile`, `run`), located in the manifest.
#include <catch2/catch.hpp>

#include <string>

#include "compiler/family/manifest_json.hpp"
#include "compiler/bpf/object_check.hpp"
#include "compiler/pipeline.hpp"
#include "results/stats.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"

using namespace bpfbench;

namespace {

// A family "fam" whose `metrics` array is `metrics` (parsed in memory; `errors` gets the
// rendered diagnostics).
std::optional<FamilyManifest> load_family(const test::TempDir &d, const std::string &metrics,
                                          const std::string &programs, std::string &errors) {
  d.write("fam/prog.bpf.c", "int bench_x(void *ctx) { return 0; }\nint bench_y(void *ctx) { return 0; }\n");
  std::string json = "{\"family\": \"fam\", \"description\": \"d\", \"template\": \"prog.bpf.c\",\n"
                     "\"programs\": " +
                     programs + ",\n\"metrics\": " + metrics + "}\n";
  SourceManager sources;
  Diagnostics diags;
  auto f = parse_manifest((d.path / "fam" / "family.json").string(), json, sources, diags);
  errors = render_all(diags, sources);
  return f;
}

const char *kOneProgram = R"([{"name": "x", "function": "bench_x", "section": "?raw_tp"}])";

// Interval counts as the sampler takes them: sums added (runtime/point_observers.cpp).
std::vector<Sample> sampled(const std::vector<MetricSpec> &metrics, std::map<std::string, uint64_t> per_second,
                            size_t n = 3) {
  std::vector<Sample> out;
  for (size_t i = 0; i < n; ++i) {
    Sample s;
    s.duration_s = 1.0;
    s.deltas = per_second;
    add_sum_counts(metrics, s.deltas);
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("sum sources are parsed once into their terms", "[manifest][kinds]") {
  auto s = parse_metric_source("sum:hits+misses+drops");
  REQUIRE(s);
  CHECK(s->kind == MetricSourceKind::Sum);
  CHECK(s->terms == std::vector<std::string>{"hits", "misses", "drops"});
  CHECK(s->text() == "sum:hits+misses+drops");
  CHECK(default_report_of(MetricSourceKind::Sum) == MetricReport::Rate);
  for (const char *bad : {"sum", "sum:", "sum:hits", "sum:hits+", "sum:+hits", "sum:a+a", "sum:9x+y", "sum:a/b"}) {
    INFO(bad);
    auto refused = parse_metric_source(bad);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("bad metric source '" + std::string(bad) + "'") == 0);
  }
  auto one = parse_metric_source("sum:hits");
  REQUIRE_FALSE(one);
  CHECK(one.error().message.find("a sum adds two or more metrics") != std::string::npos);
  auto twice = parse_metric_source("sum:hits+hits");
  REQUIRE_FALSE(twice);
  CHECK(twice.error().message.find("metric 'hits' is added twice") != std::string::npos);
}

TEST_CASE("a bad sum is an error at its family.json line and column", "[manifest][locations]") {
  test::TempDir d;
  std::string errors;
  auto f = load_family(d,
                       "[{\"name\": \"hits\", \"source\": \"counter:bb_hits\"},\n"
                       " {\"name\": \"misses\", \"source\": \"counter:bb_misses\"},\n"
                       " {\"name\": \"per_miss\", \"source\": \"ratio:hits/misses\", \"unit\": \"x\"},\n"
                       " {\"name\": \"ops\", \"source\": \"sum:hits+mises\"},\n"
                       " {\"name\": \"odd\", \"source\": \"sum:hits+per_miss\"},\n"
                       " {\"name\": \"one\", \"source\": \"sum:hits\"}]",
                       kOneProgram, errors);
  CHECK_FALSE(f);
  const std::string path = (d.path / "fam" / "family.json").string();
  CHECK(errors.find(path + ":6:38-42: error: metric 'ops': source 'sum:hits+mises' names unknown metric 'mises'\n"
                           " {\"name\": \"ops\", \"source\": \"sum:hits+mises\"},\n") != std::string::npos);
  CHECK(errors.find("hint: did you mean 'misses'?") != std::string::npos);
  CHECK(errors.find(path + ":7:38-45: error: metric 'odd': source 'sum:hits+per_miss' adds metric 'per_miss', "
                           "whose source is ratio: a sum adds counts") != std::string::npos);
  CHECK(errors.find(path + ":8:28-37: error: metric 'one': bad metric source 'sum:hits': a sum adds two or more") !=
        std::string::npos);
}

TEST_CASE("a program may not turn a summed metric into a ratio", "[manifest]") {
  test::TempDir d;
  std::string errors;
  auto f = load_family(d,
                       R"([{"name": "hits", "source": "counter:bb_hits"},
                           {"name": "misses", "source": "counter:bb_misses"},
                           {"name": "ops", "source": "sum:hits+misses"}])",
                       R"([{"name": "x", "function": "bench_x", "section": "?raw_tp"},
                           {"name": "y", "function": "bench_y", "section": "?raw_tp",
                            "metric_sources": {"misses": "ratio:hits/ops"}}])",
                       errors);
  CHECK_FALSE(f);
  CHECK(errors.find("metric 'ops': source 'sum:hits+misses' adds metric 'misses', whose source is ratio in "
                    "program 'y'") != std::string::npos);
}

TEST_CASE("latency is per operation where operations are hits + misses", "[metrics]") {
  test::TempDir d;
  std::string errors;
  auto f = load_family(d,
                       R"([{"name": "hits", "source": "counter:bb_hits"},
                           {"name": "misses", "source": "counter:bb_misses", "total_ops": true},
                           {"name": "ops", "source": "sum:hits+misses", "throughput": true}])",
                       kOneProgram, errors);
  INFO(errors);
  REQUIRE(f);
  CHECK(f->throughput_metric() == f->metric("ops"));
  CHECK(f->derives_latency());
  // 6 M hits + 2 M misses per second on 2 producers: 4 M operations per producer.
  auto s = sampled(f->metrics, {{"hits", 6'000'000}, {"misses", 2'000'000}});
  CHECK(s[0].deltas.at("ops") == 8'000'000);  // a count in the samples like the others
  Summary sum = summarize(s, f->metrics, 2, {"hits", "misses", "latency"});
  CHECK(sum.find("ops")->mean == Approx(8.0));
  CHECK(sum.find("total_ops")->mean == Approx(8.0));
  CHECK(sum.find("latency")->mean == Approx(250.0));  // 1000 / 4, not 1000 / 3 (per hit)
  CHECK(sum.find("latency")->unit == "ns/op");
  CHECK(sum.primary == "hits");

  // No operation counted: no latency, named after the operation count.
  Summary none = summarize(sampled(f->metrics, {{"hits", 0}, {"misses", 0}}), f->metrics, 2, {"latency"});
  CHECK(none.find("latency")->no_value == "no ops counted (latency = 1000 / ops per producer)");
}

TEST_CASE("a family that counts only hits keeps the kernel bench's latency", "[metrics]") {
  test::TempDir d;
  std::string errors;
  auto f = load_family(d, R"([{"name": "hits", "source": "counter:bb_hits"}])", kOneProgram, errors);
  INFO(errors);
  REQUIRE(f);
  Summary sum = summarize(sampled(f->metrics, {{"hits", 6'000'000}}), f->metrics, 2, {"hits", "latency"});
  CHECK(sum.find("latency")->mean == Approx(1000.0 / 3.0));  // 1000 / mean hits per producer
  Summary none = summarize(sampled(f->metrics, {{"hits", 0}}), f->metrics, 2, {"latency"});
  CHECK(none.find("latency")->no_value == "no hits counted (latency = 1000 / hits per producer)");
}

namespace {

// A family whose manifest names a counter and two maps; `counter`, `param_map` and
// `prefill_map` are what it calls them. Its object has bb_calls and the map `array`.
struct NamesFamily {
  test::TempDir d;
  std::string manifest, bdsl;
  NamesFamily(const std::string &counter, const std::string &param_map, const std::string &prefill_map) {
    d.write("bpf_templates/names/prog.bpf.c", "char _license[] SEC(\"license\") = \"GPL\";\n"
                                              "struct {\n"
                                              "\t__uint(type, BPF_MAP_TYPE_HASH);\n"
                                              "\t__uint(max_entries, 16);\n"
                                              "\t__type(key, __u32);\n"
                                              "\t__type(value, __u64);\n"
                                              "} array SEC(\".maps\");\n"
                                              "struct bb_counter bb_calls[BB_MAX_CPUS] = {};\n"
                                              "SEC(\"?raw_tp/sys_enter\")\n"
                                              "int bench_x(void *ctx) { bb_inc(bb_calls); return 0; }\n");
    manifest = d.write("bpf_templates/names/family.json",
                       "{\n"
                       "  \"family\": \"names\", \"description\": \"d\", \"template\": \"prog.bpf.c\",\n"
                       "  \"producer\": \"syscall\",\n"
                       "  \"params\": [{\"name\": \"nr\", \"type\": \"int\", \"default\": 16, \"dest\": \"map_size\",\n"
                       "              \"map\": \"" +
                           param_map +
                           "\"}],\n"
                           "  \"programs\": [{\"name\": \"x\", \"section\": \"?raw_tp/sys_enter\", \"function\": "
                           "\"bench_x\"}],\n"
                           "  \"setup\": [{\"action\": \"prefill\", \"map\": \"" +
                           prefill_map +
                           "\", \"keys\": 4}],\n"
                           "  \"metrics\": [{\"name\": \"calls\", \"source\": \"counter:" +
                           counter + "\"}]\n}\n");
    bdsl = d.write("names.bdsl", "bench names < prog x; >\n");
  }
};

}  // namespace

TEST_CASE("check --compile reports a counter typo at its family.json place", "[manifest][compile][cli]") {
  NamesFamily fam("bb_cals", "array", "array");
  // Plain check compiles nothing: it cannot know.
  auto plain = test::run_process({BPFBENCH_BINARY, "check", fam.bdsl});
  INFO(plain.err);
  CHECK(plain.exit_code == 0);
  // 180 s: under the sanitizer step (SCHED_IDLE, beside the runtime cases, the fuzzers and
  // a qemu guest) this compile took 84 s in a CI run here.
  auto p = test::run_process({BPFBENCH_BINARY, "check", "--compile", fam.bdsl}, 180);
  INFO(p.out << p.err);
  CHECK(p.exit_code == 2);
  CHECK(p.err.find(fam.manifest +
                   ":8:52-58: error: metric 'calls': no counter 'bb_cals' in the compiled object names-0.bpf.c "
                   "(no such global in its .bss)\n"
                   "  \"metrics\": [{\"name\": \"calls\", \"source\": \"counter:bb_cals\"}]\n" +
                   std::string(51, ' ') + "~~~~~~~\n" + "hint: did you mean 'bb_calls'?\n") != std::string::npos);
  CHECK(p.err.find("names.bdsl:") == std::string::npos);  // not at the .bdsl
}

TEST_CASE("check --compile reports map typos of params and setup", "[manifest][compile][cli]") {
  NamesFamily fam("bb_calls", "arary", "aray");
  auto p = test::run_process({BPFBENCH_BINARY, "check", "--compile", fam.bdsl});
  INFO(p.out << p.err);
  CHECK(p.exit_code == 2);
  CHECK(
      p.err.find(fam.manifest + ":5:23-27: error: param 'nr': no map 'arary' in the compiled object names-0.bpf.c\n") !=
      std::string::npos);
  CHECK(p.err.find(fam.manifest +
                   ":7:43-46: error: setup[0] (prefill): no map 'aray' in the compiled object names-0.bpf.c\n") !=
        std::string::npos);
  CHECK(p.err.find("hint: did you mean 'array'?") != std::string::npos);
}

TEST_CASE("names that the object has pass check --compile", "[manifest][compile][cli]") {
  NamesFamily fam("bb_calls", "array", "array");
  auto p = test::run_process({BPFBENCH_BINARY, "check", "--compile", fam.bdsl});
  INFO(p.out << p.err);
  CHECK(p.exit_code == 0);
  CHECK(p.out.find("1 BPF program compiled") != std::string::npos);
}

TEST_CASE("run reports a counter typo in family.json before loading", "[manifest][compile][cli]") {
  NamesFamily fam("bb_cals", "array", "array");
  auto p = test::run_process({BPFBENCH_BINARY, "run", "-q", "-w", "1s", "-d", "1s", fam.bdsl});
  INFO(p.out << p.err);
  CHECK(p.exit_code == 2);
  if (p.err.find("root") != std::string::npos && p.err.find("family.json") == std::string::npos) {
    WARN("skipped: run needs privileges");
    return;
  }
  CHECK(p.err.find(fam.manifest + ":8:52-58: error: metric 'calls': no counter 'bb_cals'") != std::string::npos);
  CHECK(p.out.find("Summary") == std::string::npos);  // nothing ran
}

TEST_CASE("the object's globals and maps are read with their sections", "[compile]") {
  NamesFamily fam("bb_calls", "array", "array");
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  REQUIRE(run_frontend(fam.bdsl, opts, fe));
  CompiledPrograms compiled;
  CHECK(compile_programs(fe, compiled));
  INFO(render_all(fe.diags, fe.sources));
  REQUIRE(compiled.objects.count(0));
  auto globals = read_object_globals(compiled.objects.at(0));
  INFO((globals ? "" : globals.error().message));
  REQUIRE(globals);
  CHECK(globals->at("bb_calls") == ".bss");
  CHECK(globals->at("array") == ".maps");
  CHECK_FALSE(globals->count("bench_x"));  // functions are not data
  auto junk = read_object_globals({1, 2, 3});
  REQUIRE_FALSE(junk);
  CHECK_FALSE(junk.error().message.empty());
}

TEST_CASE("a counter a program overrides is not required of its object", "[manifest][compile][cli]") {
  test::TempDir d;
  d.write("bpf_templates/ovr/prog.bpf.c", "char _license[] SEC(\"license\") = \"GPL\";\n"
                                          "struct bb_counter bb_calls[BB_MAX_CPUS] = {};\n"
                                          "SEC(\"?raw_tp/sys_enter\")\n"
                                          "int bench_x(void *ctx) { bb_inc(bb_calls); return 0; }\n");
  std::string manifest =
      d.write("bpf_templates/ovr/family.json",
              "{\"family\": \"ovr\", \"description\": \"d\", \"template\": \"prog.bpf.c\", \"producer\": \"syscall\",\n"
              " \"programs\": [{\"name\": \"x\", \"section\": \"?raw_tp/sys_enter\", \"function\": \"bench_x\"},\n"
              "              {\"name\": \"y\", \"section\": \"?raw_tp/sys_enter\", \"function\": \"bench_x\",\n"
              "               \"metric_sources\": {\"calls\": \"producer\"}}],\n"
              " \"metrics\": [{\"name\": \"calls\", \"source\": \"counter:bb_cals\"}]}\n");
  // Program y counts calls itself: its points never read bb_cals.
  auto y = test::run_process({BPFBENCH_BINARY, "check", "--compile", d.write("y.bdsl", "bench ovr < prog y; >\n")});
  INFO(y.out << y.err);
  CHECK(y.exit_code == 0);
  auto x = test::run_process({BPFBENCH_BINARY, "check", "--compile", d.write("x.bdsl", "bench ovr < prog x; >\n")});
  INFO(x.out << x.err);
  CHECK(x.exit_code == 2);
  CHECK(x.err.find(manifest + ":5:51-57: error: metric 'calls': no counter 'bb_cals'") != std::string::npos);
}

TEST_CASE("a counter in .data and a per_cpu typo are located", "[manifest][compile][cli]") {
  test::TempDir d;
  d.write("bpf_templates/dat/prog.bpf.c", "char _license[] SEC(\"license\") = \"GPL\";\n"
                                          "struct bb_counter bb_calls[BB_MAX_CPUS] = { { 1 } };\n"
                                          "struct bb_counter bb_ops[BB_MAX_CPUS] = {};\n"
                                          "struct bb_counter bb_ns[BB_MAX_CPUS] = {};\n"
                                          "SEC(\"?raw_tp/sys_enter\")\n"
                                          "int bench_x(void *ctx) { bb_inc(bb_calls); bb_inc(bb_ops); "
                                          "bb_inc(bb_ns); return 0; }\n");
  std::string manifest =
      d.write("bpf_templates/dat/family.json",
              "{\"family\": \"dat\", \"description\": \"d\", \"template\": \"prog.bpf.c\", \"producer\": \"syscall\",\n"
              " \"programs\": [{\"name\": \"x\", \"section\": \"?raw_tp/sys_enter\", \"function\": \"bench_x\"}],\n"
              " \"per_cpu\": {\"ops\": \"bb_opz\", \"ns\": \"bb_ns\", \"line\": \"{cpu}: {rate}\"},\n"
              " \"metrics\": [{\"name\": \"calls\", \"source\": \"counter:bb_calls\"}]}\n");
  auto p = test::run_process({BPFBENCH_BINARY, "check", "--compile", d.write("dat.bdsl", "bench dat < >\n")});
  INFO(p.out << p.err);
  CHECK(p.exit_code == 2);
  CHECK(p.err.find(manifest + ":4:51-58: error: metric 'calls': counter 'bb_calls' is in .data, not .bss") !=
        std::string::npos);
  CHECK(p.err.find(manifest + ":3:22-27: error: per_cpu: no counter 'bb_opz'") != std::string::npos);
  CHECK(p.err.find("hint: did you mean 'bb_ops'?") != std::string::npos);
  CHECK(p.err.find("hint: its .bss") == std::string::npos);  // bb_calls is there, elsewhere
}

TEST_CASE("cgroup_memory sources are levels in their unit, peak a high-water mark", "[manifest][kinds][metrics]") {
  for (const char *ok : {"cgroup_memory:current", "cgroup_memory:peak"}) {
    auto s = parse_metric_source(ok);
    REQUIRE(s);
    CHECK(s->kind == MetricSourceKind::CgroupMemory);
    CHECK(s->text() == ok);
  }
  for (const char *bad : {"cgroup_memory", "cgroup_memory:", "cgroup_memory:max", "cgroup_memory:current/peak"}) {
    INFO(bad);
    CHECK_FALSE(parse_metric_source(bad));
  }
  CHECK(default_report_of(MetricSourceKind::CgroupMemory) == MetricReport::AsIs);
  CHECK(level_unit_scale(MetricSourceKind::CgroupMemory, "MiB") == 1048576.0);
  CHECK(level_unit_scale(MetricSourceKind::CgroupMemory, "MB") == 0.0);
  CHECK(level_unit_scale(MetricSourceKind::BatchTiming, "ns/op") == 1000.0);

  test::TempDir d;
  std::string errors;
  auto f = load_family(d,
                       R"([{"name": "hits", "source": "counter:bb_hits"},
                           {"name": "memory", "source": "cgroup_memory:current", "unit": "MiB"},
                           {"name": "peak", "source": "cgroup_memory:peak", "unit": "KiB"}])",
                       kOneProgram, errors);
  INFO(errors);
  REQUIRE(f);
  // Levels are read at each interval's end: the values are bytes there, never per second.
  std::vector<Sample> s(3);
  const uint64_t mib = 1048576;
  uint64_t current[] = {3 * mib, 5 * mib, 4 * mib}, peak[] = {6 * mib, 6 * mib, 7 * mib};
  for (size_t i = 0; i < s.size(); ++i) {
    s[i].duration_s = 0.5;  // not a rate: a half-second interval changes nothing
    s[i].deltas = {{"hits", 1000}, {"memory", current[i]}, {"peak", peak[i]}};
  }
  Summary sum = summarize(s, f->metrics, 2, {"hits", "memory", "peak"});
  const MetricSummary *m = sum.find("memory");
  REQUIRE(m);
  CHECK(m->unit == "MiB");
  CHECK(m->mean == Approx(4.0));
  CHECK(m->stddev == Approx(1.0));
  const MetricSummary *p = sum.find("peak");
  REQUIRE(p);
  CHECK(p->unit == "KiB");
  CHECK(p->mean == Approx(7.0 * 1024));  // the last reading, not the mean of the readings
  CHECK(p->stddev == 0);
  CHECK(p->values.size() == 3);
  CHECK(sum.find("total_ops")->mean == Approx(1000 / 1e6 / 0.5));  // levels are no operations
}

TEST_CASE("a memory level that is a rate, a throughput or in an unknown unit is refused", "[manifest][locations]") {
  test::TempDir d;
  const std::string path = (d.path / "fam" / "family.json").string();
  struct Bad {
    const char *metric, *message;
  } bads[] = {
      {R"({"name": "mem", "source": "cgroup_memory:current", "unit": "MB"})",
       "the unit of a memory level is one of B, KiB, MiB, GiB (metric 'mem')"},
      {R"({"name": "mem", "source": "cgroup_memory:current", "unit": "MiB", "reported": "rate"})",
       "a memory level is reported as it is, not as a rate (metric 'mem')"},
      {R"({"name": "mem", "source": "cgroup_memory:peak", "unit": "MiB", "throughput": true})",
       "a memory level cannot be the throughput (metric 'mem')"},
      {R"({"name": "mem", "source": "cgroup_memory:peak", "unit": "MiB", "total_ops": true})",
       "a memory level does not count in total_ops (metric 'mem')"},
  };
  for (const Bad &b : bads) {
    std::string errors;
    auto f = load_family(d, std::string("[{\"name\": \"hits\", \"source\": \"counter:bb_hits\"},\n ") + b.metric + "]",
                         kOneProgram, errors);
    INFO(errors);
    CHECK_FALSE(f);
    CHECK(errors.find(path + ":4:") != std::string::npos);  // the level metric's line
    CHECK(errors.find(b.message) != std::string::npos);
  }
}
