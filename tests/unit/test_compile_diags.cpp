// clang's diagnostics as clang prints them, located where the C came from: the notes its
// printer adds (macro expansions, include stack) and its own ("declared here"), fix-its,
// in the template or the .bdsl, each shown once however many programs of a sweep had it.
// tests/fixtures/families/diag_notes has the deliberate mistakes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <string>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bpf/compile_diags.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "compiler/pipeline.hpp"
#include "compiler/bpf/vmlinux_header.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"

using namespace bpfbench;

namespace {

const std::string kDiagFamilies = BPFBENCH_SOURCE_DIR "/tests/fixtures/families";
const std::string kNotesTemplate = kDiagFamilies + "/diag_notes/prog.bpf.c";

// What compiling `text` (as dir/notes.bdsl, with the fixture families) shows.
std::string compile_diags_of(const test::TempDir &dir, const std::string &text, std::string *path = nullptr) {
  const std::string file = dir.write("notes.bdsl", text);
  if (path) *path = file;
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  opts.extra_template_dirs = {kDiagFamilies};
  REQUIRE(run_frontend(file, opts, fe));
  CompiledPrograms compiled;
  CHECK_FALSE(compile_programs(fe, compiled));
  return render_all(fe.diags, fe.sources);
}

size_t count_of(const std::string &hay, const std::string &needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("an error inside a macro expansion in a template shows the expansion note in the template",
          "[compile-diags]") {
  test::TempDir dir;
  std::string path;
  const std::string shown = compile_diags_of(dir, "bench diag_notes as \"m\" < mistake macro; >\n", &path);
  INFO(shown);
  // As clang prints it (tabs shown as one space): the use, then where the macro's body
  // has the mistake, then the member it meant; then the bench.
  CHECK(shown == kNotesTemplate +
                     ":19:6: error: in the template of family 'diag_notes': no member named 'stme' in 'struct "
                     "bb_times'; did you mean 'stime'?\n"
                     " v = BB_TOTAL(&t);\n"
                     "     ~\n" +
                     kNotesTemplate +
                     ":9:40: note: expanded from macro 'BB_TOTAL'\n"
                     "#define BB_TOTAL(t) ((t)->utime + (t)->stme)\n"
                     "                                       ~\n" +
                     kNotesTemplate +
                     ":6:8: note: 'stime' declared here\n"
                     " __u64 stime;\n"
                     "       ~\n" +
                     path +
                     ":1:1-42: note: in the BPF program generated for 'm'\n"
                     "bench diag_notes as \"m\" < mistake macro; >\n"
                     "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

TEST_CASE("a typo'd struct field shows clang's fix-it under the field", "[compile-diags]") {
  test::TempDir dir;
  const std::string shown = compile_diags_of(dir, "bench diag_notes as \"f\" < mistake field; >\n");
  INFO(shown);
  CHECK(shown.find(kNotesTemplate +
                   ":22:8-11: error: in the template of family 'diag_notes': no member named 'utme' in 'struct "
                   "bb_times'; did you mean 'utime'?\n"
                   " v = t.utme;\n"
                   "       ~~~~\n"
                   "       utime\n" +
                   kNotesTemplate + ":5:8: note: 'utime' declared here\n") != std::string::npos);
}

TEST_CASE("a typo'd task_struct field through vmlinux.h gets clang's did-you-mean and fix-it",
          "[compile-diags][vmlinux]") {
  if (::access(kKernelBtfPath, R_OK) != 0) {
    WARN("skipped: " << kKernelBtfPath << " is not readable");
    return;
  }
  test::TempDir dir;
  std::string path;
  const std::string shown = compile_diags_of(dir,
                                             "bench trigger as \"core\" < prog tp;\n"
                                             "  code globals {\n"
                                             "#include <vmlinux.h>\n"
                                             "  }\n"
                                             "  code body {\n"
                                             "    struct task_struct *t = bpf_get_current_task_btf();\n"
                                             "    if (t->utme > 0) return;\n"
                                             "  }\n"
                                             ">\n",
                                             &path);
  INFO(shown);
  // clang makes no such suggestion in a compile with the precompiled vmlinux.h: the failed
  // compile is repeated with its text (compiler/bpf/clang_compile.cpp).
  CHECK(shown.find(path +
                   ":7:12-15: error: in inline BPF C: no member named 'utme' in 'struct task_struct'; did "
                   "you mean 'utime'?\n"
                   "    if (t->utme > 0) return;\n"
                   "           ~~~~\n"
                   "           utime\n" +
                   std::string(kVmlinuxHeaderPath) + ":") != std::string::npos);
  CHECK(shown.find(": note: 'utime' declared here\n") != std::string::npos);
}

TEST_CASE("the same error in a 4-point sweep is shown once, naming the points", "[compile-diags]") {
  test::TempDir dir;
  const std::string text = "bench diag_notes as \"w{width}\" < mistake field; sweep width [1, 2, 3, 4]; >\n";
  const std::string shown = compile_diags_of(dir, text);
  INFO(shown);
  // Four programs (one per width: a template param), one error.
  CHECK(count_of(shown, "no member named 'utme'") == 1);
  CHECK(count_of(shown, "'utime' declared here") == 1);
  CHECK(shown.find("note: in the BPF programs generated for 'w1', 'w2', 'w3' and 'w4' (4 points)\n") !=
        std::string::npos);

  // The same through the CLI: exit 2, the error once, no exception text.
  const std::string file = dir.write("sweep.bdsl", text);
  auto p = test::run_process({BPFBENCH_BINARY, "check", "--compile", "--templates", kDiagFamilies, file});
  INFO(p.err);
  CHECK(p.exit_code == 2);
  CHECK(count_of(p.err, "error:") == 1);
  CHECK(count_of(p.err, "       utime\n") == 1);
}

TEST_CASE("an error in a macro of inline C shows .bdsl line:col for the use and the definition",
          "[compile-diags][code]") {
  test::TempDir dir;
  std::string path;
  const std::string shown = compile_diags_of(dir,
                                             "bench trigger as \"in\" < prog tp;\n"
                                             "  code globals {\n"
                                             "    #define BB_TWICE(x) ((x) + (x) + bb_nope)\n"
                                             "  }\n"
                                             "  code body { int a = BB_TWICE(1); }\n"
                                             ">\n",
                                             &path);
  INFO(shown);
  CHECK(shown.find(path +
                   ":5:23: error: in inline BPF C: use of undeclared identifier 'bb_nope'\n"
                   "  code body { int a = BB_TWICE(1); }\n"
                   "                      ~\n" +
                   path +
                   ":3:38: note: expanded from macro 'BB_TWICE'\n"
                   "    #define BB_TWICE(x) ((x) + (x) + bb_nope)\n"
                   "                                     ~\n") != std::string::npos);
}

TEST_CASE("an unknown mustache key is file:line:col through the CLI, once for a sweep, exit 2",
          "[compile-diags][cli]") {
  test::TempDir dir;
  dir.write("fam/family.json", R"({ "family": "fam", "description": "d", "template": "prog.bpf.c",
      "params": [{ "name": "value", "type": "int", "default": 1, "dest": "template" }],
      "programs": [{ "name": "x", "section": "?raw_tp/sys_enter", "function": "bench_x" }] })");
  const std::string tmpl = dir.write("fam/prog.bpf.c", "char _license[] SEC(\"license\") = \"GPL\";\n"
                                                       "SEC(\"?raw_tp/sys_enter\")\n"
                                                       "int bench_x(void *ctx) { return {{vaule}}; }\n");
  const std::string file = dir.write("k.bdsl", "bench fam as \"k{value}\" < sweep value [1, 2]; >\n");
  auto p = test::run_process({BPFBENCH_BINARY, "check", "--compile", "--templates", dir.path.string(), file});
  INFO(p.err);
  CHECK(p.exit_code == 2);
  CHECK(p.err.rfind(tmpl + ":3:35-39: error: unknown mustache key 'vaule'\n"
                           "int bench_x(void *ctx) { return {{vaule}}; }\n"
                           "                                  ~~~~~\n"
                           "hint: did you mean 'value'?\n",
                    0) == 0);
  CHECK(count_of(p.err, "error:") == 1);
  CHECK(p.err.find("note: in the BPF programs generated for 'k1' and 'k2' (2 points)") != std::string::npos);
}
