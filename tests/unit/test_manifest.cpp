// FamilyRegistry::load: the shipped families, and every kind of malformed manifest.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/family/manifest.hpp"
#include "temp_dir.hpp"

using namespace bpfbench;
namespace fs = std::filesystem;

namespace {

// A scratch template dir (test::TempDir) that writes families.
struct FamilyDir : test::TempDir {
  std::string dir() const { return path.string(); }
  // Writes <dir>/<family>/family.json and a template defining bench_x().
  std::string family(const std::string &name, const std::string &json,
                     const std::string &tpl = "int bench_x(void *ctx) { return 0; }\n") const {
    write(name + "/prog.bpf.c", tpl);
    return write(name + "/family.json", json);
  }
};

// A valid manifest with `params`, `programs`, `metrics` swapped in.
std::string
manifest(const std::string &params = "[]",
         const std::string &programs = R"([{ "name": "x", "section": "?raw_tp/sys_enter", "function": "bench_x" }])",
         const std::string &metrics = R"([{ "name": "hits", "source": "counter:bb_hits" }])",
         const std::string &extra = "") {
  return R"({ "family": "fam", "description": "d", "template": "prog.bpf.c", )" + extra + R"( "params": )" + params +
         R"(, "programs": )" + programs + R"(, "metrics": )" + metrics + "}";
}

std::string param(const std::string &body) { return "[{ \"name\": \"p\", " + body + " }]"; }

// Loads one family from `json` and returns the single error message (or "" if none).
std::string load_error(const std::string &json, std::string *path_out = nullptr, std::string *hint = nullptr,
                       uint32_t line = 0, uint32_t col = 0) {
  FamilyDir dir;
  std::string path = dir.family("fam", json);
  if (path_out) *path_out = path;
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load({dir.dir()}, sources, diags);
  if (!diags.has_errors()) return "";
  CHECK(reg.find("fam") == nullptr);
  const Diagnostic &d = diags.all().front();
  // Located in the manifest, which the renderer then shows by its path.
  REQUIRE(d.range.valid());
  REQUIRE(d.range.file < sources.size());
  CHECK(sources.file(d.range.file).path == path);
  if (line) CHECK(d.range.line == line);
  if (col) CHECK(d.range.col == col);
  if (hint) *hint = d.hints.empty() ? "" : d.hints.front();
  return d.message;
}

}  // namespace

TEST_CASE("the shipped ringbuf family loads", "[manifest]") {
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load({BPFBENCH_SOURCE_DIR "/bpf_templates"}, sources, diags);
  for (const auto &d : diags.all()) INFO(d.message);
  REQUIRE_FALSE(diags.has_errors());
  CHECK(reg.include_dir() == BPFBENCH_SOURCE_DIR "/bpf_templates/include");

  const FamilyManifest *f = reg.find("ringbuf");
  REQUIRE(f);
  CHECK(f->template_path == BPFBENCH_SOURCE_DIR "/bpf_templates/ringbuf/prog.bpf.c");
  CHECK(f->template_text.find("bench_reserve_commit") != std::string::npos);
  CHECK(f->producer == ProducerKind::Syscall);
  CHECK(f->consumer == ConsumerKind::Ringbuf);
  CHECK(f->default_program == "reserve_commit");

  const ParamSpec *batch = f->param("batch");
  REQUIRE(batch);
  CHECK(batch->type == ParamType::Int);
  CHECK(batch->dest == ParamDest::Rodata);
  CHECK(batch->c_type == "__u32");
  CHECK(batch->default_value == ParamValue{true, 500, {}});
  CHECK(batch->min == 1);

  const ParamSpec *ring = f->param("ring_size");
  REQUIRE(ring);
  CHECK(ring->dest == ParamDest::MapSize);
  CHECK(ring->map == "ringbuf");
  CHECK(ring->power_of_two);
  CHECK(ring->default_value.i == 512 * 1024);
  CHECK(ring->min == 4096);
  CHECK(ring->max == int64_t{1} << 30);

  const ParamSpec *consumer = f->param("consumer");
  REQUIRE(consumer);
  CHECK(consumer->type == ParamType::Enum);
  CHECK(consumer->choices == std::vector<std::string>{"libbpf", "custom"});
  CHECK(consumer->default_value == ParamValue{false, 0, "libbpf"});
  const ParamSpec *sampled = f->param("sampled");
  REQUIRE(sampled);
  CHECK(sampled->type == ParamType::Bool);
  CHECK(sampled->max == 1);
  CHECK(f->param("sample_rate"));
  CHECK(f->param("back2back"));
  CHECK(f->param("trigger"));
  CHECK(f->param("nope") == nullptr);

  REQUIRE(f->program("reserve_commit"));
  CHECK(f->program("reserve_commit")->function == "bench_reserve_commit");
  CHECK(f->program("reserve_commit")->section == "?tp/syscalls/sys_enter_getpgid");
  REQUIRE(f->program("perfbuf"));
  CHECK(f->program("perfbuf")->consumer == ConsumerKind::Perfbuf);
  CHECK(f->program("output"));
  REQUIRE(f->metric("drops"));
  CHECK(f->metric("drops")->source == MetricSource{MetricSourceKind::Counter, "bb_drops", "", {}});
  CHECK(f->default_report == std::vector<std::string>{"hits", "drops"});
}

