// family.json `setup` and `per_cpu`: what the loader accepts and how it names mistakes.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "compiler/family/manifest_json.hpp"
#include "compiler/bdsl/source.hpp"

using namespace bpfbench;
namespace fs = std::filesystem;

namespace {

constexpr const char *kProgramX = R"({"name": "x", "function": "bench_x", "section": "?raw_tp", "attach": "test_run"})";

// A manifest of family "fam" with `extra` JSON members and the one program `program`,
// parsed from a scratch folder.
std::optional<FamilyManifest> load(const std::string &extra, std::string &errors,
                                   const std::string &program = kProgramX) {
  std::string tmpl = (fs::temp_directory_path() / "bpfbench-setup-XXXXXX").string();
  fs::path dir = fs::path(mkdtemp(tmpl.data())) / "fam";
  fs::create_directories(dir);
  std::ofstream(dir / "prog.bpf.c") << "int bench_x(void *ctx) { return 0; }\n";
  std::string json = R"({"family": "fam", "description": "d", "template": "prog.bpf.c",
    "params": [{"name": "n", "type": "int", "default": 3, "dest": "runtime"},
               {"name": "on", "type": "bool", "dest": "rodata"}],
    "programs": [)" + program +
                     "]";
  json += extra + "}";
  Diagnostics diags;
  SourceManager sources;
  auto f = parse_manifest((dir / "family.json").string(), json, sources, diags);
  errors = render_all(diags, sources);
  fs::remove_all(dir.parent_path());
  return f;
}

}  // namespace

TEST_CASE("setup actions and per_cpu load with their arguments", "[manifest][setup]") {
  std::string errors;
  auto f = load(R"(, "setup": [{"action": "inner_maps", "outer": "aom", "count": "n", "prefill": "max_entries"},
                               {"action": "prefill", "map": "h", "keys": 1000},
                               {"action": "fork", "count": 2},
                               {"action": "run_program", "program": "bench_x", "expect": "n"}],
                    "per_cpu": {"ops": "a", "ns": "b", "line": "{cpu}: {rate}"})",
                errors);
  INFO(errors);
  REQUIRE(f);
  REQUIRE(f->setup.size() == 4);
  CHECK(f->setup[3].action == SetupActionKind::RunProgram);
  CHECK(f->setup[3].args.at("program") == "bench_x");
  CHECK(f->setup[3].args.at("expect") == "n");
  CHECK(f->setup[0].action == SetupActionKind::InnerMaps);
  CHECK(f->setup[0].args.at("count") == "n");
  CHECK(f->setup[0].args.at("prefill") == "max_entries");
  CHECK(f->setup[1].args.at("keys") == "1000");
  CHECK(f->per_cpu.enabled());
  CHECK(f->per_cpu.ns == "b");
}

TEST_CASE("calibrate_batch loads for a program that times batches", "[manifest][setup]") {
  const std::string setup = R"(, "setup": [{"action": "fork", "count": 1}, {"action": "calibrate_batch"}])";
  std::string errors;
  CHECK_FALSE(load(setup, errors));  // x times no batches
  auto f =
      load(setup, errors,
           R"({"name": "x", "function": "bench_x", "section": "?raw_tp", "attach": "test_run", "batch_timing": true})");
  INFO(errors);
  REQUIRE(f);
  REQUIRE(f->setup.size() == 2);
  CHECK(f->setup[1].action == SetupActionKind::CalibrateBatch);
  CHECK(f->setup[1].args.empty());
}

TEST_CASE("socket_pairs and sockmap load with their sockets", "[manifest][setup]") {
  std::string errors;
  auto f = load(R"(, "setup": [{"action": "socket_pairs", "count": 2, "send": "c1", "receive": "c2"},
                               {"action": "sockmap", "map": "m", "program": "bench_x", "sockets": ["p1", "p2"]}])",
                errors);
  INFO(errors);
  REQUIRE(f);
  REQUIRE(f->setup.size() == 2);
  CHECK(f->setup[0].action == SetupActionKind::SocketPairs);
  CHECK(f->setup[0].args.at("send") == "c1");
  CHECK(f->setup[0].args.at("receive") == "c2");
  CHECK(f->setup[1].action == SetupActionKind::Sockmap);
  CHECK(f->setup[1].args.at("sockets") == "p1,p2");
  for (const char *good : {"c1", "p2", "c10", "p99"}) CHECK(is_socket_name(good));
  for (const char *bad : {"c0", "p", "x1", "c1a", "c100", "C1", ""}) CHECK_FALSE(is_socket_name(bad));
}

