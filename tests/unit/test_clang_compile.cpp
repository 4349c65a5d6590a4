// compile_bpf: BPF ELF output, #line-mapped diagnostics, fork isolation, object cache.
#include <catch2/catch.hpp>

#include <elf.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bpf/object_cache.hpp"
#include "scoped_env.hpp"
#include "temp_dir.hpp"

using namespace bpfbench;

namespace {

const char *kProgram = R"(#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile __u32 batch = 1;
__u64 hits;

SEC("?raw_tp/sys_enter")
int bench_trigger(void *ctx)
{
	for (__u32 i = 0; i < batch; i++)
		__sync_fetch_and_add(&hits, 1);
	return 0;
}

char _license[] SEC("license") = "GPL";
)";

const char *kCoreProgram = R"(#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct task_like {
	int pid;
	long state;
} __attribute__((preserve_access_index));

long seen;

SEC("?tp/syscalls/sys_enter_getpgid")
int core_read(void *ctx)
{
	struct task_like *t = (struct task_like *)bpf_get_current_task();
	long state = 0;

	bpf_probe_read_kernel(&state, sizeof(state),
			      __builtin_preserve_access_index(&t->state));
	seen = state;
	return 0;
}

char _license[] SEC("license") = "GPL";
)";

// A fresh mkdtemp directory, removed with everything in it at scope end.
using bpfbench::test::TempDir;

CompileOptions opts_in(const TempDir &d) {
  CompileOptions o;
  o.cache_dir = (d.path / "cache").string();
  return o;
}

std::set<std::string> section_names(const std::vector<uint8_t> &obj) {
  std::set<std::string> names;
  Elf64_Ehdr eh;
  std::memcpy(&eh, obj.data(), sizeof(eh));
  Elf64_Shdr strtab;
  std::memcpy(&strtab, obj.data() + eh.e_shoff + eh.e_shstrndx * sizeof(Elf64_Shdr), sizeof(strtab));
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, obj.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof(sh));
    names.insert(reinterpret_cast<const char *>(obj.data() + strtab.sh_offset + sh.sh_name));
  }
  return names;
}

std::string diag_dump(const CompileResult &r) {
  std::string s = r.error;
  for (const auto &d : r.diags)
    s += "\n" + d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
  return s;
}

}  // namespace

