// vmlinux.h for CO-RE: generated from the kernel's BTF, precompiled once per BTF and cached;
// the prelude without <linux/bpf.h>; errors located; a template or inline C using it runs.
#include <catch2/catch.hpp>

#include <bpf/btf.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_paths.hpp"
#include "compiler/bpf/clang_compile.hpp"
#include "compiler/pipeline.hpp"
#include "compiler/bpf/vmlinux_header.hpp"
#include "compiler/bpf/vmlinux_pch.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using bpfbench::test::run_process;
using bpfbench::test::TempDir;

namespace {

using bpfbench::test::kBin;

// The kernel's BTF is world-readable; without it (a kernel without CONFIG_DEBUG_INFO_BTF)
// there is no vmlinux.h to test.
#define BB_REQUIRE_BTF()                                                                                               \
  do {                                                                                                                 \
    if (::access(kKernelBtfPath, R_OK) != 0) {                                                                         \
      WARN("skipped: " << kKernelBtfPath << " is not readable");                                                       \
      return;                                                                                                          \
    }                                                                                                                  \
  } while (0)

// A CO-RE program the way the emitter writes one with vmlinux.h: no <linux/bpf.h>.
const char *kVmlinuxCoreProgram = R"(#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

__u64 seen;

SEC("?raw_tp")
int core_tgid(void *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	seen = BPF_CORE_READ(t, tgid) + BPF_CORE_READ(t, real_parent, pid);
	return 0;
}

char _license[] SEC("license") = "GPL";
)";

VmlinuxOptions in_dir(const TempDir &d, const std::string &btf = "") {
  VmlinuxOptions o;
  o.cache_dir = (d.path / "cache").string();
  o.btf_path = btf;
  return o;
}

std::string pch_file(const VmlinuxOptions &o, const VmlinuxResult &r) {
  return o.cache_dir + "/" + r.vmlinux->key + ".vmlinux.pch";
}

// Adds `struct bb_other_kernel { int bb_field; }`: another kernel, as far as the hash and
// vmlinux.h can tell.
void add_other_struct(struct btf *b, int int_id) {
  REQUIRE(btf__add_struct(b, "bb_other_kernel", 4) > 0);
  REQUIRE(btf__add_field(b, "bb_field", int_id, 0, 0) == 0);
}

// Writes `b` to `path` and frees it.
void save_btf(struct btf *b, const std::string &path) {
  __u32 size = 0;
  const void *raw = btf__raw_data(b, &size);
  REQUIRE(raw);
  std::ofstream(path, std::ios::binary).write(static_cast<const char *>(raw), size);
  btf__free(b);
}

// The kernel's BTF with `struct bb_other_kernel` added, written to `path`.
void write_other_btf(const std::string &path) {
  struct btf *b = btf__parse_raw(kKernelBtfPath);
  REQUIRE(b);
  int int_id = btf__find_by_name_kind(b, "int", BTF_KIND_INT);
  REQUIRE(int_id > 0);
  add_other_struct(b, int_id);
  save_btf(b, path);
}

// A BTF of a few types, written to `path`: `int`, `struct task_struct { int pid; int tgid; }`
// and, with `other`, `struct bb_other_kernel`. The cache tests need a BTF, not the kernel's:
// its vmlinux.h precompiles in a fraction of the full header's time (a full one took 5-8 s
// under ASan, and the damaged-PCH test builds four).
void write_small_btf(const std::string &path, bool other) {
  struct btf *b = btf__new_empty();
  REQUIRE(b);
  int int_id = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
  REQUIRE(int_id > 0);
  REQUIRE(btf__add_struct(b, "task_struct", 8) > 0);
  REQUIRE(btf__add_field(b, "pid", int_id, 0, 0) == 0);
  REQUIRE(btf__add_field(b, "tgid", int_id, 32, 0) == 0);
  if (other) add_other_struct(b, int_id);
  save_btf(b, path);
}

// The sum of `metric` over a point's samples in a results file.
uint64_t total(const nlohmann::json &point, const char *metric) {
  uint64_t n = 0;
  for (const auto &s : point["samples"]) n += s["deltas"].value(metric, uint64_t{0});
  return n;
}

