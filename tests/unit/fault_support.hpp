// Helpers of the fault tests (test_faults.cpp): BPF objects and processes a run leaves
// behind, result files that must parse, and commands run as another user or in a
// private mount namespace.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace bpfbench::test {

// IDs of the BPF programs, maps and links alive in the kernel.
struct BpfIds {
  std::set<uint32_t> progs, maps, links;
};
BpfIds live_bpf_ids();

// What of the objects created since `before` is still alive after up to `wait_ms` (the
// kernel frees detached programs and maps after an RCU grace period) and is held by no
// live process, directly or through a held program or map of maps (so it is not another
// test run's, on a shared machine): "" when nothing, else e.g. "prog 812 (bench_rawtp)".
std::string leaked_bpf_objects(const BpfIds &before, int wait_ms = 10000);

// Every process whose parent is `pid` (from /proc/<p>/stat).
std::vector<pid_t> children_of(pid_t pid);

// While alive, this process is a child subreaper (PR_SET_CHILD_SUBREAPER): the
// grandchildren a finished child leaves behind are reparented here, where the test can
// see them. The destructor kills and reaps what is left, then restores the setting.
class Subreaper {
 public:
  Subreaper();
  ~Subreaper();
  Subreaper(const Subreaper &) = delete;
  Subreaper &operator=(const Subreaper &) = delete;
  // Processes reparented to us (alive or zombie) since the last call; they are killed
  // and reaped. Call after waitpid() of the direct child.
  std::vector<pid_t> take_orphans();

 private:
  int previous_ = 0;
};

std::string read_text(const std::filesystem::path &p);

// Text a C++ exception escaping or std::terminate would leave on stderr.
bool has_exception_text(const std::string &text);

// "" when `text` is CSV with a header and every record has the header's number of
// fields (RFC 4180 quoting); else what is wrong. `rows` gets the records after the header.
std::string check_csv(const std::string &text, std::vector<std::vector<std::string>> *rows = nullptr);

// An unprivileged user for the tests (created with useradd when missing): uid and gid.
struct TestUser {
  uid_t uid = 0;
  gid_t gid = 0;
  bool ok = false;
};
TestUser test_user(const std::string &name = "bpfbench-test");

// argv that runs `cmd` as `u` through setpriv with no capabilities but `caps`
// (setpriv's syntax: "" or "+bpf,+perfmon", given as inheritable + ambient) and `env`.
std::vector<std::string> as_user(const TestUser &u, const std::vector<std::string> &cmd,
                                 const std::vector<std::string> &env = {}, const std::string &caps = "");

// argv that runs the shell `script` in a private mount namespace (unshare -m), where it
// may mount and unmount freely; "$@" in the script is `args`.
std::vector<std::string> in_mount_namespace(const std::string &script, const std::vector<std::string> &args);

}  // namespace bpfbench::test