TEST_CASE("compile_bpf produces a BPF ELF with the expected sections", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  o.use_cache = false;
  CompileResult r = compile_bpf(kProgram, o);
  INFO(diag_dump(r));
  REQUIRE(r.ok);
  REQUIRE(r.error.empty());
  REQUIRE_FALSE(r.cached);
  REQUIRE(r.object.size() > sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh;
  std::memcpy(&eh, r.object.data(), sizeof(eh));
  CHECK(std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0);
  CHECK(eh.e_machine == EM_BPF);
  CHECK(eh.e_machine == 247);
  auto names = section_names(r.object);
  // The '?' (autoload off) stays in the section name; libbpf strips it at open time.
  for (const char *want : {"?raw_tp/sys_enter", ".rodata", ".bss", ".BTF", "license"}) {
    INFO("section " << want);
    CHECK(names.count(want) == 1);
  }
  CHECK(is_bpf_elf(r.object));
}

TEST_CASE("clang errors map back through #line directives", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  o.virtual_name = "trigger-0.bpf.c";
  std::string src = "#include <linux/bpf.h>\n"
                    "#line 7 \"bench.bdsl\"\n"
                    "int f(void) { return undefined_name; }\n";
  CompileResult r = compile_bpf(src, o);
  INFO(diag_dump(r));
  REQUIRE_FALSE(r.ok);
  CHECK(r.error.empty());
  CHECK(r.object.empty());
  REQUIRE_FALSE(r.diags.empty());
  const CompileDiag &d = r.diags.front();
  CHECK(d.severity == Severity::Error);
  CHECK(d.file == "bench.bdsl");
  CHECK(d.line == 7);
  CHECK(d.col == 22);  // the 'u' of undefined_name
  CHECK(d.message.find("undefined_name") != std::string::npos);
  // Failed compiles are never cached.
  CHECK_FALSE(std::filesystem::exists(o.cache_dir + "/" + r.cache_key + ".o"));
}

TEST_CASE("errors without #line report the virtual file name", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  o.virtual_name = "trigger-0.bpf.c";
  CompileResult r = compile_bpf("int x = ;\n", o);
  REQUIRE_FALSE(r.ok);
  REQUIRE_FALSE(r.diags.empty());
  CHECK(r.diags.front().file == "trigger-0.bpf.c");
  CHECK(r.diags.front().line == 1);
  CHECK(r.diags.front().col == 9);
}

TEST_CASE("several compiles in one process succeed, CO-RE included", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  o.use_cache = false;
  for (int round = 0; round < 2; ++round) {
    CompileResult core = compile_bpf(kCoreProgram, o);
    INFO(diag_dump(core));
    REQUIRE(core.ok);
    auto names = section_names(core.object);
    CHECK(names.count(".BTF.ext") == 1);  // CO-RE relocations live there
    CompileResult plain = compile_bpf(kProgram, o);
    INFO(diag_dump(plain));
    REQUIRE(plain.ok);
    CHECK(plain.object != core.object);
  }
}

TEST_CASE("compiles from two threads at once both succeed", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  o.use_cache = false;
  CompileResult a, b;
  std::thread t([&] { a = compile_bpf(kCoreProgram, o); });
  b = compile_bpf(kProgram, o);
  t.join();
  CHECK(a.ok);
  CHECK(b.ok);
  CHECK(is_bpf_elf(a.object));
  CHECK(is_bpf_elf(b.object));
}

TEST_CASE("a crash inside clang becomes an error result", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  CompileResult r = compile_bpf("#pragma clang __debug crash\nint x;\n", o);
  CHECK_FALSE(r.ok);
  CHECK(r.error.rfind("clang crashed (signal ", 0) == 0);
  // ...and the process still compiles afterwards.
  CompileResult after = compile_bpf(kProgram, o);
  CHECK(after.ok);
}

TEST_CASE("an LLVM fatal error becomes an error result", "[clang]") {
  TempDir tmp;
  CompileResult r = compile_bpf("#pragma clang __debug llvm_fatal_error\nint x;\n", opts_in(tmp));
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("LLVM fatal error") != std::string::npos);
}

TEST_CASE("bad extra arguments are reported, not fatal", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  o.extra_args = {"-no-such-cc1-flag"};
  CompileResult r = compile_bpf(kProgram, o);
  CHECK_FALSE(r.ok);
  CHECK((!r.diags.empty() || !r.error.empty()));
}

TEST_CASE("extra_args reach the compiler", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  std::string src = "#ifndef NEEDED\n#error NEEDED missing\n#endif\nint x;\n";
  CHECK_FALSE(compile_bpf(src, o).ok);
  o.extra_args = {"-DNEEDED=1"};
  CHECK(compile_bpf(src, o).ok);
}

