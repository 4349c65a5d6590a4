// What a run killed outright leaves behind, and the next run's sweep: process stamps
// (util/process_owner.hpp), point memory cgroups (runtime/memory_cgroup.hpp) swept
// only when their maker has ended; for real (root): `bpfbench run` SIGKILLed during an
// htab_mem point, whose cgroup the next point removes.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "util/process_owner.hpp"
#include "point_runner.hpp"
#include "runtime/memory_cgroup.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace bpfbench;
namespace fs = std::filesystem;

namespace {

// The pid of a child that has ended and been reaped.
pid_t ended_pid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

std::vector<std::string> names_in(const fs::path &dir) {
  std::vector<std::string> out;
  for (const auto &e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("process stamps: pid and start time tell a live maker from an ended one", "[leftovers]") {
  const std::string own = own_stamp();
  auto s = parse_stamp(own);
  REQUIRE(s);
  CHECK(s->pid == getpid());
  CHECK(s->start_ticks == process_start_ticks(getpid()));
  CHECK_FALSE(stamp_owner_ended(*s));
  CHECK(stamp_owner_ended({s->pid, s->start_ticks + 1}));  // the pid now is another process
  CHECK(stamp_owner_ended({ended_pid(), 1}));
  CHECK(parse_stamp(own + "-123456-x"));  // what follows a '-' is the caller's
  for (const char *bad : {"", "-1-2", "12", "12-", "12-x", "x-12", "0-5", "12-34x"}) {
    INFO(bad);
    CHECK_FALSE(parse_stamp(bad));
  }
  // A zombie has ended too: it holds nothing any more.
  pid_t z = fork();
  if (z == 0) _exit(0);
  auto zs = process_start_ticks(z);
  REQUIRE(zs);
  for (int i = 0; i < 200; ++i) {  // until it is a zombie
    siginfo_t si{};
    if (waitid(P_PID, static_cast<id_t>(z), &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == z) break;
    usleep(5000);
  }
  CHECK(stamp_owner_ended({z, *zs}));
  waitpid(z, nullptr, 0);
}

TEST_CASE("memory cgroup sweep: only empty point cgroups of ended processes go", "[leftovers]") {
  // The sweep only rmdirs: on a plain folder it behaves as on a cgroup folder whose
  // children are empty (a cgroup with a process or a child cannot be removed).
  test::TempDir t;
  const pid_t dead = ended_pid();
  const std::string dead_stamp = std::to_string(dead) + "-" + std::to_string(1);
  for (const std::string &name : std::vector<std::string>{
           "bpfbench-" + dead_stamp + "-100",               // ended: removed
           "bpfbench-" + std::to_string(dead) + "-99",      // an older version's name, pid free: removed
           "bpfbench-" + own_stamp() + "-100",              // this live process: kept
           "bpfbench-" + std::to_string(getpid()) + "-99",  // older name, pid alive: kept
           "bpfbench-" + dead_stamp + "-7",                 // ended but not empty: kept (rmdir fails)
           std::string("bpfbench-x-1-2"),                   // not a stamp: kept
           "other-" + dead_stamp + "-1",                    // not ours: kept
       })
    fs::create_directory(t.path / name);
  fs::create_directory(t.path / ("bpfbench-" + dead_stamp + "-7") / "child");
  fs::create_directory_symlink(t.path / "other-x", t.path / ("bpfbench-" + dead_stamp + "-8"));
  fs::create_directory(t.path / "other-x");

  std::vector<std::string> removed = remove_ended_cgroups(t.path.string());
  std::sort(removed.begin(), removed.end());
  CHECK(removed == std::vector<std::string>{(t.path / ("bpfbench-" + dead_stamp + "-100")).string(),
                                            (t.path / ("bpfbench-" + std::to_string(dead) + "-99")).string()});
  CHECK(fs::exists(t.path / ("bpfbench-" + own_stamp() + "-100")));
  CHECK(fs::is_symlink(t.path / ("bpfbench-" + dead_stamp + "-8")));
  CHECK(fs::exists(t.path / "other-x"));
  CHECK(names_in(t.path).size() == 7);
}

TEST_CASE("a run SIGKILLed in an htab_mem point leaves its cgroup, the next point removes it",
          "[runtime][htab_mem][leftovers]") {
  BB_REQUIRE_ROOT();
  auto h = find_memory_hierarchy();
  if (!h) {
    WARN("skipped: " << h.error().message);
    return;
  }
  const fs::path home = h->mount + (h->path == "/" ? "" : h->path);
  test::TempDir t;
  const std::string bdsl = t.write("h.bdsl", "bench htab_mem as \"h\" < prog overwrite; producers 2; warmup 0; "
                                             "duration 30s; report hits, memory; >\n");
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    execl(test::kBin.c_str(), "bpfbench", "run", bdsl.c_str(), "--calibration", "off", static_cast<char *>(nullptr));
    _exit(127);
  }
  // Its point's cgroup, bpfbench-<pid>-<start>-<ns>, appears beside this process's own.
  const std::string prefix = "bpfbench-" + std::to_string(pid) + "-";
  fs::path left;
  test::wait_until(
      [&] {
        std::error_code ec;
        for (const auto &e : fs::directory_iterator(home, ec))
          if (e.path().filename().string().rfind(prefix, 0) == 0) left = e.path();
        return !left.empty();
      },
      std::chrono::seconds(60), std::chrono::milliseconds(20));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  REQUIRE(!left.empty());
  REQUIRE(fs::exists(left));  // no destructor ran
  // Another process's cgroup that is still alive (this one's stamp) stays.
  const fs::path live = home / ("bpfbench-" + own_stamp() + "-1");
  REQUIRE(fs::create_directory(live));
  test::PointRunner r;
  PlanPoint p = r.point("htab_mem", "overwrite");
  p.producers = 2;
  PointResult res = r.run(p);
  const bool removed = !fs::exists(left), kept = fs::exists(live);
  fs::remove(live);
  INFO(res.reason);
  CHECK(res.status == PointResult::Status::Ok);
  CHECK(removed);
  CHECK(kept);
}
