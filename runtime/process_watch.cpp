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

// This process and its descendants (the benchmark's own children), and its ancestors (the
// shell or test that started it): neither is named as "other".
struct Family {
  std::set<pid_t> ours, ancestors;
  void add(const ProcSnapshot &s, pid_t self) {
    ours.insert(self);
    for (pid_t p = self; s.procs.count(p);) {
      p = s.procs.at(p).ppid;
      if (p <= 0 || !ancestors.insert(p).second) break;
    }
    for (const auto &entry : s.procs) {  // descendants: their ancestor chain reaches self
      pid_t p = entry.first;
      for (int depth = 0; p > 0 && p != self && depth < 64; ++depth) {
        auto it = s.procs.find(p);
        if (it == s.procs.end()) break;
        p = it->second.ppid;
      }
      if (p == self) ours.insert(entry.first);
    }
  }
};

const ProcSnap *find_in(const ProcSnapshot &s, pid_t pid) {
  auto it = s.procs.find(pid);
  return it == s.procs.end() ? nullptr : &it->second;
}

// A bpfbench process: its exe is named so, at either snapshot (an exiting one has lost
// its exe link), or its comm is (a `comm main` point renames only the main thread).
bool is_bpfbench(const ProcSnap *before, const ProcSnap *after) {
  for (const ProcSnap *p : {before, after})
    if (p && (p->bpfbench || p->comm == "bpfbench")) return true;
  return false;
}

// The run a bpfbench process belongs to: its topmost bpfbench ancestor (a run's forked
// children, compiles and setup tasks, are that run's), else itself.
pid_t bpfbench_root(const ProcSnapshot &before, const ProcSnapshot &after, pid_t pid) {
  for (int depth = 0; depth < 64; ++depth) {
    const ProcSnap *p = find_in(after, pid);
    if (!p) p = find_in(before, pid);
    if (!p || p->ppid <= 0 || !is_bpfbench(find_in(before, p->ppid), find_in(after, p->ppid))) break;
    pid = p->ppid;
  }
  return pid;
}

// A process's ticks between the snapshots per CPU: a live thread's on the CPU it is pinned
// to, else the one it last ran on; the rest (threads that ended meanwhile) spread over
// `rest_cpus`, or on the main thread's CPU when that is empty.
std::map<int, double> ticks_per_cpu(const ProcSnap *bp, const ProcSnap &a, pid_t pid, uint64_t before_now,
                                    uint64_t total, const std::vector<int> &rest_cpus) {
  std::map<int, double> out;
  uint64_t placed = 0;
  for (const auto &[tid, t] : a.threads) {
    const ThreadSnap *bt = nullptr;
    if (bp)
      if (auto it = bp->threads.find(tid); it != bp->threads.end()) bt = &it->second;
    uint64_t used = used_between(bt, t, before_now);
    out[t.pinned >= 0 ? t.pinned : t.cpu] += double(used);
    placed += used;
  }
  if (total <= placed) return out;
  if (!rest_cpus.empty()) {
    for (int c : rest_cpus) out[c] += double(total - placed) / double(rest_cpus.size());
  } else if (auto main = a.threads.find(pid); main != a.threads.end()) {
    out[main->second.pinned >= 0 ? main->second.pinned : main->second.cpu] += double(total - placed);
  }
  return out;
}

// user + nice + system ticks of each cpuN line of /proc/stat (irq, softirq, steal and idle
// left out, like kernel threads: mostly the benchmark's doing, or nobody's).
std::map<int, uint64_t> cpu_busy_ticks(const std::string &text) {
  std::map<int, uint64_t> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t eol = std::min(text.find('\n', at), text.size());
    std::string_view line(text.data() + at, eol - at);
    at = eol + 1;
    if (line.size() < 4 || line.substr(0, 3) != "cpu" || line[3] == ' ') continue;
    int cpu = -1;
    auto r = std::from_chars(line.data() + 3, line.data() + line.size(), cpu);
    uint64_t v[3] = {0, 0, 0};
    const char *q = r.ptr;
    bool ok = r.ec == std::errc();
    for (uint64_t &x : v) {
      while (ok && q < line.data() + line.size() && *q == ' ') ++q;
      auto n = std::from_chars(q, line.data() + line.size(), x);
      ok = ok && n.ec == std::errc();
      q = n.ptr;
    }
    if (ok && cpu >= 0) out[cpu] = v[0] + v[1] + v[2];
  }
  return out;
}

}  // namespace

