// Address params and enum `presets` (family.json): the manifest's rules, with each error at
// its place, and how a chosen preset fills the params a .bdsl leaves unset.
#include <catch2/catch.hpp>

#include "compiler/family/address.hpp"
#include "compiler/pipeline.hpp"
#include "temp_dir.hpp"

using namespace bpfbench;

namespace {

// A family `fam` with a scenario enum presetting an address, an int and a bool.
std::string family_json(const std::string &presets, const std::string &extra_params = "") {
  return R"({ "family": "fam", "description": "d", "template": "prog.bpf.c", "params": [
    { "name": "scenario", "type": "enum", "choices": ["a-one", "b-two", "plain"], "default": "a-one", "dest": "runtime",
      "presets": )" +
         presets + R"( },
    { "name": "src", "type": "address", "default": "10.0.0.1", "dest": "runtime" },
    { "name": "len", "type": "int", "default": 64, "min": 42, "max": 1500, "dest": "runtime" },
    { "name": "syn", "type": "bool", "dest": "runtime" })" +
         extra_params + R"(
  ],
  "programs": [{ "name": "x", "section": "?raw_tp/sys_enter", "function": "bench_x" }],
  "metrics": [{ "name": "hits", "source": "counter:bb_hits" }] })";
}

const char *kPresets = R"({ "a-one": { "src": "fd00::1", "len": 90, "syn": true },
                            "b-two": { "src": "10.10.2.1" } })";

struct Files : test::TempDir {
  explicit Files(const std::string &fam) {
    write("bpf_templates/fam/family.json", fam);
    write("bpf_templates/fam/prog.bpf.c", "int bench_x(void *ctx) { return 0; }\n");
  }
  // Runs the front end on `bdsl` next to the family; the rendered diagnostics, "" when none.
  std::string front(const std::string &bdsl, Frontend &fe) {
    const std::string file = write("t.bdsl", bdsl);
    FrontendOptions opts;
    opts.nproc = 2;
    run_frontend(file, opts, fe);
    return render_all(fe.diags, fe.sources);
  }
};

std::string value(const PlanPoint &p, const std::string &n) {
  const ParamValue *v = p.param(n);
  REQUIRE(v);
  return v->to_string();
}

}  // namespace

TEST_CASE("addresses: IPv4, IPv6 and MAC text, nothing else", "[presets]") {
  auto v4 = parse_address("10.10.2.1");
  REQUIRE(v4);
  CHECK(v4->kind == Address::Kind::Ipv4);
  CHECK(v4->size() == 4);
  CHECK(v4->bytes[0] == 10);
  CHECK(v4->bytes[3] == 1);
  auto v6 = parse_address("fd00:200::1");
  REQUIRE(v6);
  CHECK(v6->kind == Address::Kind::Ipv6);
  CHECK(v6->bytes[0] == 0xfd);
  CHECK(v6->bytes[2] == 0x02);
  CHECK(v6->bytes[15] == 1);
  auto mac = parse_address("de:ad:BE:ef:00:01");
  REQUIRE(mac);
  CHECK(mac->kind == Address::Kind::Mac);
  CHECK(mac->bytes[2] == 0xbe);
  for (const char *bad : {"", "10.0.0", "10.0.0.256", "fd00:::1", "de:ad:be:ef:00", "de-ad-be-ef-00-01", "2:0:0:0:0:1"})
    CHECK_FALSE(parse_address(bad));
  auto x = parse_address("x");
  REQUIRE_FALSE(x);
  CHECK(x.error().message ==
        "'x' is not an address (an IPv4 address like 10.0.0.1, an IPv6 address like fd00::1, or a MAC like "
        "02:00:00:00:00:01)");
}

TEST_CASE("an address param takes strings that parse, at the value's place", "[presets]") {
  Files f(family_json(kPresets));
  Frontend ok;
  CHECK(f.front("bench fam < scenario plain; src \"fd00::9\" >", ok) == "");
  REQUIRE(ok.plan);
  CHECK(value(ok.plan->points[0], "src") == "fd00::9");
  Frontend bad;
  std::string out = f.front("bench fam < src \"10.0.0.300\" >", bad);
  CHECK(out.find("t.bdsl:1:17-28: error: bad address for 'src': '10.0.0.300' is not an address") != std::string::npos);
  Frontend ident;
  out = f.front("bench fam < src local >", ident);
  CHECK(out.find("expected an address for 'src', got identifier 'local'") != std::string::npos);
  CHECK(out.find("hint: write addresses as strings") != std::string::npos);
}

