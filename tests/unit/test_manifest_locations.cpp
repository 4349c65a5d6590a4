// family.json problems at their line and column, rendered like .bdsl diagnostics; the
// kind tables and the positions the SAX pass records.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "compiler/family/json_locations.hpp"
#include "compiler/family/kinds.hpp"
#include "compiler/family/manifest_json.hpp"

using namespace bpfbench;

namespace {

const std::string kManifests = BPFBENCH_SOURCE_DIR "/tests/fixtures/manifests/";

struct LocatedLoad {
  std::string path, rendered;
  bool ok = false;
};

// Reads fixture `name`'s family.json as FamilyRegistry::load does and renders its errors.
LocatedLoad load_fixture(const std::string &name) {
  LocatedLoad out;
  out.path = kManifests + name + "/family.json";
  std::ifstream in(out.path);
  std::ostringstream ss;
  ss << in.rdbuf();
  SourceManager sources;
  sources.add("other.bdsl", "bench x < >\n");  // the manifest is not always file 0
  Diagnostics diags;
  out.ok = parse_manifest(out.path, ss.str(), sources, diags).has_value();
  out.rendered = render_all(diags, sources);
  return out;
}

}  // namespace

TEST_CASE("a misspelt manifest key is shown at its line with the nearest key", "[manifest][locations]") {
  LocatedLoad l = load_fixture("key_typo");
  CHECK_FALSE(l.ok);
  CHECK(l.rendered == l.path + ":8:7-13: error: param 'lookups': unknown key 'ctype'\n"
                               "      \"ctype\": \"__u32\" }\n"
                               "      ~~~~~~~\n"
                               "hint: did you mean 'c_type'?\n");
}

TEST_CASE("unknown kinds and ratio operands are shown at their values", "[manifest][locations]") {
  LocatedLoad l = load_fixture("bad_kinds");
  CHECK_FALSE(l.ok);
  CHECK(l.rendered ==
        l.path +
            ":7:75-83: error: program 'x': unknown attach 'uprobes' (expected auto, uprobe, uretprobe, "
            "uprobe_multi, uretprobe_multi, usdt, cgroup, test_run or none)\n"
            "    { \"name\": \"x\", \"section\": \"?uprobe\", \"function\": \"bench_x\", \"attach\": \"uprobes\",\n"
            "                                                                          ~~~~~~~~~\n"
            "hint: did you mean 'uprobe'?\n" +
            l.path +
            ":12:37-55: error: metric 'per_miss': source 'ratio:hits/misses' names unknown metric 'misses'\n"
            "    { \"name\": \"per_miss\", \"source\": \"ratio:hits/misses\", \"unit\": \"x\" }\n"
            "                                    ~~~~~~~~~~~~~~~~~~~\n");
}

TEST_CASE("invalid JSON in a manifest is shown at the offending byte", "[manifest][locations]") {
  LocatedLoad l = load_fixture("bad_json");
  CHECK_FALSE(l.ok);
  CHECK(l.rendered == l.path + ":7:3: error: invalid JSON: syntax error while parsing value - unexpected ']'; "
                               "expected '[', '{', or a literal\n"
                               "  ]\n"
                               "  ~\n");
}

