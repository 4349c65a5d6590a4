// The family search path, first first: --templates, bpf_templates/ next to the .bdsl,
// $BPFBENCH_TEMPLATE_PATH, shipped. A family is taken from the first folder that has it and
// shadows the rest of its name, with a note naming both; `list` shows origins and shadows.
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "compiler/pipeline.hpp"
#include "compiler/family/template_path.hpp"
#include "run_process.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;

namespace {

struct TempTree {
  fs::path root;
  TempTree() {
    char tmpl[] = "/tmp/bpfbench-tpath-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    root = tmpl;
  }
  ~TempTree() { fs::remove_all(root); }
  std::string write(const std::string &rel, const std::string &text) const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel, std::ios::binary) << text;
    return (root / rel).string();
  }
};

// Restores $BPFBENCH_TEMPLATE_PATH when the test ends.
struct EnvGuard {
  std::string saved;
  bool had;
  EnvGuard() {
    const char *v = getenv("BPFBENCH_TEMPLATE_PATH");
    had = v != nullptr;
    if (v) saved = v;
  }
  ~EnvGuard() {
    if (had) setenv("BPFBENCH_TEMPLATE_PATH", saved.c_str(), 1);
    else unsetenv("BPFBENCH_TEMPLATE_PATH");
  }
};

const char *kManifest = R"({
  "family": "NAME", "description": "a family written for a test", "template": "prog.bpf.c",
  "producer": "syscall",
  "programs": [ { "name": "p", "section": "?tp/syscalls/sys_enter_getpgid", "function": "bench_p" } ],
  "metrics": [ { "name": "hits", "source": "counter:bb_hits", "unit": "M/s" } ]
})";
const char *kTemplate =
    "char _license[] SEC(\"license\") = \"GPL\";\n"
    "struct bb_counter bb_hits[BB_MAX_CPUS] = {};\n"
    "SEC(\"?tp/syscalls/sys_enter_getpgid\")\nint bench_p(void *ctx) { bb_inc(bb_hits); return 0; }\n";

void write_family(const TempTree &t, const std::string &dir, const std::string &name) {
  std::string m = kManifest;
  m.replace(m.find("NAME"), 4, name);
  t.write(dir + "/" + name + "/family.json", m);
  t.write(dir + "/" + name + "/prog.bpf.c", kTemplate);
}

}  // namespace

TEST_CASE("the search path, first first: --templates, next to the file, env, shipped, each once", "[template_path]") {
  EnvGuard env;
  TempTree t;
  fs::create_directories(t.root / "env1");
  fs::create_directories(t.root / "proj/bpf_templates");
  std::string bdsl = t.write("proj/x.bdsl", "");
  setenv("BPFBENCH_TEMPLATE_PATH", ((t.root / "env1").string() + "::" + (t.root / "env2").string()).c_str(), 1);
  auto dirs = template_search_path({(t.root / "cli").string(), (t.root / "env2").string()}, bdsl);
  REQUIRE(dirs.size() == 5);
  CHECK(dirs[0].path == (t.root / "cli").string());
  CHECK(dirs[0].origin == "--templates");
  CHECK(dirs[1].path == (t.root / "env2").string());  // reached twice: listed once, at its first place
  CHECK(dirs[1].origin == "--templates");
  CHECK(dirs[2].path == (t.root / "proj/bpf_templates").string());
  CHECK(dirs[2].origin == "next to " + bdsl);
  CHECK(dirs[3].path == (t.root / "env1").string());
  CHECK(dirs[3].origin == "BPFBENCH_TEMPLATE_PATH");
  CHECK(dirs[4].path == BPFBENCH_TEMPLATE_DIR);
  CHECK(dirs[4].origin == "shipped");
  CHECK(default_template_dirs() ==
        std::vector<std::string>{(t.root / "env1").string(), (t.root / "env2").string(), BPFBENCH_TEMPLATE_DIR});
  REQUIRE(shipped_template_path().size() == 1);  // what the calibration point uses: never a user's copy
  CHECK(shipped_template_path()[0].path == BPFBENCH_TEMPLATE_DIR);

  // No bpf_templates/ next to the file: nothing added for it.
  std::string other = t.write("x.bdsl", "");
  CHECK(template_search_path({}, other).size() == 3);
}

TEST_CASE("a family written next to the .bdsl loads with the shipped ones", "[template_path]") {
  TempTree t;
  write_family(t, "proj/bpf_templates", "mine");
  std::string bdsl = t.write("proj/b.bdsl", "bench mine < expect hits > 0; >\nbench trigger < prog tp >\n");
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  bool ok = run_frontend(bdsl, opts, fe);
  INFO(render_all(fe.diags, fe.sources));
  REQUIRE(ok);
  REQUIRE(fe.plan->points.size() == 2);
  CHECK(fe.plan->points[0].family == "mine");
  CHECK(fe.families.find("mine")->dir == fs::weakly_canonical(t.root / "proj/bpf_templates/mine").string());
}

