// The bpfbench binary on good and hostile input: exit codes, messages, no crashes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_paths.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using bpfbench::test::ProcessResult;
using bpfbench::test::run_process;

namespace {

using bpfbench::test::kBin;
using bpfbench::test::kSrc;

using bpfbench::test::TempDir;

ProcessResult run_bpfbench(std::vector<std::string> args) {
  args.insert(args.begin(), kBin);
  return run_process(args, 120);
}

// A crash, an uncaught exception or an abort would show in one of these.
void require_clean_failure(const ProcessResult &r) {
  INFO("stderr: " << r.err.substr(0, 2000));
  CHECK(r.signal == 0);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("terminate called") == std::string::npos);
  CHECK(r.err.find("what()") == std::string::npos);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.err.find("error") != std::string::npos);
}

}  // namespace

TEST_CASE("check accepts the card's example and warns about its 3000 points", "[cli]") {
  auto r = run_bpfbench({"check", kSrc + "/tests/cases/ok_card_example.bdsl"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("ok, 3000 points") != std::string::npos);
  CHECK(r.err.find("warning: bench 'ringbuf' expands to 3000 points") != std::string::npos);
}

TEST_CASE("check reports a located error with source line, underline and hint, exit 2", "[cli]") {
  TempDir d;
  auto f = d.write("t.bdsl", "bench ringbuf < smaple_rate 5 >\n");
  auto r = run_bpfbench({"check", f});
  CHECK(r.exit_code == 2);
  CHECK(r.err == f + ":1:17-27: error: unknown parameter 'smaple_rate' for family 'ringbuf'\n"
                     "bench ringbuf < smaple_rate 5 >\n"
                     "                ~~~~~~~~~~~\n"
                     "hint: did you mean 'sample_rate'?\n");
}

TEST_CASE("hostile inputs give a located error and exit 2, never a crash", "[cli]") {
  TempDir d;
  std::string binary;
  for (int i = 0; i < 4096; ++i) binary.push_back(static_cast<char>((i * 7919) & 0xff));
  std::string nested = "bench ringbuf < batch " + std::string(100000, '[') + " >";
  std::string long_line = "bench ringbuf < batch 1; " + std::string(1 << 20, 'x') + " >";
  std::string deep_let = "let a = " + std::string(100000, '[') + "1" + std::string(100000, ']') + ";";
  d.write("self.bdsl", "include \"self.bdsl\";\n");
  std::vector<std::pair<std::string, std::string>> inputs = {
      {"binary.bdsl", binary},
      {"nested.bdsl", nested},
      {"longline.bdsl", long_line},
      {"deeplet.bdsl", deep_let},
      {"nul.bdsl", std::string("bench ringbuf <\0 >", 18)},
      {"unterminated.bdsl", "bench ringbuf as \"abc"},
      {"open.bdsl", "suite \"s\" < bench ringbuf < batch 1"},
      {"latin1.bdsl", "bench ringbuf as \"\xe9\xff\" < batch \xe9 >"},
  };
  for (const auto &[name, text] : inputs) {
    DYNAMIC_SECTION(name) {
      auto r = run_bpfbench({"check", d.write(name, text)});
      require_clean_failure(r);
      CHECK(r.err.find(name + ":") != std::string::npos);  // located
    }
  }
  SECTION("recursive include") {
    auto r = run_bpfbench({"check", (d.path / "self.bdsl").string()});
    require_clean_failure(r);
    CHECK(r.err.find("recursive include") != std::string::npos);
  }
  SECTION("missing file") {
    auto r = run_bpfbench({"check", (d.path / "nope.bdsl").string()});
    require_clean_failure(r);
  }
}

TEST_CASE("bad command lines exit 2 with CLI11's message", "[cli]") {
  require_clean_failure(run_bpfbench({"frobnicate"}));
  require_clean_failure(run_bpfbench({"check"}));
  require_clean_failure(run_bpfbench({"check", kSrc + "/tests/cases/ok_units.bdsl", "-p", "0"}));
  require_clean_failure(run_bpfbench({"check", kSrc + "/tests/cases/ok_units.bdsl", "--prod-affinity", "3-1"}));
  CHECK(run_bpfbench({"--help"}).exit_code == 0);
}

TEST_CASE("plan --json lists every point with resolved params", "[cli]") {
  auto r = run_bpfbench({"plan", "--json", "-d", "3s", kSrc + "/tests/cases/ok_all_forms.bdsl"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["points"].size() == 16);
  CHECK(j["points"][0]["label"] == "rb-1-65536");
  CHECK(j["points"][0]["params"]["ring_size"] == 65536);
  CHECK(j["points"][0]["duration_ns"] == 3'000'000'000LL);  // -d overrides the file
  CHECK(j["points"][0]["suite"] == "Ringbuf back-to-back, effect of sample rate");
}

TEST_CASE("plan shows the expectations and inline code and baseline of each point", "[cli]") {
  const std::string file = kSrc + "/tests/cases/ok_expect_code.bdsl";
  auto text = run_bpfbench({"plan", file});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("expect(latency < 10us)"));
  CHECK_THAT(text.out, Catch::Contains("code:globals(163 bytes) code:body(34 bytes)"));
  auto r = run_bpfbench({"plan", "--json", file});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  const auto &p0 = j["points"][0];
  REQUIRE(p0["expect"].size() == 2);
  CHECK(p0["expect"][1]["metric"] == "latency");
  CHECK(p0["expect"][1]["op"] == "<");
  CHECK(p0["expect"][1]["value"] == 10000.0);  // ns/op
  REQUIRE(p0["code"].size() == 2);
  CHECK(p0["code"][1]["hook"] == "body");
  CHECK(p0["code"][1]["text"] == " if (BB_ODD(bb_tgid)) { /* } */ } ");
  CHECK_FALSE(j["points"][2].contains("code"));

  auto ls = nlohmann::json::parse(run_bpfbench({"plan", "--json", kSrc + "/examples/local_storage.bdsl"}).out);
  CHECK(ls["points"][0]["is_baseline"] == true);
  CHECK(ls["points"][1]["baseline"] == 0);
}

TEST_CASE("emit prints C for the card's example, and check --compile compiles it", "[cli][compile]") {
  auto e = run_bpfbench({"emit", kSrc + "/tests/cases/ok_card_example.bdsl"});
  REQUIRE(e.exit_code == 0);
  CHECK(e.out.find("SEC(\"?tp/syscalls/sys_enter_getpgid\")") != std::string::npos);
  CHECK(e.out.find("#line") != std::string::npos);
  auto c = run_bpfbench({"check", "--compile", kSrc + "/tests/cases/ok_card_example.bdsl"});
  INFO(c.err);
  CHECK(c.exit_code == 0);
  CHECK(c.out.find("1 BPF program compiled") != std::string::npos);
}

TEST_CASE("dump=ast prints the AST as JSON", "[cli]") {
  auto r = run_bpfbench({"check", "--dump", "ast", kSrc + "/tests/cases/ok_units.bdsl"});
  REQUIRE(r.exit_code == 0);
  auto json_end = r.out.rfind('}');
  auto j = nlohmann::json::parse(r.out.substr(0, json_end + 1));
  CHECK(j["items"][0]["bench"] == "ringbuf");
}

TEST_CASE("list shows the families read from their manifests", "[cli]") {
  auto r = run_bpfbench({"list", "--json"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  bool ringbuf = false;
  for (const auto &f : j)
    if (f["family"] == "ringbuf") {
      ringbuf = true;
      CHECK(f["params"].size() >= 5);
    }
  CHECK(ringbuf);
}