TEST_CASE("a manifest without problems is not added to the sources", "[manifest][locations]") {
  SourceManager sources;
  Diagnostics diags;
  std::ifstream in(BPFBENCH_SOURCE_DIR "/bpf_templates/trigger/family.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  REQUIRE(parse_manifest(BPFBENCH_SOURCE_DIR "/bpf_templates/trigger/family.json", text, sources, diags));
  CHECK(sources.size() == 0);  // a .bdsl added next stays file 0 (its hash is read from there)
}

TEST_CASE("JSON positions: keys, strings with escapes, numbers at the end, comments", "[manifest][locations]") {
  const std::string text = "{ /* c */ \"a\\\"b\": [1, \"x\\\\\"],\n  // note\n  \"n\": -12.5e3 }";
  nlohmann::json root = nlohmann::json::parse(text, nullptr, true, true);
  JsonLocations at = JsonLocations::build(text, root, 3);
  SourceRange key = at.key(root, "a\"b");
  CHECK(key.file == 3);
  CHECK(key.line == 1);
  CHECK(key.col == 11);
  CHECK(key.end_col == 16);  // "a\"b" with its quotes
  const auto &arr = root["a\"b"];
  CHECK(at.value(arr).col == 19);
  CHECK(at.value(arr[0]).col == 20);
  CHECK(at.value(arr[0]).end_col == 20);
  CHECK(at.value(arr[1]).col == 23);
  CHECK(at.value(arr[1]).end_col == 27);  // "x\\" ends at its real closing quote
  SourceRange n = at.value(root["n"]);
  CHECK(n.line == 3);
  CHECK(n.col == 8);
  CHECK(n.end_col == 14);
  CHECK(at.key(root, "n").col == 3);
  CHECK(at.key(root, "missing").col == 1);  // falls back to the object
  nlohmann::json other = 1;
  CHECK_FALSE(at.value(other).valid());
}

TEST_CASE("every kind has one row, and names round-trip", "[manifest][kinds]") {
  for (const auto &i : kind_table<ProducerKind>()) CHECK(parse_kind<ProducerKind>(i.name) == i.kind);
  for (const auto &i : kind_table<ConsumerKind>()) CHECK(parse_kind<ConsumerKind>(i.name) == i.kind);
  for (const auto &i : kind_table<AttachKind>()) CHECK(parse_kind<AttachKind>(i.name) == i.kind);
  for (const auto &i : kind_table<SetupActionKind>()) CHECK(parse_kind<SetupActionKind>(i.name) == i.kind);
  CHECK(kind_names<ProducerKind>() == std::vector<std::string>{"syscall", "test_run", "uprobe_nop", "uprobe_push",
                                                               "uprobe_ret", "uprobe_nop5", "usdt_nop", "usdt_nop5",
                                                               "count_global", "count_local", "rename", "socket_create",
                                                               "thread_create", "getsockopt", "syscall_pair",
                                                               "sendfile", "map_churn", "getppid", "none"});
  CHECK(kind_names<ConsumerKind>() == std::vector<std::string>{"none", "ringbuf", "perfbuf", "socket"});
  CHECK(kind_names<AttachKind>() == std::vector<std::string>{"auto", "uprobe", "uretprobe", "uprobe_multi",
                                                             "uretprobe_multi", "usdt", "cgroup", "test_run", "none"});
  CHECK(kind_names<SetupActionKind>() == std::vector<std::string>{"calibrate_batch", "fork", "inner_maps", "prefill", "run_program",
                                                                  "socket_pairs", "sockmap"});
  CHECK(std::string(kind_name(ProducerKind::UprobeRet)) == "uprobe_ret");
  CHECK_FALSE(parse_kind<ProducerKind>("sycall"));
}

TEST_CASE("metric sources are parsed once into kind and operands", "[manifest][kinds]") {
  auto c = parse_metric_source("counter:bb_hits");
  REQUIRE(c);
  CHECK(c->kind == MetricSourceKind::Counter);
  CHECK(c->operand == "bb_hits");
  auto r = parse_metric_source("ratio:gp_us/gp");
  REQUIRE(r);
  CHECK(r->kind == MetricSourceKind::Ratio);
  CHECK(r->operand == "gp_us");
  CHECK(r->denominator == "gp");
  CHECK(r->text() == "ratio:gp_us/gp");
  auto k = parse_metric_source("kthread_stime:rcu_tasks_trace_kthread");
  REQUIRE(k);
  CHECK(k->operand == "rcu_tasks_trace_kthread");
  CHECK(parse_metric_source("consumer")->kind == MetricSourceKind::Consumer);
  for (const char *bad : {"counter:", "counter:9x", "producer:x", "ratio:ab", "counter", "hits", ""}) {
    INFO(bad);
    auto refused = parse_metric_source(bad);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("bad metric source") == 0);
  }
  CHECK(default_report_of(MetricSourceKind::Ratio) == MetricReport::AsIs);
  CHECK(default_report_of(MetricSourceKind::KthreadStime) == MetricReport::AsIs);
  CHECK(default_report_of(MetricSourceKind::Counter) == MetricReport::Rate);
}

TEST_CASE("a deeply nested document is located near the top, quickly", "[manifest][locations]") {
  const size_t depth = 100000;
  std::string text = "{\"a\": " + std::string(depth, '[') + std::string(depth, ']') + "}";
  nlohmann::json root = nlohmann::json::parse(text);
  JsonLocations at = JsonLocations::build(text, root, 0);
  CHECK(at.key(root, "a").col == 2);
  CHECK(at.value(root["a"]).col == 7);
}