std::string diag_text(const CompileResult &r) {
  std::string s = r.error;
  for (const auto &d : r.diags) s += "\n" + d.file + ":" + std::to_string(d.line) + ": " + d.message;
  return s;
}

}  // namespace

TEST_CASE("vmlinux.h is generated from the BTF and precompiled once, later compiles reuse the cached PCH",
          "[vmlinux][clang][cache]") {
  BB_REQUIRE_BTF();
  TempDir d;
  VmlinuxOptions o = in_dir(d);
  VmlinuxResult first = prepare_vmlinux(o);
  INFO(first.error);
  REQUIRE(first.vmlinux);
  CHECK_FALSE(first.cached);
  CHECK(first.build_seconds > 0);
  CHECK(first.btf_path == kKernelBtfPath);
  CHECK(first.btf_hash.size() == 64);
  CHECK(first.vmlinux->header.starts_with("/* vmlinux.h generated by bpfbench"));
  CHECK(first.vmlinux->header.find("\nstruct task_struct {\n") != std::string::npos);
  CHECK(first.vmlinux->pch.starts_with("CPCH"));
  CHECK(first.cache_warning.empty());
  REQUIRE(fs::is_regular_file(pch_file(o, first)));
  const auto mtime = fs::last_write_time(pch_file(o, first));

  VmlinuxResult second = prepare_vmlinux(o);
  REQUIRE(second.vmlinux);
  CHECK(second.cached);  // the cache-hit fact: read back, not built
  CHECK(second.cache_repaired.empty());
  CHECK(second.vmlinux->key == first.vmlinux->key);
  CHECK(second.vmlinux->pch == first.vmlinux->pch);
  CHECK(second.vmlinux->header == first.vmlinux->header);
  CHECK(fs::last_write_time(pch_file(o, first)) == mtime);  // not written again

  // Compiles with the cached PCH give a CO-RE object; its key covers the PCH's.
  CompileOptions co;
  co.cache_dir = o.cache_dir;
  co.vmlinux = &*second.vmlinux;
  CompileResult obj = compile_bpf(kVmlinuxCoreProgram, co);
  INFO(diag_text(obj));
  REQUIRE(obj.ok);
  const std::string bytes(obj.object.begin(), obj.object.end());
  CHECK(bytes.find(".BTF.ext") != std::string::npos);
  CHECK(bytes.find("task_struct") != std::string::npos);
  CHECK(compile_bpf(kVmlinuxCoreProgram, co).cached);
  PrecompiledVmlinux other_kernel = *second.vmlinux;
  other_kernel.key = std::string(64, '0');
  co.vmlinux = &other_kernel;
  CompileResult rekeyed = compile_bpf(kVmlinuxCoreProgram, co);
  CHECK_FALSE(rekeyed.cached);  // another kernel's BTF: never a stale object
  CHECK(rekeyed.cache_key != obj.cache_key);
}

TEST_CASE("a different BTF gets its own vmlinux.h and PCH", "[vmlinux][clang][cache]") {
  TempDir d;
  const std::string base = (d.path / "base.btf").string(), other = (d.path / "other.btf").string();
  write_small_btf(base, false);
  write_small_btf(other, true);  // one more struct: another kernel, as far as the hash can tell
  VmlinuxOptions o = in_dir(d, base);
  VmlinuxResult first = prepare_vmlinux(o);
  INFO(first.error);
  REQUIRE(first.vmlinux);
  CHECK(first.vmlinux->header.find("struct task_struct {\n\tint pid;\n\tint tgid;\n};") != std::string::npos);
  VmlinuxResult r = prepare_vmlinux(in_dir(d, other));
  INFO(r.error);
  REQUIRE(r.vmlinux);
  CHECK_FALSE(r.cached);
  CHECK(r.btf_path == other);
  CHECK(r.btf_hash != first.btf_hash);
  CHECK(r.vmlinux->key != first.vmlinux->key);
  CHECK(r.vmlinux->header.find("struct bb_other_kernel {\n\tint bb_field;\n};") != std::string::npos);
  CHECK(first.vmlinux->header.find("bb_other_kernel") == std::string::npos);
  CHECK(fs::is_regular_file(pch_file(o, r)));
  CHECK(fs::is_regular_file(pch_file(o, first)));  // both kept
  CHECK(prepare_vmlinux(in_dir(d, other)).cached);
  CHECK(prepare_vmlinux(o).cached);
}