TEST_CASE("every shipped family loads without errors", "[manifest]") {
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load(default_template_dirs(), sources, diags);
  for (const auto &d : diags.all()) INFO(d.message);
  CHECK_FALSE(diags.has_errors());
  CHECK_FALSE(reg.names().empty());
}

TEST_CASE("a manifest with defaults and units", "[manifest]") {
  FamilyDir dir;
  dir.family("fam", manifest(R"([
    { "name": "sz", "type": "size", "default": "4M", "min": "4K", "max": "1G", "dest": "map_size", "map": "m" },
    { "name": "d", "type": "duration", "default": "250ms", "dest": "runtime" },
    { "name": "b", "type": "bool", "dest": "rodata", "c_type": "__u8" },
    { "name": "n", "type": "int", "default": "2K", "dest": "rodata", "c_type": "__s32" },
    { "name": "cpus", "type": "cpuset", "default": "0-1", "dest": "runtime" }
  ])"));
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load({dir.dir()}, sources, diags);
  for (const auto &d : diags.all()) INFO(d.message);
  REQUIRE_FALSE(diags.has_errors());
  const FamilyManifest *f = reg.find("fam");
  REQUIRE(f);
  CHECK(f->param("sz")->default_value.i == 4 << 20);
  CHECK(f->param("sz")->min == 4096);
  CHECK(f->param("d")->default_value.i == 250000000);
  CHECK(f->param("b")->default_value == ParamValue{true, 0, {}});
  CHECK(f->param("n")->default_value.i == 2000);
  // An absent max is clamped to what the C type holds.
  CHECK(f->param("n")->max == INT32_MAX);
  CHECK(f->param("cpus")->default_value.s == "0-1");
  CHECK(f->default_program == "x");  // the first program when not given
  CHECK(f->default_report == std::vector<std::string>{"hits"});
  CHECK(f->program("x")->attach == AttachKind::Auto);
  CHECK(f->dir == fs::path(dir.dir()).lexically_normal().string() + "/fam");
  CHECK(reg.include_dir().empty());
}

