// The family search path: shipped + $BPFBENCH_TEMPLATE_PATH + --templates + bpf_templates/
// next to the .bdsl; duplicates are errors naming both manifests; `list` shows origins.
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/pipeline.hpp"
#include "compiler/template_path.hpp"
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

TEST_CASE("the search path adds up: shipped, env, --templates, next to the file, each once", "[template_path]") {
  EnvGuard env;
  TempTree t;
  fs::create_directories(t.root / "env1");
  fs::create_directories(t.root / "proj/bpf_templates");
  std::string bdsl = t.write("proj/x.bdsl", "");
  setenv("BPFBENCH_TEMPLATE_PATH", ((t.root / "env1").string() + "::" + BPFBENCH_TEMPLATE_DIR).c_str(), 1);
  auto dirs = template_search_path({(t.root / "cli").string(), (t.root / "env1").string()}, bdsl);
  REQUIRE(dirs.size() == 4);
  CHECK(dirs[0].path == BPFBENCH_TEMPLATE_DIR);
  CHECK(dirs[0].origin == "shipped");
  CHECK(dirs[1].path == (t.root / "env1").string());
  CHECK(dirs[1].origin == "BPFBENCH_TEMPLATE_PATH");
  CHECK(dirs[2].origin == "--templates");
  CHECK(dirs[3].path == (t.root / "proj/bpf_templates").string());
  CHECK(dirs[3].origin == "next to " + bdsl);
  CHECK(default_template_dirs() == std::vector<std::string>{BPFBENCH_TEMPLATE_DIR, (t.root / "env1").string()});

  // No bpf_templates/ next to the file: nothing added for it.
  std::string other = t.write("x.bdsl", "");
  CHECK(template_search_path({}, other).size() == 2);
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

TEST_CASE("a family defined twice is an error naming both manifests", "[template_path]") {
  TempTree t;
  write_family(t, "extra", "trigger");
  std::string bdsl = t.write("b.bdsl", "bench trigger < prog tp >\n");
  Frontend fe;
  FrontendOptions opts;
  opts.extra_template_dirs = {(t.root / "extra").string()};
  CHECK_FALSE(run_frontend(bdsl, opts, fe));
  std::string text = render_all(fe.diags, fe.sources);
  INFO(text);
  CHECK(text.find((t.root / "extra/trigger/family.json").string() + ": family 'trigger' is already defined by " +
                  BPFBENCH_TEMPLATE_DIR + "/trigger/family.json") != std::string::npos);
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
  // `run`/`check` take --templates the same way (added, not instead).
  auto c = bpfbench::test::run_process({BPFBENCH_BINARY, "check", "--templates", (t.root / "extra").string(), bdsl});
  INFO(c.err);
  CHECK(c.exit_code == 0);
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