TEST_CASE("a damaged cached PCH is rebuilt and replaced, never used", "[vmlinux][clang][cache]") {
  TempDir d;
  const std::string btf = (d.path / "small.btf").string();
  write_small_btf(btf, false);
  VmlinuxOptions o = in_dir(d, btf);
  VmlinuxResult first = prepare_vmlinux(o);
  REQUIRE(first.vmlinux);
  const std::string file = pch_file(o, first);
  // One after the other (a PCH build takes seconds): each damage is found and repaired.
  auto rebuilt = [&](const std::string &problem) {
    VmlinuxResult r = prepare_vmlinux(o);
    INFO(r.error);
    REQUIRE(r.vmlinux);
    CHECK_FALSE(r.cached);
    CHECK(r.cache_repaired == file + ": " + problem);
    CHECK(r.vmlinux->pch == first.vmlinux->pch);  // no timestamps: the same bytes again
    CHECK(r.vmlinux->header == first.vmlinux->header);
    VmlinuxResult again = prepare_vmlinux(o);
    CHECK(again.cached);
    CHECK(again.cache_repaired.empty());
  };
  fs::resize_file(file, fs::file_size(file) / 2);
  rebuilt("truncated or padded (the precompiled vmlinux.h's size differs)");
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file) - 1000));
    f.put('\x5a');
  }
  rebuilt("corrupted (the precompiled vmlinux.h's hash differs)");
  fs::resize_file(file, 0);
  rebuilt("not a bpfbench cache file");
}

TEST_CASE("an unwritable cache dir: vmlinux.h is precompiled anyway, with a warning", "[vmlinux][clang][cache]") {
  TempDir d;
  std::ofstream(d.path / "file") << "not a directory";
  VmlinuxOptions o;
  o.cache_dir = (d.path / "file" / "sub").string();  // under a regular file: never creatable, even as root
  o.btf_path = (d.path / "small.btf").string();
  write_small_btf(o.btf_path, false);
  VmlinuxResult r = prepare_vmlinux(o);
  REQUIRE(r.vmlinux);
  CHECK_FALSE(r.cached);
  CHECK(r.cache_warning == (d.path / "file").string() + " is a regular file, not a folder");
  CHECK_FALSE(prepare_vmlinux(o).cached);
}

TEST_CASE("no BTF: a clear error, no vmlinux.h", "[vmlinux]") {
  TempDir d;
  VmlinuxResult r = prepare_vmlinux(in_dir(d, (d.path / "none").string()));
  CHECK_FALSE(r.vmlinux);
  CHECK(r.error == (d.path / "none").string() + " is missing: there is no BTF to generate vmlinux.h from (a kernel "
                                                "built without CONFIG_DEBUG_INFO_BTF has none)");
  const std::string junk = d.write("junk.btf", "not BTF at all");
  r = prepare_vmlinux(in_dir(d, junk));
  CHECK_FALSE(r.vmlinux);
  CHECK(r.error.starts_with(junk + " is not valid BTF (libbpf: "));
}

namespace {

// A .bdsl in its own folder, run through the CLI with its own cache folder and,
// optionally, another BTF.
struct CliCase {
  TempDir d;
  std::string bdsl, cache;
  explicit CliCase(const std::string &text) : bdsl(d.write("t.bdsl", text)), cache((d.path / "xdg").string()) {}
  bpfbench::test::ProcessResult run(std::vector<std::string> args, const std::string &btf = "", int timeout = 120) {
    std::vector<std::string> argv = {"/usr/bin/env", "XDG_CACHE_HOME=" + cache};
    if (!btf.empty()) argv.push_back(std::string(kKernelBtfEnv) + "=" + btf);
    argv.push_back(kBin);
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, timeout);
  }
};

