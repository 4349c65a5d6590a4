#include "fault_support.hpp"

#include <bpf/bpf.h>
#include <dirent.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "run_process.hpp"

namespace fs = std::filesystem;

namespace bpfbench::test {

namespace {

std::set<uint32_t> ids(int (*next)(__u32, __u32 *)) {
  std::set<uint32_t> out;
  __u32 id = 0;
  while (next(id, &id) == 0) out.insert(id);
  return out;
}

std::set<uint32_t> minus(const std::set<uint32_t> &a, const std::set<uint32_t> &b) {
  std::set<uint32_t> out;
  for (uint32_t x : a)
    if (!b.count(x)) out.insert(x);
  return out;
}

std::vector<pid_t> all_pids() {
  std::vector<pid_t> out;
  DIR *d = opendir("/proc");
  if (!d) return out;
  while (dirent *e = readdir(d)) {
    char *end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0') out.push_back(static_cast<pid_t>(pid));
  }
  closedir(d);
  return out;
}

// The BPF objects some live process holds an fd of (fdinfo prog_id/map_id/link_id
// lines), plus the maps those programs use.
BpfIds held_by_processes() {
  BpfIds held;
  for (pid_t pid : all_pids()) {
    fs::path dir = fs::path("/proc") / std::to_string(pid) / "fdinfo";
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec)) {
      std::ifstream in(e.path());
      std::string key;
      uint64_t value = 0;
      std::string line;
      while (std::getline(in, line)) {
        std::istringstream ls(line);
        if (!(ls >> key >> value)) continue;
        if (key == "prog_id:") held.progs.insert(static_cast<uint32_t>(value));
        if (key == "map_id:") held.maps.insert(static_cast<uint32_t>(value));
        if (key == "link_id:") held.links.insert(static_cast<uint32_t>(value));
      }
    }
  }
  for (uint32_t prog : std::set<uint32_t>(held.progs)) {
    int fd = bpf_prog_get_fd_by_id(prog);
    if (fd < 0) continue;
    uint32_t map_ids[64] = {};
    bpf_prog_info info{};
    info.nr_map_ids = 64;
    info.map_ids = reinterpret_cast<uint64_t>(map_ids);
    uint32_t len = sizeof(info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
      for (uint32_t i = 0; i < std::min<uint32_t>(info.nr_map_ids, 64); ++i) held.maps.insert(map_ids[i]);
    close(fd);
  }
  // Inner maps are held by their outer map only (a lookup from user space gives the ID).
  for (uint32_t outer : std::set<uint32_t>(held.maps)) {
    int fd = bpf_map_get_fd_by_id(outer);
    if (fd < 0) continue;
    bpf_map_info info{};
    uint32_t len = sizeof(info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
        (info.type == BPF_MAP_TYPE_ARRAY_OF_MAPS || info.type == BPF_MAP_TYPE_HASH_OF_MAPS) && info.key_size <= 64) {
      uint8_t key[64], next[64];
      uint32_t inner = 0;
      for (void *k = nullptr; bpf_map_get_next_key(fd, k, next) == 0; k = key) {
        std::memcpy(key, next, info.key_size);
        if (bpf_map_lookup_elem(fd, key, &inner) == 0) held.maps.insert(inner);
      }
    }
    close(fd);
  }
  return held;
}

std::string map_name(uint32_t id) {
  int fd = bpf_map_get_fd_by_id(id);
  if (fd < 0) return "gone";
  bpf_map_info info{};
  uint32_t len = sizeof(info);
  std::string name = bpf_obj_get_info_by_fd(fd, &info, &len) == 0 ? info.name : "?";
  close(fd);
  return name;
}

std::string prog_name(uint32_t id) {
  int fd = bpf_prog_get_fd_by_id(id);
  if (fd < 0) return "gone";
  bpf_prog_info info{};
  uint32_t len = sizeof(info);
  std::string name = bpf_obj_get_info_by_fd(fd, &info, &len) == 0 ? info.name : "?";
  close(fd);
  return name;
}

}  // namespace

BpfIds live_bpf_ids() { return BpfIds{ids(bpf_prog_get_next_id), ids(bpf_map_get_next_id), ids(bpf_link_get_next_id)}; }

