// `code <hook> { C }`: raw text in the AST, checked hooks, #line-mapped emission, and clang
// errors inside the block reported at the .bdsl line and column.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bpf/code_hooks.hpp"
#include "compiler/bpf/compile_diags.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "compiler/bdsl/parse.hpp"
#include "compiler/pipeline.hpp"
#include "compiler/bpf/user_includes.hpp"
#include "fault_support.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;

namespace {

struct InlineBdsl {
  std::string path;
  explicit InlineBdsl(const std::string &text) {
    char tmpl[] = "/tmp/bpfbench-code-XXXXXX.bdsl";
    int fd = mkstemps(tmpl, 5);
    REQUIRE(fd >= 0);
    close(fd);
    path = tmpl;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~InlineBdsl() { fs::remove(path); }
};

const ast::Bench &first_bench(const ast::File &f) { return std::get<ast::Bench>(f.items.at(0).node); }

}  // namespace

TEST_CASE("a code block keeps its text byte for byte, with where it starts", "[code]") {
  SourceManager sm;
  Diagnostics diags;
  std::string text = "bench trigger < prog tp;\n"
                     "  code body { if (x) { y(\"}\"); } /* } */ // }\n"
                     "#define Z '}'\n"
                     "  }\n"
                     "  code globals {}\n"
                     ">\n";
  auto f = parse_text("t.bdsl", text, sm, diags);
  INFO(render_all(diags, sm));
  REQUIRE_FALSE(diags.has_errors());
  const auto &b = first_bench(*f);
  REQUIRE(b.code.size() == 2);
  CHECK(b.code[0].hook.text == "body");
  CHECK(b.code[0].text == " if (x) { y(\"}\"); } /* } */ // }\n#define Z '}'\n  ");
  CHECK(b.code[0].text_range.line == 2);
  CHECK(b.code[0].text_range.col == 14);  // the byte after '{'
  CHECK(b.code[0].text_range.end_line == 4);
  CHECK(b.code[1].hook.text == "globals");
  CHECK(b.code[1].text.empty());
  CHECK(b.settings.size() == 1);  // prog tp
}

TEST_CASE("code in defaults is a located error", "[code]") {
  InlineBdsl f("defaults < code body { } >\n");
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  CHECK_FALSE(run_frontend(f.path, opts, fe));
  std::string text = render_all(fe.diags, fe.sources);
  INFO(text);
  CHECK(text.find(f.path + ":1:12-24: error: 'code' belongs in a bench, not in defaults") != std::string::npos);
}

TEST_CASE("unknown hook names get a did-you-mean, families without hooks say so", "[code]") {
  InlineBdsl f("bench trigger < code bdoy { } >\n"
               "bench ringbuf < code body { } >\n");
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  CHECK_FALSE(run_frontend(f.path, opts, fe));
  std::string text = render_all(fe.diags, fe.sources);
  INFO(text);
  CHECK(text.find(f.path + ":1:22-25: error: unknown code hook 'bdoy' for family 'trigger'") != std::string::npos);
  CHECK(text.find("hint: did you mean 'body'?") != std::string::npos);
  CHECK(text.find(f.path + ":2:22-25: error: unknown code hook 'body' for family 'ringbuf'") != std::string::npos);
  CHECK(text.find("family 'ringbuf' declares no hooks") != std::string::npos);
}

TEST_CASE("inline C is emitted at the hook with a #line to the .bdsl, benches differ in objects", "[code]") {
  InlineBdsl f("bench trigger as \"a\" < prog tp;\n"
               "  code globals { int bb_user_x; }\n"
               "  code body { bb_user_x++; } >\n"
               "bench trigger as \"b\" < prog tp; code body { bb_user_x--; } code globals { int bb_user_x; } >\n"
               "bench trigger as \"c\" < prog rawtp >\n");
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  REQUIRE(run_frontend(f.path, opts, fe));
  auto units = emit_programs(*fe.plan, fe.families, fe.sources, fe.diags);
  INFO(render_all(fe.diags, fe.sources));
  REQUIRE(units.size() == 3);
  const std::string &c = units[0].c_source;
  // Padded so the block's first byte keeps its column (17 on line 2, 14 on line 3).
  CHECK(c.find("#line 2 \"" + f.path + "\"\n" + std::string(16, ' ') + " int bb_user_x; \n") != std::string::npos);
  CHECK(c.find("#line 3 \"" + f.path + "\"\n" + std::string(13, ' ') + " bb_user_x++; \n") != std::string::npos);
  CHECK(units[2].c_source.find("bb_user_x") == std::string::npos);
  for (const auto &u : units) {
    CompileOptions co;
    co.virtual_name = u.virtual_name;
    CompileResult r = compile_bpf(u.c_source, co);
    INFO(u.c_source);
    for (const auto &d : r.diags) INFO(d.file << ":" << d.line << ":" << d.col << ": " << d.message);
    CHECK(r.ok);
  }
}

TEST_CASE("a clang error inside a code block names the .bdsl line and column", "[code]") {
  InlineBdsl f("# inline C with a mistake on line 4\n"
               "bench trigger as \"bad\" < prog tp;\n"
               "  code body {\n"
               "    int a = 1; bb_nope += a;\n"
               "  }\n"
               ">\n");
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  REQUIRE(run_frontend(f.path, opts, fe));
  auto units = emit_programs(*fe.plan, fe.families, fe.sources, fe.diags);
  REQUIRE(units.size() == 1);
  CompileOptions co;
  co.virtual_name = units[0].virtual_name;
  CompileResult r = compile_bpf(units[0].c_source, co);
  CHECK_FALSE(r.ok);
  CompileDiags shown(*fe.plan, fe.families, fe.sources, fe.diags);
  shown.add(r, units[0]);
  shown.finish();
  std::string text = render_all(fe.diags, fe.sources);
  INFO(text);
  CHECK(text.find(f.path + ":4:16: error: in inline BPF C: use of undeclared identifier 'bb_nope'") !=
        std::string::npos);
  CHECK(text.find("note: in the BPF program generated for 'bad'") != std::string::npos);

  // The same through the CLI: `check --compile` exits 2 with the located message.
  auto p = bpfbench::test::run_process({BPFBENCH_BINARY, "check", "--compile", f.path});
  CHECK(p.exit_code == 2);
  CHECK(p.err.find(f.path + ":4:16: error: in inline BPF C: use of undeclared identifier 'bb_nope'\n"
                            "    int a = 1; bb_nope += a;\n") != std::string::npos);
}

TEST_CASE("a verifier rejection of inline C names the bench, its .bdsl location and line", "[code][runtime][cli]") {
  if (geteuid() != 0) {
    WARN("skipped: runtime tests need root and BPF");
    return;
  }
  bpfbench::test::TempDir dir;  // where the verifier's log is kept
  const std::string path = dir.write(
      "vrej.bdsl", "bench trigger as \"vrej\" < prog tp; warmup 0s; duration 1s;\n"
                   "  code globals { struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 1);\n"
                   "                          __type(key, __u32); __type(value, __u64); } bb_m SEC(\".maps\"); }\n"
                   "  code body { __u32 k = 0; __u64 *v = bpf_map_lookup_elem(&bb_m, &k);\n"
                   "    *v += 1; /* no NULL check */ }\n"
                   ">\n");
  auto r =
      bpfbench::test::run_process({"/usr/bin/env", "-C", dir.path.string(), BPFBENCH_BINARY, "run", "-q", path}, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(path + ":1:1: error: bench 'vrej': the verifier refused program ") != std::string::npos);
  CHECK(r.err.find("map_value_or_null") != std::string::npos);
  // The verifier log's source annotations come from the #line directives: the .bdsl line,
  // named by its path, and the line itself.
  CHECK(r.err.find(path + ":5: note: at instruction ") != std::string::npos);
  CHECK(r.err.find("\n    *v += 1;") != std::string::npos);
}

TEST_CASE("a clang error in a family's template shows the template line", "[code][cli]") {
  InlineBdsl f("bench broken as \"tb\" < >\n");
  const std::string fixtures = BPFBENCH_SOURCE_DIR "/tests/fixtures/families";
  auto p = bpfbench::test::run_process({BPFBENCH_BINARY, "check", "--compile", "--templates", fixtures, f.path});
  INFO(p.err);
  CHECK(p.exit_code == 2);
  // Located like a .bdsl error: file:line:col, the template's line (tab shown as one space)
  // and a caret under the column, then the bench that generated it.
  CHECK(p.err.find(fixtures + "/broken/prog.bpf.c:11:9: error: in the template of family 'broken': use of "
                              "undeclared identifier 'bb_undeclared_identifier'\n"
                              " return bb_undeclared_identifier; /* line 11: the deliberate error */\n"
                              "        ~\n") != std::string::npos);
  CHECK(p.err.find(f.path + ":1:1") != std::string::npos);
  CHECK(p.err.find("note: in the BPF program generated for 'tb'") != std::string::npos);
}

TEST_CASE("a baseline can run its bench without a hook's code", "[code]") {
  Frontend fe;
  FrontendOptions opts;
  opts.nproc = 2;
  bool ok = run_frontend_text("b.bdsl",
                              "bench trigger as \"tb\" < prog tp;\n"
                              "  code globals { static int bb_seen; }\n"
                              "  code body { bb_seen++; }\n"
                              "  baseline < drop_code body; >\n"
                              ">\n",
                              opts, fe);
  INFO(render_all(fe.diags, fe.sources));
  REQUIRE(ok);
  REQUIRE(fe.plan->points.size() == 2);
  const PlanPoint &base = fe.plan->points[0], &main = fe.plan->points[1];
  CHECK(base.is_baseline);
  REQUIRE(base.code.size() == 1);
  CHECK(base.code[0].hook == "globals");
  CHECK(main.code.size() == 2);
  CHECK(code_identity(base) != code_identity(main));  // two programs

  Frontend bad;
  CHECK_FALSE(run_frontend_text("c.bdsl", "bench trigger < prog tp; code body { }\n  baseline < drop_code bdy; >\n>\n",
                                opts, bad));
  std::string text = render_all(bad.diags, bad.sources);
  CHECK(text.find("c.bdsl:2:24-26: error: 'drop_code' takes a hook name of family 'trigger'") != std::string::npos);
  CHECK(text.find("hint: did you mean 'body'?") != std::string::npos);
}

TEST_CASE("inline C includes a header beside the .bdsl, edits recompile", "[code][cli]") {
  test::TempDir d;
  d.write("my_helpers.h", "static __always_inline int bb_twice(int x) { return 2 * x; }\n");
  std::string bdsl = d.write("h.bdsl", "bench trigger as \"inc\" < prog tp;\n"
                                       "  code globals {\n#include \"my_helpers.h\"\n  }\n"
                                       "  code body { if (bb_twice(1) != 2) return; }\n>\n");
  std::string cache = (d.path / "cache").string();
  auto run = [&] {
    return bpfbench::test::run_process(
        {"/usr/bin/env", "XDG_CACHE_HOME=" + cache, BPFBENCH_BINARY, "check", "--compile", bdsl});
  };
  auto ok = run();
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  // The header is part of the cache key: a broken one is compiled (and reported), not a
  // stale object taken from the cache.
  d.write("my_helpers.h", "static __always_inline int bb_twice(int x) { return 2 * y; }\n");
  auto bad = run();
  INFO(bad.err);
  CHECK(bad.exit_code == 2);
  // Located in the header, with its line and a caret.
  CHECK(bad.err.find(d.path.string() + "/my_helpers.h:1:57: error: use of undeclared identifier 'y'\n"
                                       "static __always_inline int bb_twice(int x) { return 2 * y; }\n") !=
        std::string::npos);
}

TEST_CASE("include dirs: headers from another folder, searched after the .bdsl's, keyed in the cache", "[code][cli]") {
  test::TempDir d;
  std::filesystem::create_directories(d.path / "hdr");
  std::filesystem::create_directories(d.path / "b");
  d.write("hdr/my_helpers.h", "static __always_inline int bb_twice(int x) { return 2 * x; }\n");
  std::string bdsl = d.write("b/h.bdsl", "bench trigger as \"inc\" < prog tp;\n"
                                         "  code globals {\n#include \"my_helpers.h\"\n  }\n"
                                         "  code body { if (bb_twice(1) != 2) return; }\n>\n");
  std::string cache = (d.path / "cache").string(), hdr = (d.path / "hdr").string();
  auto check = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {"/usr/bin/env", "XDG_CACHE_HOME=" + cache, BPFBENCH_BINARY, "check", "--compile"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(bdsl);
    return bpfbench::test::run_process(argv);
  };
  auto missing = check({});
  INFO(missing.err);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find(bdsl + ":3:10-23: error: in inline BPF C: 'my_helpers.h' file not found") !=
        std::string::npos);
  CHECK(missing.err.find("hint: a quoted #include is looked for in the .bdsl file's folder, the family's folder "
                         "and each --include-dir folder") != std::string::npos);
  auto ok = check({"--include-dir", hdr});
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  // An edit of the header is compiled (and reported in it), not served stale from the cache.
  d.write("hdr/my_helpers.h", "static __always_inline int bb_twice(int x) { return 2 * y; }\n");
  auto bad = check({"--include-dir", hdr});
  INFO(bad.err);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find(hdr + "/my_helpers.h:1:57: error: use of undeclared identifier 'y'") != std::string::npos);
  // The .bdsl file's folder comes first: its good header hides the broken one.
  d.write("b/my_helpers.h", "static __always_inline int bb_twice(int x) { return x + x; }\n");
  auto first = check({"--include-dir", hdr});
  INFO(first.err);
  CHECK(first.exit_code == 0);
  // Folders that are not there, or not folders, are refused before anything compiles.
  auto nope = check({"--include-dir", (d.path / "nope").string()});
  CHECK(nope.exit_code == 2);
  CHECK(nope.err.find("error: --include-dir '" + (d.path / "nope").string() + "': No such file or directory") !=
        std::string::npos);
  auto file = check({"--include-dir", bdsl});
  CHECK(file.exit_code == 2);
  CHECK(file.err.find("error: --include-dir '" + bdsl + "' is not a directory (it is a regular file)") !=
        std::string::npos);
  CHECK_FALSE(bpfbench::test::has_exception_text(nope.err + file.err));
}