// Inline C that reads the current task with CO-RE and counts only when its tgid, read
// through vmlinux.h's struct task_struct, is bpfbench's.
const char *kInlineCore = "bench trigger as \"core\" < prog tp; warmup 0s; duration 1s;\n"
                          "  code globals {\n"
                          "#include <vmlinux.h>\n"
                          "#include <bpf/bpf_core_read.h>\n"
                          "  }\n"
                          "  code body {\n"
                          "    struct task_struct *t = (struct task_struct *)bpf_get_current_task();\n"
                          "    if ((__u32)BPF_CORE_READ(t, tgid) != bb_tgid) return;\n"
                          "  }\n"
                          ">\n"
                          "bench trigger as \"plain\" < prog tp; warmup 0s; duration 1s; >\n";

}  // namespace

TEST_CASE("emit: vmlinux.h leads the prelude instead of <linux/bpf.h>, only where included", "[vmlinux][cli]") {
  CliCase c(kInlineCore);
  auto core = c.run({"emit", c.bdsl, "--point", "0"});
  INFO(core.err);
  REQUIRE(core.exit_code == 0);
  CHECK(core.out.find("#include <vmlinux.h>") < core.out.find("#include <bpf/bpf_helpers.h>"));
  CHECK(core.out.find("#include <linux/bpf.h>") == std::string::npos);
  auto plain = c.run({"emit", c.bdsl, "--point", "1"});
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n") != std::string::npos);
  CHECK(plain.out.find("#include <vmlinux.h>") == std::string::npos);
}

TEST_CASE("check --compile: inline C with vmlinux.h compiles, the second run takes the cached PCH", "[vmlinux][cli]") {
  BB_REQUIRE_BTF();
  CliCase c(kInlineCore);
  auto first = c.run({"check", "--compile", c.bdsl});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find("2 BPF programs compiled (vmlinux.h precompiled for this kernel in ") != std::string::npos);
  auto second = c.run({"check", "--compile", c.bdsl});
  REQUIRE(second.exit_code == 0);
  CHECK(second.out.find("2 BPF programs compiled (vmlinux.h: the cached PCH)") != std::string::npos);
}

TEST_CASE("check --compile with an unusable cache folder: compiled anyway, one warning for both caches",
          "[vmlinux][cli]") {
  BB_REQUIRE_BTF();
  CliCase c(kInlineCore);
  c.d.write("file", "not a directory");
  c.cache = (c.d.path / "file").string();  // $XDG_CACHE_HOME/bpfbench under a regular file
  auto r = c.run({"check", "--compile", c.bdsl});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("2 BPF programs compiled (vmlinux.h precompiled for this kernel in ") != std::string::npos);
  auto count = [&](const std::string &what) {
    size_t n = 0;
    for (size_t at = r.err.find(what); at != std::string::npos; at = r.err.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("warning: the cache folder " + c.cache + "/bpfbench is not used (" + c.cache +
              " is a regular file, not a folder); every run compiles again\n") == 1);
  CHECK(count("warning:") == 1);
}

