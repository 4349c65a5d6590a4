// The compile child's limits and lifetime (util/limited_child.cpp) and the object
// cache's check of a file against its key (compiler/bpf/object_cache.cpp).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bpf/object_cache.hpp"
#include "fault_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using Clock = std::chrono::steady_clock;

namespace {

const char *kChildProgram = R"(#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
__u64 hits;
SEC("?raw_tp/sys_enter")
int bench(void *ctx) { __sync_fetch_and_add(&hits, 1); return 0; }
char _license[] SEC("license") = "GPL";
)";

// 2^depth copies of `1+`: as an initializer the AST grows without bound (memory); in an
// `#if` the preprocessor evaluates them one by one (CPU, little memory).
std::string macro_bomb(int depth, bool in_if) {
  std::string s = "#define A0 1+\n";
  for (int i = 1; i <= depth; ++i)
    s += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" + std::to_string(i - 1) + "\n";
  std::string top = "A" + std::to_string(depth) + " 1";
  return s + (in_if ? "#if " + top + "\n#endif\nint x;\n" : "int x = " + top + ";\n");
}

CompileOptions uncached(ChildLimits limits) {
  CompileOptions o;
  o.use_cache = false;
  o.limits = limits;
  return o;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Our children, zombies included: after compile_bpf returns there must be none.
size_t our_children() { return test::children_of(getpid()).size(); }

}  // namespace

TEST_CASE("a macro bomb ends at the compile child's memory limit with a clear error", "[clang][limits][no-asan]") {
  auto t0 = Clock::now();
  CompileResult r = compile_bpf(macro_bomb(30, false),
                                uncached({.memory_bytes = 256u << 20, .cpu_seconds = 60, .wall_seconds = 120}));
  INFO(r.error << " after " << seconds_since(t0) << " s");
  CHECK_FALSE(r.ok);
  CHECK(r.error == "the compile of bpfbench.bpf.c exceeded its memory limit (256 MiB of address space)");
  CHECK(our_children() == 0);
}

TEST_CASE("a compile that spins ends at the CPU limit", "[clang][limits]") {
  auto t0 = Clock::now();
  CompileResult r =
      compile_bpf(macro_bomb(30, true), uncached({.memory_bytes = 0, .cpu_seconds = 1, .wall_seconds = 120}));
  INFO(r.error);
  CHECK_FALSE(r.ok);
  CHECK(r.error == "the compile of bpfbench.bpf.c exceeded its CPU limit (1 s)");
  CHECK(seconds_since(t0) < 30);
  CHECK(our_children() == 0);
}

TEST_CASE("a compile past its wall-clock limit ends there, the child killed", "[clang][limits]") {
  // A spinning bomb under a generous CPU limit: only the parent's deadline can stop it.
  auto t0 = Clock::now();
  CompileResult r =
      compile_bpf(macro_bomb(30, true), uncached({.memory_bytes = 1u << 30, .cpu_seconds = 60, .wall_seconds = 1}));
  INFO(r.error);
  CHECK_FALSE(r.ok);
  CHECK(r.error.rfind("the compile of bpfbench.bpf.c exceeded its time limit (1 s of wall-clock time", 0) == 0);
  CHECK(seconds_since(t0) < 5);
  CHECK(our_children() == 0);
}

TEST_CASE("an include of a FIFO is refused before clang opens it", "[clang][limits]") {
  test::TempDir dir;
  fs::path fifo = dir.path / "fifo.h";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto t0 = Clock::now();
  CompileResult r = compile_bpf("#include \"" + fifo.string() + "\"\nint x;\n", uncached(kCompileLimits));
  CHECK_FALSE(r.ok);
  CHECK(seconds_since(t0) < 5);
  CHECK(our_children() == 0);
}

TEST_CASE("the compile child never reads bpfbench's stdin", "[clang][limits]") {
  // stdin: a pipe nobody writes to or closes. The child reading it would block.
  int p[2];
  REQUIRE(pipe(p) == 0);
  int saved = dup(STDIN_FILENO);
  dup2(p[0], STDIN_FILENO);
  CompileResult r = compile_bpf(std::string("#include \"/dev/stdin\"\n") + kChildProgram,
                                uncached({.memory_bytes = 1u << 30, .cpu_seconds = 60, .wall_seconds = 20}));
  dup2(saved, STDIN_FILENO);
  close(saved);
  close(p[0]);
  close(p[1]);
  INFO(r.error);
  // /dev/stdin is /dev/null in the child, and the header filter refuses a device anyway:
  // either way the compile ends at once instead of blocking on bpfbench's stdin.
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("time limit") == std::string::npos);
}

TEST_CASE("a stop kills the compile child at once and reaps it", "[clang][limits]") {
  std::atomic<bool> stop{false};
  CompileOptions o = uncached(kCompileLimits);
  o.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.store(true);
  });
  auto t0 = Clock::now();
  CompileResult r = compile_bpf(macro_bomb(30, true), o);
  double took = seconds_since(t0);
  stopper.join();
  CHECK(r.interrupted);
  CHECK_FALSE(r.ok);
  CHECK(took < 1.0);
  CHECK(our_children() == 0);
}