std::string leaked_bpf_objects(const BpfIds &before, int wait_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  BpfIds fresh, held;
  bool scanned = false;
  for (;;) {
    BpfIds now = live_bpf_ids();
    // New since `before`, and not another process's (scanned once objects outlive a first look).
    fresh = {minus(minus(now.progs, before.progs), held.progs), minus(minus(now.maps, before.maps), held.maps),
             minus(minus(now.links, before.links), held.links)};
    if (fresh.progs.empty() && fresh.maps.empty() && fresh.links.empty()) return "";
    if (!scanned) {
      held = held_by_processes();
      scanned = true;
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // A last look: processes started while we waited may hold some of them now.
  held = held_by_processes();
  std::string out;
  auto report = [&](const char *kind, const std::set<uint32_t> &ids, const std::set<uint32_t> &others,
                    std::string (*name)(uint32_t)) {
    for (uint32_t id : ids)
      if (!others.count(id))
        out += (out.empty() ? "" : ", ") + std::string(kind) + " " + std::to_string(id) +
               (name ? " (" + name(id) + ")" : "");
  };
  report("prog", fresh.progs, held.progs, prog_name);
  report("map", fresh.maps, held.maps, map_name);
  report("link", fresh.links, held.links, nullptr);
  return out;
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (pid_t pid : all_pids()) {
    std::string stat = read_text(fs::path("/proc") / std::to_string(pid) / "stat");
    size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(pid);
  }
  return out;
}

Subreaper::Subreaper() {
  prctl(PR_GET_CHILD_SUBREAPER, &previous_);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
}

Subreaper::~Subreaper() {
  take_orphans();
  prctl(PR_SET_CHILD_SUBREAPER, previous_);
}

std::vector<pid_t> Subreaper::take_orphans() {
  std::vector<pid_t> found = children_of(getpid());
  for (pid_t pid : found) kill(pid, SIGKILL);
  for (pid_t pid : found) waitpid(pid, nullptr, 0);
  // Zombies are in /proc too; this also collects any that exited since the scan.
  for (pid_t pid; (pid = waitpid(-1, nullptr, WNOHANG)) > 0;) found.push_back(pid);
  return found;
}

std::string read_text(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has_exception_text(const std::string &text) {
  for (const char *s : {"what()", "terminate", "std::", "internal error", "Aborted"})
    if (text.find(s) != std::string::npos) return true;
  return false;
}

std::string check_csv(const std::string &text, std::vector<std::vector<std::string>> *rows) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> rec;
  std::string field;
  bool quoted = false, at_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && at_start) {
      quoted = true;
      at_start = false;
    } else if (c == ',') {
      rec.push_back(std::move(field));
      field.clear();
      at_start = true;
    } else if (c == '\n') {
      rec.push_back(std::move(field));
      field.clear();
      records.push_back(std::move(rec));
      rec.clear();
      at_start = true;
    } else {
      field += c;
      at_start = false;
    }
  }
  if (quoted) return "unterminated quoted field";
  if (!field.empty() || !rec.empty()) return "the last record has no newline (truncated?)";
  if (records.empty()) return "no header";
  for (size_t i = 1; i < records.size(); ++i)
    if (records[i].size() != records[0].size())
      return "record " + std::to_string(i) + " has " + std::to_string(records[i].size()) + " fields, the header " +
             std::to_string(records[0].size());
  if (rows) rows->assign(records.begin() + 1, records.end());
  return "";
}

TestUser test_user(const std::string &name) {
  TestUser u;
  if (!getpwnam(name.c_str()) &&
      run_process({"/usr/sbin/useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name})
              .exit_code != 0)
    return u;
  if (const passwd *pw = getpwnam(name.c_str())) {
    u.uid = pw->pw_uid;
    u.gid = pw->pw_gid;
    u.ok = true;
  }
  return u;
}

std::vector<std::string> as_user(const TestUser &u, const std::vector<std::string> &cmd,
                                 const std::vector<std::string> &env, const std::string &caps) {
  std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=" + std::to_string(u.uid),
                                   "--regid=" + std::to_string(u.gid), "--clear-groups",
                                   "--inh-caps=-all" + (caps.empty() ? "" : "," + caps)};
  if (!caps.empty()) argv.push_back("--ambient-caps=" + caps);
  // A clean environment but for PATH, HOME and the tests' calibration default (main.cpp).
  argv.insert(argv.end(),
              {"--", "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=/nonexistent", "BPFBENCH_CALIBRATION=off"});
  argv.insert(argv.end(), env.begin(), env.end());
  argv.insert(argv.end(), cmd.begin(), cmd.end());
  return argv;
}

std::vector<std::string> in_mount_namespace(const std::string &script, const std::vector<std::string> &args) {
  std::vector<std::string> argv = {"/usr/bin/unshare", "--mount", "--propagation", "private",
                                   "/bin/sh",          "-c",      script,          "sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace bpfbench::test