TEST_CASE("vmlinux.h errors are located: no BTF at the #include, mistakes in the C at their .bdsl line",
          "[vmlinux][cli]") {
  BB_REQUIRE_BTF();
  CliCase c(kInlineCore);
  const std::string none = (c.d.path / "none").string();
  auto r = c.run({"check", "--compile", c.bdsl}, none);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(c.bdsl + ":3:1: error: in inline BPF C: vmlinux.h: " + none +
                   " is missing: there is no BTF to generate vmlinux.h from (a kernel built without "
                   "CONFIG_DEBUG_INFO_BTF has none)\n#include <vmlinux.h>\n") != std::string::npos);
  CHECK(r.err.find("note: in the BPF program generated for 'core'") != std::string::npos);
  // In a template: at the template's line.
  const std::string tmpl = c.d.write("tmpl.bdsl", "bench core_task < >\n");
  r = c.run({"check", "--compile", "--templates", test::fixtures_dir(), tmpl}, none);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(test::fixtures_dir() +
                   "/core_task/prog.bpf.c:3:1: error: in the template of family "
                   "'core_task': vmlinux.h: " +
                   none + " is missing") != std::string::npos);

  // The rest share c's cache: the PCH is built once. Each file's bench is "b" in a
  // trigger program; `globals` and `body` are its code blocks (line 3 and 5).
  auto fails_with = [&](const std::string &name, const std::string &globals, const std::string &body,
                        const std::string &where, const std::string &message) {
    const std::string f = c.d.write(name, "bench trigger as \"b\" < prog tp;\n  code globals {\n" + globals +
                                              "\n  }\n  code body {" + body + "}\n>\n");
    auto r = c.run({"check", "--compile", f});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find((where.empty() ? f : (c.d.path / where).string()) + message) != std::string::npos);
    return r.err;
  };
  fails_with("syntax.bdsl", "#include <vmlinux.h>", " struct task_struct *t = 0; int x = t->tgid +; ", "",
             ":5:59: error: in inline BPF C: expected expression");
  fails_with("field.bdsl", "#include <vmlinux.h>", " struct task_struct *t = 0; int x = t->bb_no_such_field; ", "",
             ":5:53: error: in inline BPF C: no member named 'bb_no_such_field' in 'struct task_struct'");
  // vmlinux.h is there for the code that includes it, not for a header it includes.
  c.d.write("my_core.h", "#include <vmlinux.h>\n");
  std::string err = fails_with("nested.bdsl", "#include \"my_core.h\"", "", "my_core.h",
                               ":1:10-20: error: 'vmlinux.h' file not found");
  CHECK(err.find("hint: vmlinux.h is there for a template or code block that includes it itself") != std::string::npos);
}

TEST_CASE("BPFBENCH_VMLINUX_BTF: another BTF's types, another PCH", "[vmlinux][cli]") {
  BB_REQUIRE_BTF();
  CliCase c("bench trigger as \"other\" < prog tp;\n"
            "  code globals {\n"
            "#include <vmlinux.h>\n"
            "struct bb_other_kernel bb_seen;\n"
            "  }\n"
            ">\n");
  const std::string other = (c.d.path / "other.btf").string();
  write_other_btf(other);  // the running kernel's BTF has no struct bb_other_kernel
  auto r = c.run({"check", "--compile", c.bdsl}, other);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("(vmlinux.h precompiled for this kernel in ") != std::string::npos);
  r = c.run({"check", "--compile", c.bdsl}, other);
  CHECK(r.out.find("(vmlinux.h: the cached PCH)") != std::string::npos);
}

TEST_CASE("a template that includes vmlinux.h reads the task with CO-RE and counts", "[vmlinux][runtime]") {
  BB_REQUIRE_ROOT();
  BB_REQUIRE_BTF();
  CliCase c("bench core_task as \"tgid\" < warmup 0s; duration 1s; >\n");
  const std::string json = (c.d.path / "r.json").string();
  auto r = c.run({"run", "-q", "--templates", test::fixtures_dir(), c.bdsl, "--json", json});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(json);
  auto j = nlohmann::json::parse(in);
  const auto &p = j["points"].at(0);
  REQUIRE(p["status"] == "ok");
  CHECK(total(p, "hits") > 0);
  CHECK(total(p, "misses") == 0);  // every run's task, read through vmlinux.h's types, is bpfbench's
}

TEST_CASE("inline C reads the task with CO-RE through vmlinux.h and counts", "[vmlinux][runtime]") {
  BB_REQUIRE_ROOT();
  BB_REQUIRE_BTF();
  CliCase c(kInlineCore);
  const std::string json = (c.d.path / "r.json").string();
  auto r = c.run({"run", "-q", c.bdsl, "--json", json});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(json);
  auto j = nlohmann::json::parse(in);
  for (const auto &p : j["points"]) {
    INFO(p["label"]);
    REQUIRE(p["status"] == "ok");
    CHECK(total(p, "hits") > 0);  // only calls whose task's tgid (CO-RE) is bpfbench's count
  }
}