TEST_CASE("uprobes, strncmp, bpf_loop and local_storage take body code", "[code][cli]") {
  // Each body uses what its family's hook gives it (docs/families.md, "Hooks for inline C").
  InlineBdsl f("bench uprobes as \"u\" < prog uprobe-nop; code globals { static __u64 bb_n; }\n"
               "  code body { bb_n += pid_filter; } >\n"
               "bench strncmp as \"s\" < prog helper; code body { if (ret > 0) return; } >\n"
               "bench bpf_loop as \"l\" < code body { if (index > nr_loops) return 1; } >\n"
               "bench local_storage as \"ls\" < prog seq_get; code body { if (value) *value += idx; } >\n"
               "bench local_storage as \"lh\" < prog hashmap; code body { if (value) *value += 1; } >\n");
  auto p = bpfbench::test::run_process({BPFBENCH_BINARY, "check", "--compile", f.path});
  INFO(p.err);
  CHECK(p.exit_code == 0);
  CHECK(p.out.find("ok, 5 points, 5 BPF programs compiled") != std::string::npos);
}

TEST_CASE("user headers: the cache key covers the .h files clang may read, nothing else", "[code][io]") {
  test::TempDir d, empty;
  d.write("a.h", "#define A 1\n");
  UserIncludes only_a = user_includes({d.path.string(), empty.path.string()});
  REQUIRE(only_a.args.size() == 3);  // -iquote DIR, the digest; the empty folder adds nothing
  CHECK(only_a.args[0] == "-iquote");
  CHECK(only_a.args[1] == d.path.string());
  CHECK(only_a.args[2].rfind("-D__BPFBENCH_USER_HEADERS=", 0) == 0);
  CHECK(only_a.cacheable);
  // A FIFO and a link to a non-header are not read (the FIFO would block): same digest.
  REQUIRE(::mkfifo((d.path / "fifo.h").c_str(), 0600) == 0);
  std::filesystem::create_symlink("/etc/passwd", d.path / "passwd.h");
  CHECK(user_includes({d.path.string()}).args == only_a.args);
  d.write("a.h", "#define A 2\n");
  CHECK(user_includes({d.path.string()}).args != only_a.args);
  CHECK(user_includes({empty.path.string()}).args.empty());
}
