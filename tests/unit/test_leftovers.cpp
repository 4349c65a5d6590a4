// What a run killed outright leaves behind, and the next run's sweep: process stamps
// (compiler/process_owner.hpp).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "compiler/process_owner.hpp"
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