TEST_CASE("setup mistakes are manifest errors", "[manifest][setup]") {
  struct Case {
    const char *extra, *message;
  };
  const Case cases[] = {
      {R"(, "setup": [{"action": "inner_map", "outer": "a", "count": 1}])",
       "setup[0]: unknown action 'inner_map' (did you mean 'inner_maps'?)"},
      {R"(, "setup": [{"action": "prefill", "map": "h", "kyes": 3}])",
       "setup[0] (prefill): unknown key 'kyes' (did you mean 'keys'?)"},
      {R"(, "setup": [{"action": "prefill", "map": "h"}])", "setup[0] (prefill): missing required key 'keys'"},
      {R"(, "setup": [{"action": "fork", "count": "m"}])",
       "setup[0] (fork): 'count' names unknown param 'm' (did you mean 'n'?)"},
      {R"(, "setup": [{"action": "fork", "count": "on"}])", "'count' param 'on' must be int or size"},
      {R"(, "setup": [{"action": "fork", "count": -1}])", "'count' must not be negative"},
      {R"(, "setup": [{"action": "prefill", "map": "not a map", "keys": 1}])", "'map' must be a map name"},
      {R"(, "per_cpu": {"ops": "a", "ns": "b", "line": "no rate"})", "per_cpu: 'line' must contain {rate} or {mean_m}"},
      {R"(, "per_cpu": {"ops": "a", "ns": "b", "line": "{cpu}: {rate} {mean}"})",
       "per_cpu: 'line' has an unknown field '{mean}' (known: {cpu}, {cpu02}, {rate}, {mean_m}, {spread_m}, {samples}, "
       "{sample_ms})"},
      {R"(, "per_cpu": {"ops": "a", "ns": "b", "line": "{rate}", "total": "no"})",
       "per_cpu: 'total' must be true or false"},
      {R"(, "setup": [{"action": "run_program", "program": "bench_y", "expect": "n"}])",
       "setup[0] (run_program): 'program' 'bench_y' is not defined in template "},
      {R"(, "setup": [{"action": "run_program", "program": "bench_x", "expects": 1}])",
       "setup[0] (run_program): unknown key 'expects' (did you mean 'expect'?)"},
      // Typos name the nearest key of that object.
      {R"(, "per_cpu": {"opps": "a", "ns": "b", "line": "{rate}"})",
       "per_cpu: unknown key 'opps' (did you mean 'ops'?)"},
      {R"(, "per_cpu": {"zzz": "a"})", "per_cpu: unknown key 'zzz' (allowed keys: ops, ns, line, total)"},
      {R"(, "hooks": [{"name": "body", "dco": "x"}])", "hooks[0]: unknown key 'dco' (did you mean 'doc'?)"},
      // Sockets are named c<k> / p<k>, k from 1.
      {R"(, "setup": [{"action": "socket_pairs", "count": 2, "send": "c0"}])",
       "setup[0] (socket_pairs): 'send' must be a socket name of socket_pairs (c<k> or p<k>, k from 1)"},
      {R"(, "setup": [{"action": "sockmap", "map": "m", "program": "bench_x", "sockets": ["p1", "q2"]}])",
       "setup[0] (sockmap): 'sockets' must be a non-empty array, each a socket name"},
      {R"(, "setup": [{"action": "sockmap", "map": "m", "program": "bench_x", "sockets": []}])",
       "setup[0] (sockmap): 'sockets' must be a non-empty array"},
      {R"(, "setup": [{"action": "sockmap", "map": "m", "program": "bench_x"}])",
       "setup[0] (sockmap): missing required key 'sockets'"},
      {R"(, "setup": [{"action": "socket_pair", "count": 1}])",
       "setup[0]: unknown action 'socket_pair' (did you mean 'socket_pairs'?)"},
      // calibrate_batch sizes the batches of a program that times them; x times none.
      {R"(, "setup": [{"action": "calibrate_batch"}])",
       "setup action 'calibrate_batch' applies to program 'x', which times no batches"},
      {R"(, "setup": [{"action": "calibrate_batch", "iters": 5}])", "setup[0] (calibrate_batch): unknown key 'iters'"},
      {R"(, "setup": [{"action": "calibrate_bach"}])",
       "setup[0]: unknown action 'calibrate_bach' (did you mean 'calibrate_batch'?)"},
  };
  for (const auto &c : cases) {
    std::string errors;
    auto f = load(c.extra, errors);
    INFO(c.extra << "\n" << errors);
    CHECK_FALSE(f);
    CHECK(errors.find(c.message) != std::string::npos);
  }
}