TEST_CASE("a preset fills what the file leaves unset, the file and defaults blocks win", "[presets]") {
  Files f(family_json(kPresets));
  Frontend fe;
  REQUIRE(f.front("bench fam as \"{scenario}\" < scenario [a-one, b-two, plain] >\n"
                  "bench fam as \"set-{scenario}\" < scenario a-one; len 100 >",
                  fe) == "");
  const auto &pts = fe.plan->points;
  REQUIRE(pts.size() == 4);
  CHECK(value(pts[0], "src") == "fd00::1");  // a-one's preset
  CHECK(value(pts[0], "len") == "90");
  CHECK(value(pts[0], "syn") == "1");
  CHECK(value(pts[1], "src") == "10.10.2.1");  // b-two presets only src
  CHECK(value(pts[1], "len") == "64");
  CHECK(value(pts[1], "syn") == "0");
  CHECK(value(pts[2], "src") == "10.0.0.1");  // no preset: the defaults
  CHECK(value(pts[3], "len") == "100");       // written in the bench
  CHECK(value(pts[3], "src") == "fd00::1");
  Frontend d;
  REQUIRE(f.front("defaults < len 200; >\nbench fam < scenario a-one >", d) == "");
  CHECK(value(d.plan->points[0], "len") == "200");
  CHECK(value(d.plan->points[0], "src") == "fd00::1");
}

TEST_CASE("the default choice's preset applies too", "[presets]") {
  Files f(family_json(kPresets));
  Frontend fe;
  REQUIRE(f.front("bench fam < duration 1s >", fe) == "");
  CHECK(value(fe.plan->points[0], "src") == "fd00::1");
}

TEST_CASE("presets: each mistake is an error at its place in the manifest", "[presets]") {
  struct Case {
    const char *presets, *extra, *message;
  } cases[] = {
      {R"({ "a-onw": { "len": 80 } })", "", "param 'scenario': preset for unknown choice 'a-onw'"},
      {R"({ "a-one": { "lne": 80 } })", "", "param 'scenario': preset 'a-one': unknown param 'lne'"},
      {R"({ "a-one": { "len": 20 } })", "", "preset 'a-one': 'len': 20 is below the 42 minimum"},
      {R"({ "a-one": { "src": "fd00::x" } })", "", "preset 'a-one': 'src': 'fd00::x' is not an address"},
      {R"({ "a-one": { "syn": 1 } })", "", "'syn': 'syn' is a bool: write true or false"},
      {R"({ "a-one": { "scenario": "b-two" } })", "", "'scenario' cannot be preset"},
      {R"({ "a-one": [] })", "", "a preset must be an object of param values, got array"},
      {R"({ "a-one": { "mode": "fast" } })",
       R"(, { "name": "mode", "type": "enum", "choices": ["slow"], "default": "slow", "dest": "runtime" })",
       "'mode': 'fast' is not one of mode's choices (slow)"},
  };
  for (const auto &c : cases) {
    Files f(family_json(c.presets, c.extra));
    Frontend fe;
    std::string out = f.front("bench fam < duration 1s >", fe);
    INFO(c.presets << "\n" << out);
    CHECK(out.find("family.json:") != std::string::npos);
    CHECK(out.find(c.message) != std::string::npos);
  }
  Files on_int(R"({ "family": "fam", "description": "d", "template": "prog.bpf.c", "params": [
    { "name": "n", "type": "int", "default": 1, "dest": "runtime", "presets": {} } ],
    "programs": [{ "name": "x", "section": "?raw_tp/sys_enter", "function": "bench_x" }] })");
  Frontend fe;
  CHECK(on_int.front("bench fam < duration 1s >", fe).find("'presets' applies only to enum params") !=
        std::string::npos);
}

TEST_CASE("choice_docs: a line per choice, checked like presets", "[presets]") {
  auto fam = [](const std::string &docs) {
    return R"({ "family": "fam", "description": "d", "template": "prog.bpf.c", "params": [
      { "name": "mode", "type": "enum", "choices": ["fast", "slow"], "default": "fast", "dest": "runtime",
        "choice_docs": )" +
           docs + R"( } ],
      "programs": [{ "name": "x", "section": "?raw_tp/sys_enter", "function": "bench_x" }] })";
  };
  Files ok(fam(R"({ "fast": "the quick one" })"));
  Frontend fe;
  REQUIRE(ok.front("bench fam < duration 1s >", fe) == "");
  const ParamSpec *mode = fe.families.find("fam")->param("mode");
  REQUIRE(mode);
  CHECK(mode->choice_docs.at("fast") == "the quick one");
  CHECK(mode->choice_docs.count("slow") == 0);
  for (auto [docs, message] : {std::pair{R"({ "fsat": "x" })", "param 'mode': doc for unknown choice 'fsat'"},
                               std::pair{R"({ "fast": 1 })", "param 'mode': the doc of choice 'fast' must be a string"},
                               std::pair{R"([])", "'choice_docs' must be an object of strings"}}) {
    Files f(fam(docs));
    Frontend bad;
    std::string out = f.front("bench fam < duration 1s >", bad);
    INFO(out);
    CHECK(out.find(message) != std::string::npos);
  }
}
