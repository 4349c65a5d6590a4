// A template folder from someone else, read as root: every file it names (family.json, the
// template, the shared header) is resolved inside it, and no error shows the contents of a
// file outside it. Each case plants a secret beside the folder (or names /proc/self/environ)
// and checks the refusal and that the secret's text appears nowhere.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "util/input_file.hpp"
#include "compiler/family/manifest.hpp"
#include "fault_support.hpp"
#include "run_process.hpp"
#include "scoped_env.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace bpfbench;
namespace fs = std::filesystem;

namespace tmplfolder {

constexpr const char *kSecret = "BPFBENCH-SECRET-7f3a";

// A temp dir holding `outside/secret.c` (a line with kSecret) and a template folder
// `tpl/` with one working family `leak`. Its program names no function, so any file can
// be its template: a secret read as one was printed whole by `emit`, before.
struct Folders : test::TempDir {
  std::string root() const { return (path / "tpl").string(); }
  std::string secret() const { return (path / "outside/secret.c").string(); }
  Folders() {
    write("outside/secret.c", std::string(kSecret) + " root:x:0:0\n");
    family(R"("prog.bpf.c")");
    write("tpl/leak/prog.bpf.c", "char _license[] SEC(\"license\") = \"GPL\";\n");
  }
  // family.json of `leak` with `tpl` (JSON) as its template.
  void family(const std::string &tpl) const {
    write("tpl/leak/family.json", R"({ "family": "leak", "description": "d", "template": )" + tpl + R"(,
  "producer": "syscall", "programs": [{ "name": "x", "attach": "none" }],
  "metrics": [{ "name": "hits", "source": "producer" }] }
)");
  }
  void link(const std::string &target, const std::string &name) const {
    fs::remove(path / name);
    fs::create_symlink(target, path / name);
  }
  std::string bdsl() const { return write("t.bdsl", "bench leak < prog x; >\n"); }
};

std::string read_in(const std::string &root, const std::string &name) {
  auto in = read_input_file_in(root, name, kMaxTextInputBytes);
  return in ? "read: " + in->data : in.error().message;
}

// The registry's rendered errors ("" when it loads) for the folder.
std::string load_errors(const Folders &d) {
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load({d.root()}, sources, diags);
  std::string out = render_all(diags, sources);
  if (diags.has_errors()) CHECK(reg.find("leak") == nullptr);
  CHECK(out.find(kSecret) == std::string::npos);
  return out;
}

}  // namespace tmplfolder

using namespace tmplfolder;

TEST_CASE("read_input_file_in: names inside the folder only, links that stay inside", "[io][template-folder]") {
  Folders d;
  d.write("tpl/a/b.c", "B\n");
  CHECK(read_in(d.root(), "a/b.c") == "read: B\n");
  CHECK(read_in(d.root(), "./a//b.c") == "read: B\n");
  CHECK(read_in(d.root(), d.secret()) == "is an absolute path");
  CHECK(read_in(d.root(), "../outside/secret.c") == "names '..'");
  CHECK(read_in(d.root(), "a/../../outside/secret.c") == "names '..'");
  CHECK(read_in(d.root(), "") == "empty file name");
  CHECK(read_in(d.root(), "a") == "is a directory");
  CHECK(read_in(d.root(), "a/nope.c") == "No such file or directory");

  // Links inside the folder, to a file or a folder of it, by a relative path: followed.
  d.link("b.c", "tpl/a/same.c");
  d.link("../a", "tpl/leak/to_a");
  d.link("../leak/to_a/same.c", "tpl/a/chain.c");
  CHECK(read_in(d.root(), "a/same.c") == "read: B\n");
  CHECK(read_in(d.root(), "leak/to_a/b.c") == "read: B\n");
  CHECK(read_in(d.root(), "a/chain.c") == "read: B\n");

  // Out of the folder: an absolute target (even one back into the folder), a relative one
  // that climbs above it, a folder on the way that leads out.
  d.link(d.secret(), "tpl/a/abs.c");
  CHECK(read_in(d.root(), "a/abs.c") == "'a/abs.c' is a symbolic link to '" + d.secret() +
                                            "'; only relative links that stay inside the folder '" + d.root() +
                                            "' are followed");
  d.link((d.path / "tpl/a/b.c").string(), "tpl/a/abs_in.c");
  CHECK_THAT(read_in(d.root(), "a/abs_in.c"), Catch::StartsWith("'a/abs_in.c' is a symbolic link to '/"));
  d.link("../../outside/secret.c", "tpl/a/up.c");
  CHECK(read_in(d.root(), "a/up.c") == "'a/up.c' is a symbolic link to '../../outside/secret.c', which leads out of "
                                       "the folder '" +
                                           d.root() + "'");
  d.link("../outside", "tpl/out");
  CHECK_THAT(read_in(d.root(), "out/secret.c"), Catch::Contains("which leads out of the folder"));
  d.link("/proc/self/environ", "tpl/env.json");
  CHECK_THAT(read_in(d.root(), "env.json"), Catch::StartsWith("'env.json' is a symbolic link to '/proc/self/environ'"));
  d.link("loop2", "tpl/loop1");
  d.link("loop1", "tpl/loop2");
  CHECK(read_in(d.root(), "loop1") == "Too many levels of symbolic links");

  // Not a regular file: refused through its O_PATH descriptor, never opened (no FIFO wait).
  REQUIRE(::mkfifo((d.path / "tpl/a/fifo.c").c_str(), 0600) == 0);
  CHECK(read_in(d.root(), "a/fifo.c") == "is a FIFO, not a regular file");
  d.write("tpl/big.c", std::string(100, 'x'));
  auto big = read_input_file_in(d.root(), "big.c", 10);
  REQUIRE_FALSE(big);
  CHECK(big.error().message == "is larger than the 10 bytes limit");

  // The folder itself must be canonical: one reached through a link changed after it was resolved.
  d.link("tpl", "tpl_link");
  CHECK_THAT(read_in((d.path / "tpl_link").string(), "a/b.c"), Catch::Contains("changed after it was read"));
  CHECK_THAT(read_in("tpl", "a/b.c"), Catch::Contains("is not an absolute path"));
}