std::string read_proc_file(const std::string &path, size_t max) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out(max, '\0');
  size_t got = 0;
  for (ssize_t n; got < max && (n = ::read(fd, out.data() + got, max - got)) > 0;) got += size_t(n);
  ::close(fd);
  out.resize(got);
  return out;
}

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
  snap.cpu_busy = cpu_busy_ticks(read_proc_file(proc + "/stat", 1 << 16));
  const bool real = proc == "/proc";
  for (pid_t pid : numeric_entries(proc)) {
    const std::string dir = proc + "/" + std::to_string(pid);
    auto st = parse_stat_line(read_proc_file(dir + "/stat"));
    if (!st) continue;  // ended meanwhile
    ProcSnap p;
    p.comm = st->comm;
    p.ppid = st->ppid;
    p.kthread = (st->flags & kPfKthread) != 0;
    p.ticks = st->ticks;
    p.start_ticks = st->start_ticks;
    if (p.kthread) {  // one thread, mostly bound to its CPU
      p.threads[pid] = ThreadSnap{st->ticks, st->start_ticks, st->cpu, -1};
    } else {
      p.bpfbench = is_bpfbench_exe(proc, pid);
      for (pid_t tid : numeric_entries(dir + "/task"))
        if (auto t = parse_stat_line(read_proc_file(dir + "/task/" + std::to_string(tid) + "/stat")))
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
  Family fam;
  fam.add(before, self);
  fam.add(after, self);
  std::map<int, std::vector<OtherProcess>> on_cpu;  // cpu -> other processes' ticks there
  std::map<int, double> ours, kthreads, named;      // cpu -> ticks
  std::map<pid_t, double> runs;                     // another bpfbench run -> its ticks
  std::set<pid_t> ended_runs;
  for (const auto &[pid, a] : after.procs) {
    const ProcSnap *bp = find_in(before, pid);
    if (bp && bp->start_ticks != a.start_ticks) bp = nullptr;  // the pid was reused
    const uint64_t total = used_between(bp, a, before.now_ticks);
    const bool mine = fam.ours.count(pid) > 0;
    if (total == 0 || fam.ancestors.count(pid)) continue;
    // Our own threads that ended (the harness's, pinned to the measured CPUs or not) ran there.
    for (const auto &[cpu, t] : ticks_per_cpu(bp, a, pid, before.now_ticks, total, mine ? cpus : std::vector<int>{})) {
      if (mine) ours[cpu] += t;
      else if (a.kthread) kthreads[cpu] += t;
      else named[cpu] += t;
      if (!mine && !a.kthread && 100 * t / wall >= 1) on_cpu[cpu].push_back({pid, a.comm, 100 * t / wall});
    }
    if (!mine && !a.kthread && is_bpfbench(bp, &a)) runs[bpfbench_root(before, after, pid)] += double(total);
  }
  // A bpfbench there before that has ended since ran during the point too: how much of it
  // is not known (its times went with it) unless its run is still there.
  for (const auto &[pid, b] : before.procs) {
    const ProcSnap *a = find_in(after, pid);
    if ((a && a->start_ticks == b.start_ticks) || !is_bpfbench(&b, nullptr) || fam.ours.count(pid) ||
        fam.ancestors.count(pid))
      continue;
    pid_t root = bpfbench_root(before, after, pid);
    if (!runs.count(root)) ended_runs.insert(root);
  }
  for (const auto &[pid, t] : runs) {
    const ProcSnap *p = find_in(after, pid);
    out.bpfbench.push_back({pid, p ? p->comm : "bpfbench", 100 * t / wall});
  }
  for (pid_t pid : ended_runs) {
    const ProcSnap *p = find_in(before, pid);
    out.bpfbench.push_back({pid, p ? p->comm : "bpfbench", std::numeric_limits<double>::quiet_NaN()});
  }
  // A CPU's other share: its busy ticks (/proc/stat) less ours and kernel threads'; where
  // /proc/stat has no such CPU, the other processes' ticks placed there. Never more than
  // every other process used in all: a thread's ticks are placed on the CPU it ran on last,
  // so an unpinned thread of ours that moved left ticks that look like someone else's (a
  // ringbuf point's consumer read as "26 % of CPU 1" on an idle machine).
  double all_others = 0;
  for (const auto &[cpu, t] : named) all_others += t;
  for (int cpu : cpus) {
    double other = named[cpu];
    auto b = before.cpu_busy.find(cpu), a = after.cpu_busy.find(cpu);
    if (b != before.cpu_busy.end() && a != after.cpu_busy.end() && a->second >= b->second)
      other = std::min(double(a->second - b->second) - ours[cpu] - kthreads[cpu], all_others);
    const double pct = std::clamp(100 * other / wall, 0.0, 100.0);
    if (pct <= kBusyCpuPct) continue;
    std::vector<OtherProcess> &procs = on_cpu[cpu];
    std::sort(procs.begin(), procs.end(),
              [](const OtherProcess &x, const OtherProcess &y) { return x.cpu_pct > y.cpu_pct; });
    if (procs.size() > 3) procs.resize(3);
    out.busy_cpus.push_back({cpu, pct, procs});
  }
  return out;
}

}  // namespace bpfbench
