// SafeDir (util/safe_dir.hpp), the one mechanism behind the caches and the profiles
// folder: which folders it trusts when another local user may have made or prepared them
// (made here as root with chown to uid 65534, "nobody"), and how it reads, writes, and
// removes what a killed run left. Needs root for chown; skipped with a reason otherwise.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/safe_dir.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"
#include "result_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using bpfbench::test::TempDir;

namespace {

constexpr uid_t kOther = 65534;  // "nobody": another local user

// A folder `p` with `mode` (chmod: the umask does not apply) owned by `uid`.
std::string made_folder(const fs::path &p, mode_t mode, uid_t uid = 0) {
  fs::create_directories(p);
  REQUIRE(::chmod(p.c_str(), mode) == 0);
  REQUIRE(::chown(p.c_str(), uid, uid) == 0);
  return p.string();
}

std::string owned_refusal(const std::string &path, bool create = false) {
  auto d = SafeDir::open_owned(path, create);
  return d ? "" : d.error().message;
}

std::string whole_file(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("SafeDir::open_owned: only a folder of ours that no one else can change, on a way no one else can change",
          "[cache][io]") {
  BB_REQUIRE_ROOT();
  TempDir t;  // mode 1777, like /tmp
  const fs::path d = t.path;
  SECTION("ours, 0700 or 0755: used; its path as given") {
    auto a = SafeDir::open_owned(made_folder(d / "a", 0700), false);
    REQUIRE(a);
    CHECK(a->path() == (d / "a").string());
    CHECK(owned_refusal(made_folder(d / "b", 0755)) == "");
  }
  SECTION("another user's folder, or ours writable by others") {
    CHECK(owned_refusal(made_folder(d / "c", 0700, kOther)) ==
          (d / "c").string() + " is owned by uid 65534, not by you (uid 0)");
    CHECK(owned_refusal(made_folder(d / "w", 0777)) == (d / "w").string() + " is writable by others (mode 0777)");
    CHECK(owned_refusal(made_folder(d / "s", 01777)) == (d / "s").string() + " is writable by others (mode 1777)");
  }
  SECTION("a folder on the way that someone else could change") {
    made_folder(d / "theirs", 0755, kOther);
    CHECK(owned_refusal(made_folder(d / "theirs" / "cache", 0700)) ==
          (d / "theirs").string() + " is owned by uid 65534 (a folder on the way must be root's or yours)");
    made_folder(d / "open", 0777);
    CHECK(owned_refusal(made_folder(d / "open" / "cache", 0700)) ==
          (d / "open").string() + " is writable by others (mode 0777, not sticky)");
    // Sticky (like /tmp): others may add names, not rename ours; what is in it is checked in turn.
    made_folder(d / "sticky", 01777);
    CHECK(owned_refusal(made_folder(d / "sticky" / "cache", 0700)) == "");
    CHECK(owned_refusal(made_folder(d / "sticky" / "planted", 0700, kOther)) ==
          (d / "sticky" / "planted").string() + " is owned by uid 65534, not by you (uid 0)");
  }
  SECTION("symlinks: another user's is never followed, ours is, with its target checked the same way") {
    const std::string target = made_folder(d / "root-owned", 0700);
    fs::create_directory_symlink(target, d / "their-link");
    REQUIRE(::lchown((d / "their-link").c_str(), kOther, kOther) == 0);
    CHECK(owned_refusal((d / "their-link").string()) ==
          (d / "their-link").string() + " is a symlink owned by uid 65534; not following it");
    fs::create_directory_symlink("root-owned", d / "our-link");
    CHECK(owned_refusal((d / "our-link").string()) == "");
    fs::create_directory_symlink(made_folder(d / "elsewhere", 0700, kOther), d / "our-link-to-theirs");
    CHECK(owned_refusal((d / "our-link-to-theirs").string()) ==
          (d / "elsewhere").string() + " is owned by uid 65534, not by you (uid 0)");
  }
  SECTION("missing: made 0700 with create, every level; else `missing`") {
    bool missing = false;
    auto none = SafeDir::open_owned((d / "x" / "y").string(), false, &missing);
    CHECK_FALSE(none);
    CHECK(missing);
    ::umask(0);  // the mode is 0700 whatever the umask
    auto made = SafeDir::open_owned((d / "x" / "y").string(), true, &missing);
    ::umask(022);
    REQUIRE(made);
    CHECK_FALSE(missing);
    for (const fs::path &p : {d / "x", d / "x" / "y"}) {
      struct stat st {};
      REQUIRE(::stat(p.c_str(), &st) == 0);
      CHECK((st.st_mode & 07777) == 0700);
    }
  }
  SECTION("a file where a folder should be") {
    std::ofstream(d / "file") << "x";
    CHECK(owned_refusal((d / "file" / "sub").string(), true) ==
          (d / "file").string() + " is a regular file, not a folder");
  }
}

TEST_CASE("SafeDir: reads only our own regular files, writes through no symlink, replaces no device", "[cache][io]") {
  BB_REQUIRE_ROOT();
  TempDir t;
  auto dir = SafeDir::open_owned(made_folder(t.path / "c", 0700), false);
  REQUIRE(dir);
  const fs::path c = t.path / "c";
  // What a read gave: the bytes, "absent" for a plain miss, or why it was refused.
  auto read = [&](const std::string &name, uint64_t max) -> std::string {
    auto r = dir->read(name, max);
    if (!r) return "refused: " + r.error().message;
    return *r ? "read: " + **r : "absent";
  };
  CHECK(read("absent", 100) == "absent");
  CHECK(dir->write("k.o", {"hello ", "world"}, 0600));
  CHECK(read("k.o", 100) == "read: hello world");
  CHECK(read("k.o", 5) == "refused: is larger than the 5 bytes limit");

  std::ofstream(t.path / "secret") << "root's secret";
  fs::create_symlink(t.path / "secret", c / "link.o");
  CHECK(read("link.o", 100) == "refused: is a symbolic link, not a regular file");
  std::ofstream(c / "theirs.o") << "planted";
  REQUIRE(::chown((c / "theirs.o").c_str(), kOther, kOther) == 0);
  CHECK(read("theirs.o", 100) == "refused: is owned by uid 65534, not by you (uid 0)");
  REQUIRE(::mkfifo((c / "fifo.o").c_str(), 0600) == 0);
  CHECK(read("fifo.o", 100) == "refused: is a FIFO, not a regular file");

  // A write replaces a symlink at the name; what it pointed to is untouched.
  CHECK(dir->write("link.o", {"new"}, 0600));
  CHECK(whole_file(t.path / "secret") == "root's secret");
  CHECK(fs::is_regular_file(fs::symlink_status(c / "link.o")));
  // A FIFO at the name is replaced (never opened); a device node is not.
  CHECK(dir->write("fifo.o", {"x"}, 0600));
  CHECK(read("fifo.o", 100) == "read: x");
  REQUIRE(::mknod((c / "null.o").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0);
  CHECK(test::expect_error(dir->write("null.o", {"x"}, 0600)) ==
        "cannot write " + c.string() +
            "/null.o: is a character device; bpfbench writes only regular files "
            "and will not replace it");
  CHECK(fs::is_character_file(fs::symlink_status(c / "null.o")));
  // Not opened: looked at first.
  CHECK(read("null.o", 100) == "refused: is a character device, not a regular file");
  for (const auto &e : fs::directory_iterator(c))
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("SafeDir::open_child: the profiles folder is made, and not followed through another user's symlink",
          "[profile][io]") {
  BB_REQUIRE_ROOT();
  TempDir t;
  const std::string parent = t.path.string();
  auto made = SafeDir::open_child(parent, "profiles");
  REQUIRE(made);
  CHECK(made->path() == parent + "/profiles");
  CHECK(fs::is_directory(fs::symlink_status(t.path / "profiles")));

  const std::string target = made_folder(t.path / "root-only", 0700);
  fs::create_directory_symlink(target, t.path / "p2");
  REQUIRE(::lchown((t.path / "p2").c_str(), kOther, kOther) == 0);
  auto linked = SafeDir::open_child(parent, "p2");
  REQUIRE_FALSE(linked);
  CHECK(linked.error().message == parent + "/p2 is a symlink owned by uid 65534; not following it");

  made_folder(t.path / "p3", 0755, kOther);
  auto theirs = SafeDir::open_child(parent, "p3");
  REQUIRE_FALSE(theirs);
  CHECK(theirs.error().message == parent + "/p3 is owned by uid 65534, not by root or you");
  made_folder(t.path / "p5", 0777);
  auto open = SafeDir::open_child(parent, "p5");
  REQUIRE_FALSE(open);
  CHECK(open.error().message == parent + "/p5 is writable by others (mode 0777, not sticky)");
  made_folder(t.path / "p4", 01777);  // root's and sticky: others cannot rename what we put in it
  CHECK(SafeDir::open_child(parent, "p4"));
}

TEST_CASE("SafeDir::make_private: 0700, locked while in use, removed after, a killed run's is removed next time",
          "[profile][io]") {
  BB_REQUIRE_ROOT();
  TempDir t;
  auto dir = SafeDir::open_child(t.path.string(), "profiles");
  REQUIRE(dir);
  const fs::path p = t.path / "profiles";
  std::string live_name;
  {
    auto live = dir->make_private(".bpfbench-tmp-");
    REQUIRE(live);
    live_name = fs::path(live->path()).filename().string();
    struct stat st {};
    REQUIRE(::stat(live->path().c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
    CHECK(live->write("perf.data", {"data"}, 0600));
    // What a run killed with SIGKILL leaves: a folder of ours with a file, locked by no one.
    fs::create_directory(p / ".bpfbench-tmp-killed");
    std::ofstream(p / ".bpfbench-tmp-killed" / "perf.data") << "partial";
    made_folder(p / ".bpfbench-tmp-theirs", 0700, kOther);
    CHECK(dir->remove_stale(".bpfbench-tmp-") == 1);
    CHECK_FALSE(fs::exists(p / ".bpfbench-tmp-killed"));
    CHECK(fs::exists(p / live_name / "perf.data"));  // in use: its lock is held
    CHECK(fs::exists(p / ".bpfbench-tmp-theirs"));   // not ours: not touched
  }
  CHECK_FALSE(fs::exists(p / live_name));  // the destructor removed it and its file
}