TEST_CASE("an unknown family says where families of your own are found", "[template_path]") {
  TempTree t;
  std::string bdsl = t.write("b.bdsl", "bench mine < >\n");
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  CHECK_FALSE(run_frontend(bdsl, opts, fe));
  std::string text = render_all(fe.diags, fe.sources);
  INFO(text);
  CHECK(text.find(bdsl + ":1:7-10: error: unknown benchmark family 'mine'") != std::string::npos);
  CHECK(text.find("hint: families of your own are found in a directory given with --templates DIR, in the "
                  "directories of $BPFBENCH_TEMPLATE_PATH") != std::string::npos);
}

TEST_CASE("a --templates family shadows the shipped one of its name, with a note naming both", "[template_path]") {
  TempTree t;
  write_family(t, "extra", "trigger");  // its only program is `p`; the shipped trigger has no `p`
  std::string bdsl = t.write("b.bdsl", "bench trigger < prog p >\n");
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  opts.extra_template_dirs = {(t.root / "extra").string()};
  bool ok = run_frontend(bdsl, opts, fe);
  std::string text = render_all(fe.diags, fe.sources);
  INFO(text);
  REQUIRE(ok);
  CHECK(fe.plan->points.at(0).program == "p");
  CHECK(fe.families.find("trigger")->dir == (t.root / "extra/trigger").string());
  CHECK(text == "note: family 'trigger' is taken from " + (t.root / "extra/trigger").string() +
                    " (--templates); it shadows " + BPFBENCH_TEMPLATE_DIR + "/trigger (shipped)\n");
}

TEST_CASE("two folders of the user with one family: --templates, then next to the file, then the env",
          "[template_path]") {
  EnvGuard env;
  TempTree t;
  for (const char *dir : {"cli", "env", "proj/bpf_templates"}) write_family(t, dir, "mine");
  setenv("BPFBENCH_TEMPLATE_PATH", (t.root / "env").string().c_str(), 1);
  std::string bdsl = t.write("proj/b.bdsl", "bench mine < >\n");
  auto used = [&](const std::vector<std::string> &cli) {
    Frontend fe;
    FrontendOptions opts;
    opts.nproc = 2;
    opts.extra_template_dirs = cli;
    bool ok = run_frontend(bdsl, opts, fe);
    INFO(render_all(fe.diags, fe.sources));
    REQUIRE(ok);
    return fe.families.find("mine")->dir;
  };
  CHECK(used({(t.root / "cli").string()}) == (t.root / "cli/mine").string());
  CHECK(used({}) == (t.root / "proj/bpf_templates/mine").string());
  fs::remove_all(t.root / "proj/bpf_templates");
  CHECK(used({}) == (t.root / "env/mine").string());
}

TEST_CASE("bpfbench list shows where each family came from, --templates adds", "[template_path][cli]") {
  TempTree t;
  write_family(t, "extra", "from_cli");
  write_family(t, "proj/bpf_templates", "from_file");
  std::string bdsl = t.write("proj/b.bdsl", "bench from_file < >\n");
  auto r = bpfbench::test::run_process({BPFBENCH_BINARY, "list", "--templates", (t.root / "extra").string(), bdsl});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("from_cli — a family written for a test\n  from: " +
                   fs::weakly_canonical(t.root / "extra/from_cli").string() + " (--templates)") != std::string::npos);
  CHECK(r.out.find("from: " + fs::weakly_canonical(t.root / "proj/bpf_templates/from_file").string() + " (next to " +
                   bdsl + ")") != std::string::npos);
  CHECK(r.out.find("trigger — ") != std::string::npos);  // the shipped ones stay
  CHECK(r.out.find("(shipped)") != std::string::npos);
  CHECK(r.out.find("shadows:") == std::string::npos);
  CHECK(r.err.empty());
  // `run`/`check` take --templates the same way (added, not instead).
  auto c = bpfbench::test::run_process({BPFBENCH_BINARY, "check", "--templates", (t.root / "extra").string(), bdsl});
  INFO(c.err);
  CHECK(c.exit_code == 0);
}

