// Runtime test (root + BPF) of the `getppid` producer, the example of adding a producer
// (docs/families.md, "Kinds"): a family folder next to the .bdsl hooks
// sys_enter_getppid, and every getppid() the producer counts must be one program run.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "run_process.hpp"
#include "temp_dir.hpp"

namespace {

const char *kManifest = R"({
  "family": "getppid_demo",
  "description": "getppid() calls and the tracepoint program that sees them",
  "template": "prog.bpf.c",
  "producer": "getppid",
  "consumer": "none",
  "default_program": "tp",
  "params": [
    { "name": "op_count", "type": "enum", "choices": ["plain", "atomic"], "default": "plain", "dest": "runtime",
      "doc": "how the producer counts each call" }
  ],
  "programs": [
    { "name": "tp", "section": "?tp/syscalls/sys_enter_getppid", "function": "bench_tp", "attach": "auto",
      "requires": ["attach:tracepoint", "prog_type:tracepoint"], "doc": "tracepoint syscalls:sys_enter_getppid" }
  ],
  "metrics": [
    { "name": "hits", "source": "producer", "unit": "M/s", "doc": "getppid() calls per second" },
    { "name": "runs", "source": "counter:bb_runs", "unit": "M/s", "doc": "program runs per second" }
  ],
  "report": ["hits", "runs"],
  "self_checks": [
    { "name": "runs_vs_calls", "expected": ["producer"], "observed": ["counter:bb_runs"],
      "doc": "every getppid() of a producer thread is one run of the program" }
  ]
}
)";

const char *kTemplate = R"(char _license[] SEC("license") = "GPL";

struct bb_counter bb_runs[BB_MAX_CPUS] = {};

SEC("?tp/syscalls/sys_enter_getppid")
int bench_tp(void *ctx)
{
	if ((__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid)
		bb_inc(bb_runs);
	return 0;
}
)";

}  // namespace

TEST_CASE("getppid producer: every call it counts is one run of a sys_enter_getppid program",
          "[runtime][producers][cli]") {
  if (geteuid() != 0) {
    WARN("skipped: runtime tests need root and BPF");
    return;
  }
  bpfbench::test::TempDir dir;
  dir.write("bpf_templates/getppid_demo/family.json", kManifest);
  dir.write("bpf_templates/getppid_demo/prog.bpf.c", kTemplate);
  const std::string bdsl =
      dir.write("g.bdsl", "bench getppid_demo as \"{op_count}\" < op_count [plain, atomic]; producers 2; warmup 0s; "
                          "duration 1s; expect hits > 0; expect runs > 0; >\n");
  const std::string json = dir.path.string() + "/r.json";
  auto r = bpfbench::test::run_process({BPFBENCH_BINARY, "run", "-q", bdsl, "--json", json}, 120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK((r.out + r.err).find("FAILED") == std::string::npos);
  std::ifstream in(json);
  REQUIRE(in);
  const auto doc = nlohmann::json::parse(in);
  REQUIRE(doc.at("points").size() == 2);
  for (const auto &point : doc.at("points")) {
    INFO(point.at("label").get<std::string>());
    CHECK(point.at("status") == "ok");
    // The producer's count and the program's runs, over the whole run: equal.
    REQUIRE(point.at("self_checks").size() == 1);
    CHECK(point.at("self_checks")[0].at("name") == "runs_vs_calls");
    CHECK(point.at("self_checks")[0].at("ok") == true);
    CHECK(point.at("self_checks")[0].at("expected").get<double>() > 0);
  }
}