TEST_CASE("template folder: the template is a file of the family's folder", "[manifest][template-folder]") {
  Folders d;
  CHECK(load_errors(d).empty());

  d.family("\"" + d.secret() + "\"");
  std::string out = load_errors(d);
  CHECK_THAT(out, Catch::Contains("tpl/leak/family.json:1:53-"));
  CHECK_THAT(out, Catch::Contains("error: 'template' must name a file inside the family's folder: '" + d.secret() +
                                  "' is an absolute path"));
  d.family(R"("../../outside/secret.c")");
  CHECK_THAT(load_errors(d), Catch::Contains("folder: '../../outside/secret.c' names '..'"));

  // A link of the folder to a file outside it: refused, however it gets there.
  d.family(R"("prog.bpf.c")");
  d.link(d.secret(), "tpl/leak/prog.bpf.c");
  CHECK_THAT(load_errors(d),
             Catch::Contains("error: cannot read template '" + d.root() +
                             "/leak/prog.bpf.c': 'leak/prog.bpf.c' is a symbolic link to '" + d.secret() +
                             "'; only relative links that stay inside the folder '" + d.root() + "' are followed"));
  d.link("../../outside/secret.c", "tpl/leak/prog.bpf.c");
  CHECK_THAT(load_errors(d), Catch::Contains("which leads out of the folder '" + d.root() + "'"));

  // One to another family's file in the same template folder is followed.
  d.write("tpl/shared/prog.bpf.c", "char _license[] SEC(\"license\") = \"GPL\";\n");
  d.link("../shared/prog.bpf.c", "tpl/leak/prog.bpf.c");
  CHECK(load_errors(d).empty());
}

TEST_CASE("template folder: family.json, the family folder and the shared header stay inside",
          "[manifest][template-folder]") {
  Folders d;
  test::ScopedEnv env("BPFBENCH_TEST_ENV_SECRET", kSecret);
  d.link("/proc/self/environ", "tpl/leak/family.json");
  std::string out = load_errors(d);
  CHECK(out == "error: " + d.root() +
                   "/leak/family.json: cannot read the manifest: 'leak/family.json' is a "
                   "symbolic link to '/proc/self/environ'; only relative links that stay "
                   "inside the folder '" +
                   d.root() + "' are followed\n");

  fs::remove(d.path / "tpl/leak/family.json");
  d.write("elsewhere/leak/family.json", "{ \"family\": \"" + std::string(kSecret));  // bad JSON, shown if read
  fs::remove_all(d.path / "tpl/leak");
  d.link("../elsewhere/leak", "tpl/leak");
  CHECK_THAT(load_errors(d), Catch::Contains("cannot read the manifest: 'leak' is a symbolic link to "
                                             "'../elsewhere/leak', which leads out of the folder"));
  fs::remove(d.path / "tpl/leak");

  d.write("tpl/include/real.h", "#define SHARED 1\n");
  d.link(d.secret(), "tpl/include/bpfbench_shared.h");
  CHECK(load_errors(d) == "error: " + d.root() +
                              "/include/bpfbench_shared.h: cannot read the shared header: "
                              "'include/bpfbench_shared.h' is a symbolic link to '" +
                              d.secret() + "'; only relative links that stay inside the folder '" + d.root() +
                              "' are followed\n");
  auto refused = check_shared_header(d.root());
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "cannot read include/bpfbench_shared.h: 'include/bpfbench_shared.h' is a symbolic link to '" + d.secret() +
            "'; only relative links that stay inside the folder '" + d.root() + "' are followed");
  d.link("real.h", "tpl/include/bpfbench_shared.h");
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load({d.root()}, sources, diags);
  CHECK_FALSE(diags.has_errors());
  CHECK(reg.shared_header_text() == "#define SHARED 1\n");
  CHECK(reg.shared_header_path() == d.root() + "/include/bpfbench_shared.h");
  CHECK(check_shared_header(d.root()));
}