TEST_CASE("malformed manifests name the file and the problem", "[manifest]") {
  std::string hint;
  SECTION("bad JSON reports line and column") {
    // The place is the diagnostic's range (rendered path:3:18), not words in the message.
    CHECK(load_error("{\n  \"family\": \"fam\",\n  \"description\": }\n", nullptr, nullptr, 3, 18) ==
          "invalid JSON: syntax error while parsing value - unexpected '}'; "
          "expected '[', '{', or a literal");
  }
  SECTION("not an object") { CHECK(load_error("[1, 2]") == "the manifest must be a JSON object, got array"); }
  SECTION("nested too deep, or a number JSON cannot hold: located, no exception text") {
    CHECK(load_error("{\"family\": \"fam\", \"description\": " + std::string(300'000, '[') + "}", nullptr, nullptr, 1,
                     97) == "nested deeper than 64 levels");
    // Was "cannot read manifest: [json.exception.out_of_range.406] number overflow …".
    // Located at the number itself (column 24).
    CHECK(load_error("{\"family\": \"fam\", \"x\": 1e999}", nullptr, nullptr, 1, 24) ==
          "invalid JSON: number overflow parsing '1e999'");
  }
  SECTION("missing required key") {
    CHECK(load_error(R"({ "family": "fam", "description": "d", "programs": [] })") ==
          "missing required key 'template'");
    CHECK(load_error(manifest(param(R"("dest": "rodata", "default": 1)"))) == "param 'p': missing required key 'type'");
    CHECK(load_error(manifest(param(R"("type": "int", "dest": "rodata")"))) ==
          "param 'p': missing required key 'default'");
  }
  SECTION("unknown keys are typos") {
    CHECK(load_error(manifest(param(R"("type": "int", "dest": "rodata", "defualt": 1)")), nullptr, &hint) ==
          "param 'p': unknown key 'defualt'");
    CHECK(hint == "did you mean 'default'?");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "section": "s", "function": "bench_x", "atach": "auto" }])"),
                     nullptr, &hint) == "program 'x': unknown key 'atach'");
    CHECK(hint == "did you mean 'attach'?");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }])", "[]", R"("zzzzzz": 1,)"), nullptr,
                     &hint) == "unknown key 'zzzzzz'");
    CHECK(hint.rfind("allowed keys: family, description", 0) == 0);
  }
  SECTION("wrong types") {
    CHECK(load_error(manifest("{}")) == "'params' must be an array, got object");
    CHECK(load_error(manifest(param(R"("type": "int", "dest": "rodata", "default": 1, "min": true)"))) ==
          "param 'p': 'min' must be a number or a string like \"512K\", got boolean");
    CHECK(load_error(manifest(param(R"("type": "int", "dest": "rodata", "default": 1.5)"))) ==
          "param 'p': 'default' must be an integer, got number");
    CHECK(load_error(manifest(param(R"("type": "bool", "dest": "rodata", "default": "yes")"))) ==
          "param 'p': 'default' must be true or false, got string");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none", "requires": "helper:x" }])")) ==
          "program 'x': 'requires' must be an array of strings, got string");
    CHECK(load_error(manifest("[42]")) == "params[0] must be an object, got number");
  }
  SECTION("unknown type, dest, attach, producer, consumer") {
    CHECK(load_error(manifest(param(R"("type": "integer", "dest": "rodata", "default": 1)"))) ==
          "param 'p': unknown type 'integer' (expected int, size, duration, bool, enum, cpuset or address)");
    CHECK(load_error(manifest(param(R"("type": "int", "dest": "rodta", "default": 1)")), nullptr, &hint) ==
          "param 'p': unknown dest 'rodta' (expected rodata, map_size, map_extra, template or runtime)");
    CHECK(hint == "did you mean 'rodata'?");
    CHECK(
        load_error(manifest("[]", R"([{ "name": "x", "section": "s", "function": "bench_x", "attach": "kprobe" }])")) ==
        "program 'x': unknown attach 'kprobe' (expected auto, uprobe, uretprobe, uprobe_multi, uretprobe_multi, usdt, "
        "cgroup, test_run or none)");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none", "producer": "fork" }])")) ==
          "program 'x': unknown producer 'fork' (expected syscall, test_run, uprobe_nop, uprobe_push, "
          "uprobe_ret, uprobe_nop5, usdt_nop, usdt_nop5, count_global, count_local, rename, socket_create, "
          "thread_create, getsockopt, syscall_pair, sendfile, map_churn, getppid or none)");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }])", "[]", R"("producer": "sycall",)"),
                     nullptr, &hint)
              .rfind("unknown producer 'sycall'", 0) == 0);
    CHECK(hint == "did you mean 'syscall'?");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }])", "[]", R"("consumer": "epoll",)")) ==
          "unknown consumer 'epoll' (expected none, ringbuf, perfbuf or socket)");
  }
  SECTION("defaults must fit") {
    CHECK(load_error(manifest(param(R"("type": "int", "dest": "rodata", "default": 0, "min": 1, "max": 100)"))) ==
          "param 'p': default 0 is below the 1 minimum");
    CHECK(load_error(manifest(param(R"("type": "size", "dest": "runtime", "default": "2M", "max": "1M")"))) ==
          "param 'p': default 2M is above the 1M maximum");
    CHECK(load_error(manifest(param(R"("type": "int", "dest": "rodata", "c_type": "__u8", "default": 300)"))) ==
          "param 'p': default 300 is above the 255 maximum");
    CHECK(load_error(manifest(param(R"("type": "size", "dest": "runtime", "default": 3000, "power_of_two": true)"))) ==
          "param 'p': default 3000 is not a power of two");
    CHECK(load_error(manifest(param(R"("type": "int", "dest": "runtime", "default": 5, "min": 10, "max": 1)"))) ==
          "param 'p': min 10 is greater than max 1");
    CHECK(load_error(manifest(param(R"("type": "enum", "choices": ["a", "b"], "default": "c", "dest": "runtime")"))) ==
          "param 'p': default 'c' is not one of its choices (a, b)");
    CHECK(load_error(manifest(param(R"("type": "enum", "default": "c", "dest": "runtime")"))) ==
          "param 'p': an enum param needs a non-empty 'choices' list");
    CHECK(load_error(manifest(param(R"("type": "size", "dest": "runtime", "default": "5ms")"))) ==
          "param 'p': bad 'default': unit 'ms' does not apply to a size (use K, M or G)");
    CHECK(load_error(manifest(param(R"("type": "cpuset", "dest": "runtime", "default": "3-1")")))
              .rfind("param 'p': bad default CPU set '3-1'", 0) == 0);
  }
  SECTION("keys that do not fit the type or dest") {
    const std::pair<const char *, const char *> cases[] = {
        {R"("type": "bool", "dest": "runtime", "min": 0)",
         "param 'p': 'min' applies only to int, size and duration params"},
        {R"("type": "int", "dest": "runtime", "default": 1, "c_type": "__u32")",
         "param 'p': 'c_type' applies only to rodata params"},
        {R"("type": "int", "dest": "rodata", "default": 1, "c_type": "u32")",
         "param 'p': unknown c_type 'u32' (expected __u8, __u16, __u32, __u64, __s8, __s16, __s32 or __s64)"},
        {R"("type": "size", "dest": "map_size", "default": 4096)",
         "param 'p': missing required key 'map' (the map whose size it sets)"},
        {R"("type": "int", "dest": "map_extra", "default": 3)",
         "param 'p': missing required key 'map' (the map whose map_extra it sets)"},
        {R"("type": "size", "dest": "map_extra", "map": "m", "default": 4096)",
         "param 'p': a map_extra param must be int"},
        {R"("type": "int", "dest": "rodata", "map": "m", "default": 1)",
         "param 'p': 'map' applies only to map_size and map_extra params"},
        {R"("type": "enum", "choices": ["a"], "default": "a", "dest": "rodata")",
         "param 'p': a rodata param must be int, size, duration or bool (it becomes a C integer)"},
    };
    for (const auto &[keys, message] : cases) {
      INFO(keys);
      CHECK(load_error(manifest(param(keys))) == message);
    }
  }
  SECTION("names") {
    CHECK(load_error(manifest(R"([{ "name": "duration", "type": "int", "dest": "runtime", "default": 1 }])")) ==
          "param 'duration': param name 'duration' is reserved (a builtin setting)");
    CHECK(load_error(manifest(R"([{ "name": "bb_x", "type": "int", "dest": "runtime", "default": 1 }])")) ==
          "param 'bb_x': param names starting with 'bb_' are reserved for bpfbench globals");
    CHECK(load_error(R"({ "family": "other", "description": "d", "template": "prog.bpf.c",
                          "programs": [{ "name": "x", "attach": "none" }] })") ==
          "family 'other' must be in a folder of the same name, not 'fam'");
  }
  SECTION("duplicates") {
    CHECK(load_error(manifest(R"([{ "name": "p", "type": "bool", "dest": "runtime" },
                                   { "name": "p", "type": "bool", "dest": "runtime" }])")) == "duplicate param 'p'");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }, { "name": "x", "attach": "none" }])")) ==
          "duplicate program 'x'");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }])",
                              R"([{ "name": "m", "source": "producer" }, { "name": "m", "source": "producer" }])")) ==
          "duplicate metric 'm'");
  }
  SECTION("programs and metrics refer to real things") {
    std::string path;
    std::string msg = load_error(
        manifest("[]", R"([{ "name": "x", "section": "?raw_tp/sys_enter", "function": "bench_y" }])"), &path);
    CHECK(msg == "program 'x': function 'bench_y' is not defined in template " + fs::path(path).parent_path().string() +
                     "/prog.bpf.c");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "function": "bench_x" }])")) ==
          "program 'x': attach 'auto' needs both 'function' and 'section'");
    CHECK(load_error(manifest(
              "[]", R"([{ "name": "x", "section": "?uprobe", "function": "bench_x", "attach": "uprobe" }])")) ==
          "program 'x': attach 'uprobe' needs a 'target' function");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none", "requires": ["cpu:avx"] }])")) ==
          "program 'x': bad requirement 'cpu:avx' (expected <kind>:<name>, kind one of prog_type, attach, "
          "helper or kfunc)");
    CHECK(load_error(
              manifest("[]", R"([{ "name": "x", "attach": "none", "metric_sources": { "hitz": "producer" } }])")) ==
          "program 'x': metric_sources names unknown metric 'hitz'");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }])",
                              R"([{ "name": "m", "source": "counters:x" }])")) ==
          "metric 'm': bad metric source 'counters:x' (expected counter:<var>, producer, consumer, "
          "ratio:<a>/<b>, sum:<a>+<b>[+...], kthread_stime:<comm>, cgroup_memory:current|peak or "
          "batch_timing:<stat>)");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }])",
                              R"([{ "name": "m", "source": "ratio:m/q" }])")) ==
          "metric 'm': source 'ratio:m/q' names unknown metric 'q'");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }])", "[]", R"("default_program": "y",)")) ==
          "default_program 'y' is not one of its programs (x)");
    CHECK(load_error(manifest("[]", R"([{ "name": "x", "attach": "none" }])", "[]", R"("report": ["hits"],)")) ==
          "report names unknown metric 'hits'");
    CHECK(load_error(manifest("[]", "[]")) == "'programs' must list at least one program");
  }
  SECTION("a missing template") {
    FamilyDir dir;
    dir.family("fam", manifest());
    fs::remove(fs::path(dir.dir()) / "fam" / "prog.bpf.c");
    SourceManager sources;
    Diagnostics diags;
    FamilyRegistry::load({dir.dir()}, sources, diags);
    REQUIRE(diags.has_errors());
    // At the "template" value (the renderer shows the manifest's path).
    CHECK(diags.all().front().message.rfind("cannot read template '", 0) == 0);
    CHECK(diags.all().front().range.line == 1);
  }
}