TEST_CASE("the compile child dies with the process that forked it", "[clang][limits]") {
  test::Subreaper reaper;  // the orphaned compile child is reparented to us
  // A trial where the child ended on its own (an exit status, not a signal) says nothing
  // about PR_SET_PDEATHSIG: it is run again, up to 3 times. One clean-clone CI run
  // (2026-12-04) saw that once, 0.14 s into the test, exit code not printed. The likely
  // path: the child was seen in /proc between fork() and its prctl(PR_SET_PDEATHSIG), the
  // helper died first, and the child's getppid() check ended it with exit 1 as designed
  // (util/limited_child.cpp). The WARN below prints the code.
  int status = 0;
  for (int trial = 0; trial < 3; ++trial) {
    pid_t helper = fork();
    if (helper == 0) {
      compile_bpf(macro_bomb(30, true), uncached(kCompileLimits));
      _exit(0);
    }
    // Wait for the helper's compile child, then kill the helper the hard way.
    pid_t grandchild = 0;
    for (auto t0 = Clock::now(); !grandchild && seconds_since(t0) < 10;
         std::this_thread::sleep_for(std::chrono::milliseconds(5)))
      if (auto kids = test::children_of(helper); !kids.empty()) grandchild = kids[0];
    REQUIRE(grandchild > 0);
    kill(helper, SIGKILL);
    waitpid(helper, nullptr, 0);
    // PR_SET_PDEATHSIG: the compile child gets SIGKILL; as our child now, we reap it.
    auto t0 = Clock::now();
    pid_t got = 0;
    while ((got = waitpid(grandchild, &status, WNOHANG)) == 0 && seconds_since(t0) < 5)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(got == grandchild);
    if (!WIFEXITED(status)) break;
    WARN("trial " << trial + 1 << ": the compile child exited " << WEXITSTATUS(status) << " before its parent died");
  }
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("a cached object is checked against its key and its hash", "[clang][cache]") {
  test::TempDir dir;
  CompileOptions o;
  o.cache_dir = (dir.path / "cache").string();
  CompileResult first = compile_bpf(kChildProgram, o);
  REQUIRE(first.ok);
  const std::string other_src = std::string(kChildProgram) + "__u64 other;\n";
  CompileResult other = compile_bpf(other_src, o);
  REQUIRE(other.ok);
  REQUIRE(other.object != first.object);
  const fs::path file = fs::path(o.cache_dir) / (first.cache_key + ".o");
  const fs::path other_file = fs::path(o.cache_dir) / (other.cache_key + ".o");
  REQUIRE(compile_bpf(kChildProgram, o).cached);

  auto recompiled = [&](const std::string &problem) {
    CompileResult r = compile_bpf(kChildProgram, o);
    INFO(r.cache_repaired);
    CHECK(r.ok);
    CHECK_FALSE(r.cached);
    CHECK(r.object == first.object);
    CHECK(r.cache_repaired == file.string() + ": " + problem);
    CompileResult again = compile_bpf(kChildProgram, o);  // replaced: a clean hit now
    CHECK(again.cached);
    CHECK(again.cache_repaired.empty());
    CHECK(again.object == first.object);
  };
  SECTION("another program's object under this key") {
    fs::copy_file(other_file, file, fs::copy_options::overwrite_existing);
    recompiled("holds the object of another program (its key differs)");
  }
  SECTION("another program's object under this key, the key in its header edited to match") {
    // What a forger who renames a file does: before the hash covered the key, it was loaded.
    std::string bytes;
    {
      std::ifstream in(other_file, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    REQUIRE(bytes.compare(8, 64, other.cache_key) == 0);
    bytes.replace(8, 64, first.cache_key);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    recompiled("corrupted (the object's hash differs)");
  }
  SECTION("a symlink to another program's file, a file of another user: never read, replaced") {
    fs::remove(file);
    fs::create_symlink(other_file, file);
    recompiled("is a symbolic link, not a regular file");
    CHECK(fs::is_regular_file(fs::symlink_status(other_file)));  // the store replaced the link, not its target
    if (geteuid() == 0) {
      REQUIRE(chown(file.c_str(), 65534, 65534) == 0);
      recompiled("is owned by uid 65534, not by you (uid 0)");
    }
  }
  SECTION("a byte of the object changed") {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file) - 20));
    f.put('\x5a');
    f.close();
    recompiled("corrupted (the object's hash differs)");
  }
  SECTION("a truncated file") {
    fs::resize_file(file, fs::file_size(file) - 100);
    recompiled("truncated or padded (the object's size differs)");
  }
  SECTION("a bare object (another tool, an older bpfbench)") {
    std::ofstream(file, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char *>(other.object.data()), static_cast<std::streamsize>(other.object.size()));
    recompiled("not a bpfbench cache file");
  }
  SECTION("a FIFO or a directory: never read, replaced") {
    fs::remove(file);
    REQUIRE(mkfifo(file.c_str(), 0600) == 0);
    recompiled("is a FIFO, not a regular file");
    fs::remove(file);
    fs::create_directory(file);
    CompileResult r = compile_bpf(kChildProgram, o);  // rename() cannot replace a directory
    CHECK(r.ok);
    CHECK(r.cache_repaired == file.string() + ": is a directory");
    CHECK_FALSE(r.cache_warning.empty());
  }
}
