#include "runtime/process_watch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <set>

namespace bpfbench {

namespace {

constexpr uint64_t kPfKthread = 0x00200000;  // PF_KTHREAD in the flags field

// A /proc file of at most a page or two, "" when it cannot be read.
std::string read_small(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// The numeric entries of a folder (/proc, /proc/<pid>/task).
std::vector<pid_t> numeric_entries(const std::string &dir) {
  std::vector<pid_t> out;
  DIR *d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent *e = ::readdir(d)) {
    pid_t v = 0;
    const char *end = e->d_name + std::strlen(e->d_name);
    auto r = std::from_chars(e->d_name, end, v);
    if (r.ec == std::errc() && r.ptr == end && v > 0) out.push_back(v);
  }
  ::closedir(d);
  return out;
}

// The one CPU `tid` may run on, or -1.
int pinned_cpu(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(tid, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) return c;
  return -1;
}

bool is_bpfbench_exe(const std::string &proc, pid_t pid) {
  char buf[4096];
  ssize_t n = ::readlink((proc + "/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf - 1);
  if (n <= 0) return false;
  std::string exe(buf, static_cast<size_t>(n));
  if (exe.ends_with(" (deleted)")) exe.resize(exe.size() - 10);  // replaced by a rebuild while it ran
  return exe.substr(exe.rfind('/') + 1) == "bpfbench";
}

uint64_t boottime_ticks() {
  timespec ts{};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  const uint64_t hz = static_cast<uint64_t>(::sysconf(_SC_CLK_TCK));
  return static_cast<uint64_t>(ts.tv_sec) * hz + static_cast<uint64_t>(ts.tv_nsec) * hz / 1'000'000'000;
}

// Ticks a process or thread used between the snapshots: the difference when it was in
// both (the same one: same start), all of it when it started after the first, else 0.
template <class Snap>
uint64_t used_between(const Snap *before, const Snap &after, uint64_t before_now) {
  if (before && before->start_ticks == after.start_ticks)
    return after.ticks > before->ticks ? after.ticks - before->ticks : 0;
  return after.start_ticks >= before_now ? after.ticks : 0;
}

// This process, its descendants and its ancestors: not "other" processes.
std::set<pid_t> own_family(const ProcSnapshot &s, pid_t self) {
  std::set<pid_t> fam{self};
  for (pid_t p = self; s.procs.count(p);) {  // ancestors
    p = s.procs.at(p).ppid;
    if (p <= 0 || !fam.insert(p).second) break;
  }
  for (const auto &entry : s.procs) {  // descendants: their ancestor chain reaches self
    pid_t p = entry.first;
    for (int depth = 0; p > 0 && p != self && depth < 64; ++depth) {
      auto it = s.procs.find(p);
      if (it == s.procs.end()) break;
      p = it->second.ppid;
    }
    if (p == self) fam.insert(entry.first);
  }
  return fam;
}

}  // namespace

std::optional<StatLine> parse_stat_line(const std::string &text) {
  size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  StatLine s;
  s.comm = text.substr(open + 1, close - open - 1);
  // Fields from 3 (state) on, space-separated after ") ".
  std::vector<std::string_view> f;
  std::string_view rest = std::string_view(text).substr(std::min(close + 2, text.size()));
  while (!rest.empty() && f.size() < 40) {
    size_t sp = rest.find_first_of(" \n");
    f.push_back(rest.substr(0, sp));
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  if (f.size() < 20) return std::nullopt;  // up to starttime (field 22) at least
  auto num = [&](size_t field, auto &out) {
    std::string_view v = f[field - 3];
    return std::from_chars(v.data(), v.data() + v.size(), out).ec == std::errc();
  };
  uint64_t utime = 0, stime = 0;
  if (!num(4, s.ppid) || !num(9, s.flags) || !num(14, utime) || !num(15, stime) || !num(22, s.start_ticks))
    return std::nullopt;
  s.ticks = utime + stime;
  if (f.size() >= 37) num(39, s.cpu);
  return s;
}

ProcSnapshot take_proc_snapshot(const std::string &proc) {
  ProcSnapshot snap;
  snap.now_ticks = boottime_ticks();
  const bool real = proc == "/proc";
  for (pid_t pid : numeric_entries(proc)) {
    const std::string dir = proc + "/" + std::to_string(pid);
    auto st = parse_stat_line(read_small(dir + "/stat"));
    if (!st) continue;  // ended meanwhile
    ProcSnap p;
    p.comm = st->comm;
    p.ppid = st->ppid;
    p.kthread = (st->flags & kPfKthread) != 0;
    p.ticks = st->ticks;
    p.start_ticks = st->start_ticks;
    if (!p.kthread) {
      p.bpfbench = is_bpfbench_exe(proc, pid);
      for (pid_t tid : numeric_entries(dir + "/task"))
        if (auto t = parse_stat_line(read_small(dir + "/task/" + std::to_string(tid) + "/stat")))
          p.threads[tid] = ThreadSnap{t->ticks, t->start_ticks, t->cpu, real ? pinned_cpu(tid) : -1};
    }
    snap.procs.emplace(pid, std::move(p));
  }
  return snap;
}

ProcessShares process_shares(const ProcSnapshot &before, const ProcSnapshot &after, const std::vector<int> &cpus,
                             pid_t self) {
  ProcessShares out;
  const double wall = after.now_ticks > before.now_ticks ? double(after.now_ticks - before.now_ticks) : 0;
  if (wall <= 0) return out;
  std::set<pid_t> fam = own_family(after, self);
  for (pid_t p : own_family(before, self)) fam.insert(p);
  std::map<int, std::vector<OtherProcess>> on_cpu;  // cpu -> processes' ticks there
  for (const auto &[pid, a] : after.procs) {
    if (a.kthread || fam.count(pid)) continue;
    auto b = before.procs.find(pid);
    const ProcSnap *bp = b == before.procs.end() ? nullptr : &b->second;
    const uint64_t total = used_between(bp, a, before.now_ticks);
    if (total == 0) continue;
    // Its exe link is gone once it is exiting: then the name at the first snapshot or its
    // comm tells (a `comm main` point renames bpfbench's main thread, the exe stays).
    const bool bpfbench = a.bpfbench || (bp && bp->bpfbench) || a.comm == "bpfbench";
    if (bpfbench) out.bpfbench.push_back({pid, a.comm, 100 * double(total) / wall});
    std::map<int, uint64_t> ticks;  // cpu -> this process's ticks there
    uint64_t placed = 0;
    for (const auto &[tid, t] : a.threads) {
      const ThreadSnap *bt = nullptr;
      if (bp)
        if (auto it = bp->threads.find(tid); it != bp->threads.end()) bt = &it->second;
      uint64_t used = used_between(bt, t, before.now_ticks);
      ticks[t.pinned >= 0 ? t.pinned : t.cpu] += used;
      placed += used;
    }
    if (total > placed)  // threads that ended between the snapshots
      if (auto main = a.threads.find(pid); main != a.threads.end())
        ticks[main->second.pinned >= 0 ? main->second.pinned : main->second.cpu] += total - placed;
    for (const auto &[cpu, t] : ticks)
      if (t > 0) on_cpu[cpu].push_back({pid, a.comm, 100 * double(t) / wall});
  }
  // A bpfbench there before that has ended since ran during the point too: how much of it
  // is not known (its times went with it).
  for (const auto &[pid, b] : before.procs) {
    auto a = after.procs.find(pid);
    if (b.bpfbench && !fam.count(pid) && (a == after.procs.end() || a->second.start_ticks != b.start_ticks))
      out.bpfbench.push_back({pid, b.comm, std::numeric_limits<double>::quiet_NaN()});
  }
  for (int cpu : cpus) {
    std::vector<OtherProcess> &procs = on_cpu[cpu];
    double sum = 0;
    for (const auto &p : procs) sum += p.cpu_pct;
    if (sum <= kBusyCpuPct) continue;
    std::sort(procs.begin(), procs.end(),
              [](const OtherProcess &x, const OtherProcess &y) { return x.cpu_pct > y.cpu_pct; });
    if (procs.size() > 3) procs.resize(3);
    out.busy_cpus.push_back({cpu, std::min(sum, 100.0), procs});
  }
  return out;
}

}  // namespace bpfbench