TEST_CASE("a family in two template dirs: the first dir's is used, the other shadowed with a note", "[manifest]") {
  FamilyDir a, b;
  std::string pa = a.family("fam", manifest());
  // Not read: a broken copy further down the path is no error.
  std::string pb = b.family("fam", "{ not json");
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load(std::vector<TemplateDir>{{a.dir(), "--templates"}, {b.dir(), "shipped"}},
                                            sources, diags);
  CHECK_FALSE(diags.has_errors());
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all().front().severity == Severity::Note);
  const std::string fa = fs::path(pa).parent_path().string(), fb = fs::path(pb).parent_path().string();
  CHECK(diags.all().front().message ==
        "family 'fam' is taken from " + fa + " (--templates); it shadows " + fb + " (shipped)");
  REQUIRE(reg.find("fam"));
  CHECK(reg.find("fam")->dir == fa);
  CHECK(reg.find("fam")->origin == "--templates");
  REQUIRE(reg.shadowed().size() == 1);
  CHECK(reg.shadowed()[0].name == "fam");
  CHECK(reg.shadowed()[0].dir == fb);
  CHECK(reg.shadowed()[0].origin == "shipped");
  CHECK(reg.shadowed()[0].used_dir == fa);
  // In the other order the other one is used.
  Diagnostics d2;
  FamilyRegistry other = FamilyRegistry::load({b.dir(), a.dir()}, sources, d2);
  CHECK(d2.has_errors());  // b's is read now, and it is not JSON
  CHECK(other.find("fam") == nullptr);
}