TEST_CASE("template folder: JSON errors say where, never echo the file or nlohmann's text",
          "[manifest][template-folder]") {
  Folders d;
  // The file's own line is shown (it is the folder's), nlohmann's "last read: 'no'" not.
  d.write("tpl/leak/family.json", "{ \"family\": \"leak\",\n  \"x\": nonsense }\n");
  std::string out = load_errors(d);
  CHECK_THAT(out, Catch::Contains("family.json:2:9: error: invalid JSON: syntax error while parsing value - invalid "
                                  "literal\n  \"x\": nonsense }\n"));
  CHECK(out.find("last read") == std::string::npos);
  d.write("tpl/leak/family.json", "{ \"family\": \"leak\", \"params\": [{ \"max\": 1e400 }] }\n");
  out = load_errors(d);
  CHECK_THAT(out, Catch::Contains("family.json:1:41: error: invalid JSON: number overflow parsing '1e400'\n"));
  CHECK_FALSE(test::has_exception_text(out));
  CHECK(out.find("json.exception") == std::string::npos);
}

TEST_CASE("bpfbench check --compile and emit: a template linked out of its folder is exit 2, not its lines",
          "[cli][template-folder]") {
  Folders d;
  std::string bdsl = d.bdsl();
  auto emit = test::run_process({test::kBin, "emit", "--templates", d.root(), bdsl}, 30);
  REQUIRE(emit.exit_code == 0);  // the folder as written works
  CHECK_THAT(emit.out, Catch::Contains("_license"));

  d.link(d.secret(), "tpl/leak/prog.bpf.c");
  for (const char *cmd : {"emit", "check"}) {
    std::vector<std::string> argv = {test::kBin, cmd, "--templates", d.root(), bdsl};
    if (std::string(cmd) == "check") argv.insert(argv.begin() + 2, "--compile");
    auto r = test::run_process(argv, 60);
    INFO(cmd << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("'leak/prog.bpf.c' is a symbolic link to '" + d.secret() + "'"));
    CHECK((r.out + r.err).find(kSecret) == std::string::npos);
  }

  test::ScopedEnv env("BPFBENCH_TEST_ENV_SECRET", kSecret);  // inherited by the child
  d.link("/proc/self/environ", "tpl/leak/family.json");
  auto r = test::run_process({test::kBin, "check", "--templates", d.root(), bdsl}, 30);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("is a symbolic link to '/proc/self/environ'"));
  CHECK((r.out + r.err).find(kSecret) == std::string::npos);
}

TEST_CASE("a #line in a template names a header: its lines are shown only if clang could read it",
          "[cli][compile][template-folder]") {
  Folders d;
  // leak.h: a .h name linked to the secret (clang's file system refuses it, and so does
  // the diagnostic that would show its line 1).
  d.link(d.secret(), "leak.h");
  d.write("tpl/leak/prog.bpf.c", "#line 1 \"" + (d.path / "leak.h").string() + "\"\nthis is not C;\n");
  auto r = test::run_process({test::kBin, "check", "--compile", "--templates", d.root(), d.bdsl()}, 60);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("leak.h:1:"));
  CHECK(r.err.find(kSecret) == std::string::npos);
}

TEST_CASE("ab --a-templates: a FIFO is named as one, DIR and DIR/. are one folder", "[cli][ab][template-folder]") {
  Folders d;
  std::string bdsl = d.bdsl();
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  auto r = test::run_process(
      {test::kBin, "ab", bdsl, "--a-templates", (d.path / "fifo").string(), "--b-templates", d.root()}, 30);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "bpfbench: error: --a-templates " + (d.path / "fifo").string() + ": is not a directory (it is a FIFO)\n");
  r = test::run_process({test::kBin, "ab", bdsl, "--a-templates", d.root(), "--b-templates", d.root() + "/."}, 30);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--a-templates and --b-templates name the same folder"));
}