TEST_CASE("object cache serves identical compiles and keys on content", "[clang][cache]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  CompileResult first = compile_bpf(kProgram, o);
  REQUIRE(first.ok);
  CHECK_FALSE(first.cached);
  REQUIRE(first.cache_key.size() == 64);
  std::string cached_file = o.cache_dir + "/" + first.cache_key + ".o";
  REQUIRE(std::filesystem::exists(cached_file));

  CompileResult second = compile_bpf(kProgram, o);
  REQUIRE(second.ok);
  CHECK(second.cached);
  CHECK(second.cache_key == first.cache_key);
  CHECK(second.object == first.object);

  std::string other_src = std::string(kProgram) + "\n/* different */\n";
  CompileResult other = compile_bpf(other_src, o);
  REQUIRE(other.ok);
  CHECK_FALSE(other.cached);
  CHECK(other.cache_key != first.cache_key);

  CompileOptions renamed = o;
  renamed.virtual_name = "other.bpf.c";
  CHECK(compile_bpf(kProgram, renamed).cache_key != first.cache_key);
  CompileOptions with_arg = o;
  with_arg.extra_args = {"-DX=1"};
  CHECK(compile_bpf(kProgram, with_arg).cache_key != first.cache_key);

  SECTION("use_cache=false neither reads nor is served from the cache") {
    CompileOptions off = o;
    off.use_cache = false;
    CompileResult r = compile_bpf(kProgram, off);
    CHECK(r.ok);
    CHECK_FALSE(r.cached);
  }
  SECTION("a truncated cache file is recompiled") {
    std::filesystem::resize_file(cached_file, first.object.size() / 2);
    CompileResult r = compile_bpf(kProgram, o);
    REQUIRE(r.ok);
    CHECK_FALSE(r.cached);
    CHECK(r.object == first.object);
    CHECK(compile_bpf(kProgram, o).cached);  // repaired
  }
  SECTION("a cache file that is not a BPF ELF is recompiled") {
    std::vector<uint8_t> x86 = first.object;
    Elf64_Ehdr eh;
    std::memcpy(&eh, x86.data(), sizeof(eh));
    eh.e_machine = EM_X86_64;
    std::memcpy(x86.data(), &eh, sizeof(eh));
    std::ofstream(cached_file, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char *>(x86.data()), static_cast<long>(x86.size()));
    CompileResult r = compile_bpf(kProgram, o);
    REQUIRE(r.ok);
    CHECK_FALSE(r.cached);
    CHECK(r.object == first.object);
  }
  SECTION("no temp files are left behind") {
    for (const auto &e : std::filesystem::directory_iterator(o.cache_dir)) CHECK(e.path().extension() == ".o");
  }
}

TEST_CASE("an uncreatable cache dir does not fail the compile", "[clang][cache]") {
  TempDir tmp;
  std::string file = (tmp.path / "file").string();
  std::ofstream(file) << "not a directory";
  CompileOptions o;
  o.cache_dir = file + "/sub";  // under a regular file: can never be created, even as root
  CompileResult r = compile_bpf(kProgram, o);
  INFO(diag_dump(r));
  CHECK(r.ok);
  CHECK(r.error.empty());
  CHECK_FALSE(r.cached);
  CompileResult again = compile_bpf(kProgram, o);
  CHECK(again.ok);
  CHECK_FALSE(again.cached);
}

TEST_CASE("warnings are returned as diagnostics and the compile still succeeds", "[clang]") {
  TempDir tmp;
  CompileOptions o = opts_in(tmp);
  std::string src = std::string("#line 3 \"w.bdsl\"\n#warning \"check me\"\n") + kProgram;
  for (int round = 0; round < 2; ++round) {  // the second run must not lose the warning
    CompileResult r = compile_bpf(src, o);
    INFO(diag_dump(r));
    REQUIRE(r.ok);
    CHECK_FALSE(r.cached);
    REQUIRE(r.diags.size() == 1);
    CHECK(r.diags[0].severity == Severity::Warning);
    CHECK(r.diags[0].file == "w.bdsl");
    CHECK(r.diags[0].line == 3);
    CHECK(r.diags[0].message.find("check me") != std::string::npos);
  }
}

TEST_CASE("default_cache_dir follows XDG, then HOME", "[cache]") {
  {
    test::ScopedEnv xdg("XDG_CACHE_HOME", "/x/cache");
    CHECK(default_cache_dir() == "/x/cache/bpfbench");
  }
  test::ScopedEnv no_xdg("XDG_CACHE_HOME", "");
  {
    test::ScopedEnv home("HOME", "/home/u");
    CHECK(default_cache_dir() == "/home/u/.cache/bpfbench");
  }
  test::ScopedEnv no_home("HOME", "");
  CHECK(default_cache_dir().rfind("/tmp/bpfbench-cache-", 0) == 0);
}

TEST_CASE("clang_version_string names clang 19", "[clang]") {
  CHECK(clang_version_string().rfind("clang 19.", 0) == 0);
}