TEST_CASE("the shared header of the first template dir that has one is used, later ones shadowed",
          "[manifest][template_path]") {
  FamilyDir a, b;
  a.write("include/bpfbench_shared.h", "// a's header\n");
  b.write("include/bpfbench_shared.h", "// b's header\n");
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load(std::vector<TemplateDir>{{a.dir(), "--templates"}, {b.dir(), "shipped"}},
                                            sources, diags);
  CHECK(reg.shared_header_text() == "// a's header\n");
  CHECK(reg.shared_header_path() == a.dir() + "/include/bpfbench_shared.h");
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all().front().severity == Severity::Note);
  CHECK(diags.all().front().message == "the shared header is taken from " + a.dir() +
                                           "/include/bpfbench_shared.h (--templates); it shadows " + b.dir() +
                                           "/include/bpfbench_shared.h (shipped)");
}

TEST_CASE("a missing template dir is a warning", "[manifest]") {
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load({"/nonexistent/bpfbench-dir"}, sources, diags);
  CHECK_FALSE(diags.has_errors());
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all().front().severity == Severity::Warning);
  CHECK(reg.names().empty());
}

TEST_CASE("default_template_dirs puts BPFBENCH_TEMPLATE_PATH before the shipped dir", "[manifest]") {
  const char *old = getenv("BPFBENCH_TEMPLATE_PATH");
  std::string saved = old ? old : "";
  setenv("BPFBENCH_TEMPLATE_PATH", "/a:/b::/c", 1);
  CHECK(default_template_dirs() == std::vector<std::string>{"/a", "/b", "/c", BPFBENCH_TEMPLATE_DIR});
  setenv("BPFBENCH_TEMPLATE_PATH", "", 1);
  CHECK(default_template_dirs() == std::vector<std::string>{BPFBENCH_TEMPLATE_DIR});
  unsetenv("BPFBENCH_TEMPLATE_PATH");
  CHECK(default_template_dirs() == std::vector<std::string>{BPFBENCH_TEMPLATE_DIR});
  if (old) setenv("BPFBENCH_TEMPLATE_PATH", saved.c_str(), 1);
}

TEST_CASE("ParamValue ordering and names", "[manifest]") {
  ParamValue a{true, 1, {}}, b{true, 2, {}}, s{false, 0, "x"}, t{false, 0, "y"};
  CHECK(a < b);
  CHECK_FALSE(b < a);
  CHECK_FALSE(a < a);
  CHECK(s < t);
  CHECK(((s < a) != (a < s)));
  CHECK(std::string(to_string(ParamType::Duration)) == "duration");
  CHECK(std::string(to_string(ParamType::Cpuset)) == "cpuset");
  CHECK(std::string(to_string(ParamDest::MapSize)) == "map_size");
  CHECK(std::string(to_string(ParamDest::MapExtra)) == "map_extra");
  CHECK(std::string(to_string(ParamDest::Template)) == "template");
}