TEST_CASE("bpfbench list shows which family is used and which it shadows, in text and JSON",
          "[template_path][cli]") {
  TempTree t;
  write_family(t, "extra", "strncmp");
  write_family(t, "proj/bpf_templates", "strncmp");
  std::string bdsl = t.write("proj/b.bdsl", "bench strncmp < prog p; >\n");
  const std::string extra = fs::weakly_canonical(t.root / "extra/strncmp").string();
  const std::string next = fs::weakly_canonical(t.root / "proj/bpf_templates/strncmp").string();
  const std::string shipped = std::string(BPFBENCH_TEMPLATE_DIR) + "/strncmp";
  auto r = bpfbench::test::run_process({BPFBENCH_BINARY, "list", "--templates", (t.root / "extra").string(), bdsl});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("strncmp — a family written for a test\n  from: " + extra + " (--templates)\n  shadows: " + next +
                   " (next to " + bdsl + ")\n  shadows: " + shipped + " (shipped)\n  programs:\n") != std::string::npos);
  CHECK(r.out.find("strncmp — ", r.out.find("strncmp — ") + 1) == std::string::npos);  // listed once
  // The notes on stderr, one line per shadowed folder.
  CHECK(r.err == "note: family 'strncmp' is taken from " + extra + " (--templates); it shadows " + next + " (next to " +
                     bdsl + ")\nnote: family 'strncmp' is taken from " + extra + " (--templates); it shadows " +
                     shipped + " (shipped)\n");

  auto j = bpfbench::test::run_process(
      {BPFBENCH_BINARY, "list", "--json", "--templates", (t.root / "extra").string(), bdsl});
  REQUIRE(j.exit_code == 0);
  auto families = nlohmann::json::parse(j.out);
  size_t seen = 0;
  for (const auto &f : families) {
    CHECK(f["shadows"].is_array());
    if (f["family"] == "trigger") {
      CHECK(f["origin"] == "shipped");
      CHECK(f["shadows"].empty());
    }
    if (f["family"] != "strncmp") continue;
    ++seen;
    CHECK(f["dir"] == extra);
    CHECK(f["origin"] == "--templates");
    CHECK(f["shadows"] == nlohmann::json::parse(R"([{"dir": ")" + next + R"(", "origin": "next to )" + bdsl +
                                                R"("}, {"dir": ")" + shipped + R"(", "origin": "shipped"}])"));
  }
  CHECK(seen == 1);
}

TEST_CASE("run and check use the family of the user's folder, the note said once per command (ab: both sides)",
          "[template_path][cli]") {
  TempTree t;
  write_family(t, "extra", "trigger");
  std::string good = t.write("a.bdsl", "bench trigger as \"t\" < prog p; >\n");
  const std::string note = "note: family 'trigger' is taken from " + fs::weakly_canonical(t.root / "extra/trigger").string() +
                           " (--templates); it shadows " + BPFBENCH_TEMPLATE_DIR + "/trigger (shipped)\n";
  auto c = bpfbench::test::run_process({BPFBENCH_BINARY, "check", "--templates", (t.root / "extra").string(), good});
  INFO(c.out << c.err);
  CHECK(c.exit_code == 0);
  CHECK(c.err == note);
  // ab loads A, then B (here B has an error, so nothing runs): the note once, from A.
  std::string bad = t.write("b.bdsl", "bench trigger as \"t\" < prog p; nope 1; >\n");
  auto ab = bpfbench::test::run_process(
      {BPFBENCH_BINARY, "ab", "--templates", (t.root / "extra").string(), good, bad}, 60);
  INFO(ab.err);
  CHECK(ab.exit_code == 2);
  CHECK(ab.err.rfind(note, 0) == 0);
  CHECK(ab.err.find(note, 1) == std::string::npos);
  CHECK(ab.err.find("unknown parameter 'nope'") != std::string::npos);
}

TEST_CASE("the shipped families are found from the binary's own path", "[template_path]") {
  TempTree t;
  // Installed: <prefix>/bin/bpfbench finds <prefix>/share/bpfbench/templates.
  std::string exe = t.write("usr/bin/bpfbench", "");
  fs::create_directories(t.root / "usr/share/bpfbench/templates");
  CHECK(shipped_template_dir(exe) == fs::canonical(t.root / "usr/share/bpfbench/templates").string());
  // A build tree: the bpf_templates link next to the binary, resolved (messages name the sources).
  std::string built = t.write("build/bpfbench", "");
  fs::create_directories(t.root / "src/bpf_templates");
  fs::create_directory_symlink(t.root / "src/bpf_templates", t.root / "build/bpf_templates");
  CHECK(shipped_template_dir(built) == fs::canonical(t.root / "src/bpf_templates").string());
  // Neither: the installed place, for the warning; no path of the source tree compiled in.
  std::string lone = t.write("opt/x/bin/bpfbench", "");
  CHECK(shipped_template_dir(lone) == (t.root / "opt/x/share/bpfbench/templates").string());
  CHECK(shipped_template_dir("").empty());
}

TEST_CASE("this test binary finds the shipped families through its link", "[template_path]") {
  CHECK(running_binary() == fs::canonical("/proc/self/exe").string());
  CHECK(shipped_template_dir(running_binary()) == fs::canonical(BPFBENCH_TEMPLATE_DIR).string());
}
