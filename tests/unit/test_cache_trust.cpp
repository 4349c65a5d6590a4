// The object cache and the precompiled vmlinux.h cache when another local user prepared
// the folder (made here as root, then chown to uid 65534, "nobody"): a folder of theirs,
// one writable by others, one reached through their folder or symlink is neither read nor
// written; the compile goes on without it, with one warning naming the folder and why.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bpf/object_cache.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using bpfbench::test::TempDir;

namespace {

constexpr uid_t kNobody = 65534;

const char *kTrustProgram = R"(#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__u64 hits;

SEC("?raw_tp/sys_enter")
int bench_trigger(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

char _license[] SEC("license") = "GPL";
)";

void chown_all(const fs::path &p, uid_t uid) {
  REQUIRE(::lchown(p.c_str(), uid, uid) == 0);
  if (fs::is_directory(fs::symlink_status(p)))
    for (const auto &e : fs::recursive_directory_iterator(p)) REQUIRE(::lchown(e.path().c_str(), uid, uid) == 0);
}

std::vector<std::string> listing(const fs::path &dir) {
  std::vector<std::string> out;
  for (const auto &e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

size_t occurrences(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a cache folder someone else can change: a valid planted object is not loaded, nothing is written",
          "[cache][clang]") {
  BB_REQUIRE_ROOT();
  TempDir t;
  CompileOptions own;
  own.cache_dir = (t.path / "own").string();
  CompileResult real = compile_bpf(kTrustProgram, own);
  REQUIRE(real.ok);
  CompileResult other = compile_bpf(std::string(kTrustProgram) + "__u64 other;\n", own);
  REQUIRE(other.ok);
  REQUIRE(other.object != real.object);

  // A well-formed file under this program's key holding the other program: anyone can
  // write one (the hash is no secret), so only the folder's owner decides.
  auto plant = [&](const fs::path &dir) {
    REQUIRE(ObjectCache(dir.string()).store(real.cache_key, other.object) == "");
    REQUIRE(ObjectCache(dir.string()).load(real.cache_key).object == other.object);  // it would be a hit
  };
  auto compiled_without = [&](const fs::path &dir, const std::string &why) {
    const auto before = listing(dir);
    CompileOptions o;
    o.cache_dir = dir.string();
    CompileResult r = compile_bpf(kTrustProgram, o);
    REQUIRE(r.ok);
    CHECK_FALSE(r.cached);
    CHECK(r.object == real.object);
    CHECK(r.cache_warning == why);
    CHECK(r.cache_repaired.empty());
    CHECK(listing(dir) == before);  // nothing stored, nothing replaced
  };
  SECTION("another user's folder") {
    const fs::path theirs = t.path / "theirs";
    plant(theirs);
    chown_all(theirs, kNobody);
    compiled_without(theirs, theirs.string() + " is owned by uid 65534, not by you (uid 0)");
  }
  SECTION("another user's file in a world-writable folder") {
    const fs::path open = t.path / "open";
    plant(open);
    fs::permissions(open, fs::perms::all);
    chown_all(open / (real.cache_key + ".o"), kNobody);
    compiled_without(open, open.string() + " is writable by others (mode 0777)");
  }
  SECTION("our folder inside another user's") {
    const fs::path theirs = t.path / "home";
    plant(theirs / "bpfbench");
    fs::permissions(theirs / "bpfbench", fs::perms::owner_all);
    REQUIRE(::chown(theirs.c_str(), kNobody, kNobody) == 0);
    compiled_without(theirs / "bpfbench",
                     theirs.string() + " is owned by uid 65534 (a folder on the way must be root's or yours)");
  }
  SECTION("another user's symlink to a folder of root's: not followed, nothing written there") {
    const fs::path root_only = t.path / "root-only";
    fs::create_directory(root_only);
    fs::permissions(root_only, fs::perms::owner_all);
    fs::create_directory_symlink(root_only, t.path / "link");
    chown_all(t.path / "link", kNobody);
    CompileOptions o;
    o.cache_dir = (t.path / "link").string();
    CompileResult r = compile_bpf(kTrustProgram, o);
    REQUIRE(r.ok);
    CHECK(r.cache_warning == o.cache_dir + " is a symlink owned by uid 65534; not following it");
    CHECK(listing(root_only).empty());
  }
}

TEST_CASE("check --compile with another user's cache folder: compiled, one warning naming it and why, exit 0",
          "[cache][cli]") {
  BB_REQUIRE_ROOT();
  TempDir t;
  const std::string bdsl = t.write("t.bdsl", "bench trigger as \"t\" < prog rawtp; warmup 0s; duration 1s; >\n");
  const fs::path xdg = t.path / "xdg";
  fs::create_directories(xdg / "bpfbench");
  chown_all(xdg, kNobody);
  auto run = [&] {
    return test::run_process({"/usr/bin/env", "XDG_CACHE_HOME=" + xdg.string(), test::kBin, "check", "--compile", bdsl},
                             120);
  };
  for (int i = 0; i < 2; ++i) {  // the second run is served from nowhere either
    auto r = run();
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == bdsl + ": ok, 1 point, 1 BPF program compiled\n");
    CHECK(occurrences(r.err, "warning:") == 1);
    CHECK(r.err == "warning: the cache folder " + xdg.string() + "/bpfbench is not used (" + xdg.string() +
                       " is owned by uid 65534 (a folder on the way must be root's or yours)); every run compiles "
                       "again\n");
    CHECK(listing(xdg / "bpfbench").empty());
  }
}
