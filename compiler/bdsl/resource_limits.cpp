#include "compiler/bdsl/resource_limits.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "compiler/family/constraints.hpp"
#include "compiler/bdsl/cpu_sets.hpp"
#include "util/limit_hints.hpp"

namespace bpfbench {

namespace {

int64_t read_number(const char *path) {
  std::ifstream in(path);
  int64_t v = 0;
  return in >> v ? v : 0;
}

int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

// A setup argument: a number, or the name of a param (its value at this point).
struct Arg {
  int64_t value = 0;
  std::string param;  // "" for a literal
};

std::optional<Arg> arg(const SetupActionSpec &a, const std::string &key, const PlanPoint &p) {
  auto it = a.args.find(key);
  if (it == a.args.end() || it->second.empty()) return std::nullopt;
  const std::string &s = it->second;
  if (std::isdigit(static_cast<unsigned char>(s[0]))) return Arg{std::stoll(s), ""};
  const ParamValue *v = p.param(s);
  if (!v || !v->is_int) return std::nullopt;  // "max_entries" of a map: unknown here
  return Arg{v->i, s};
}

// The first of `args` the user set in the .bdsl (a default has no range).
SourceRange blame(const PlanPoint &p, std::initializer_list<const std::optional<Arg> *> args) {
  for (const auto *a : args)
    if (*a && !(*a)->param.empty())
      if (SourceRange r = point_value_range(p, (*a)->param); r.valid()) return r;
  return {};
}

}  // namespace

MachineLimits read_machine_limits() {
  MachineLimits m;
  m.pid_max = read_number("/proc/sys/kernel/pid_max");
  m.threads_max = read_number("/proc/sys/kernel/threads-max");
  rlimit rl{};
  if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    m.nproc_rlimit = static_cast<int64_t>(rl.rlim_cur);
  {
    // "0.52 0.58 0.59 3/1234 5678": the fourth field's denominator is every task.
    std::ifstream in("/proc/loadavg");
    std::string a, b, c, run;
    if (in >> a >> b >> c >> run)
      if (size_t slash = run.find('/'); slash != std::string::npos)
        m.threads_running = std::stoll(run.substr(slash + 1));
  }
  std::ifstream mem("/proc/meminfo");
  for (std::string line; std::getline(mem, line);) {
    std::istringstream ls(line);
    std::string key;
    int64_t kb = 0;
    if (ls >> key >> kb && key == "MemAvailable:") m.mem_available = saturating_mul(kb, 1024);
  }
  m.online_cpus = read_online_cpus();
  return m;
}

PointCost point_cost(const PlanPoint &p, const FamilyManifest &f) {
  PointCost c;
  const ProgramSpec *prog = f.program(p.program.empty() ? f.default_program : p.program);
  std::vector<SetupActionSpec> actions = f.setup;  // as runtime/setup_actions.cpp runs them
  if (prog) actions.insert(actions.end(), prog->setup.begin(), prog->setup.end());
  for (const auto &a : actions) {
    if (a.action == SetupActionKind::Fork) {
      auto count = arg(a, "count", p);
      if (!count) continue;
      c.tasks = saturating_add(c.tasks, count->value);
      if (!c.tasks_at.valid()) c.tasks_at = blame(p, {&count});
    } else if (a.action == SetupActionKind::InnerMaps) {
      // Preallocated inner maps take max_entries each whether or not they are filled.
      auto count = arg(a, "count", p), size = arg(a, "max_entries", p);
      if (!count || !size) continue;
      c.map_entries = saturating_add(c.map_entries, saturating_mul(count->value, size->value));
      if (!c.entries_at.valid()) c.entries_at = blame(p, {&count, &size});
    } else if (a.action == SetupActionKind::Prefill) {
      auto keys = arg(a, "keys", p);
      if (!keys) continue;
      c.map_entries = saturating_add(c.map_entries, keys->value);
      if (!c.entries_at.valid()) c.entries_at = blame(p, {&keys});
    }
  }
  c.bytes = saturating_add(saturating_mul(c.tasks, kBytesPerTask), saturating_mul(c.map_entries, kBytesPerEntry));
  return c;
}

void check_resource_limits(const RunPlan &plan, const FamilyRegistry &families, const MachineLimits &m,
                           Diagnostics &diags) {
  // The task limit that binds: the smallest of those known.
  int64_t task_limit = 0;
  std::string task_limit_name;
  for (auto [v, name] : {std::pair{m.pid_max, "kernel.pid_max"}, std::pair{m.threads_max, "kernel.threads-max"},
                         std::pair{m.nproc_rlimit, "RLIMIT_NPROC"}})
    if (v > 0 && (task_limit == 0 || v < task_limit)) {
      task_limit = v;
      task_limit_name = name;
    }
  const int64_t task_room = task_limit - m.threads_running - task_limit / 10;
  const int64_t mem_room = m.mem_available / 4 * 3;
  const std::string hint = "pass --allow-large to run it anyway";

  std::set<std::tuple<uint32_t, uint32_t, uint32_t, int>> reported;  // file, line, col, which limit
  auto report = [&](SourceRange at, const PlanPoint &p, int which, std::string msg) {
    if (!at.valid()) at = p.bench_range;
    if (reported.emplace(at.file, at.line, at.col, which).second) diags.error(at, std::move(msg), {hint});
  };
  for (const auto &p : plan.points) {
    const FamilyManifest *f = families.find(p.family);
    if (!f) continue;
    PointCost c = point_cost(p, *f);
    if (task_limit > 0 && c.tasks > 0 && c.tasks > task_room)
      report(c.tasks_at, p, 0,
             fmt::format("point '{}' forks {} tasks: more than this machine has room for ({} {}, {} tasks "
                         "running, a tenth kept free: {})",
                         p.label, c.tasks, task_limit_name, task_limit, m.threads_running,
                         std::max<int64_t>(0, task_room)));
    if (m.mem_available > 0 && c.bytes > mem_room) {
      std::string what = c.map_entries > 0 && c.tasks > 0
                             ? fmt::format("{} map entries and {} tasks", c.map_entries, c.tasks)
                         : c.map_entries > 0 ? fmt::format("{} map entries", c.map_entries)
                                             : fmt::format("{} tasks", c.tasks);
      report(c.map_entries > 0 ? c.entries_at : c.tasks_at, p, 1,
             fmt::format("point '{}' needs at least {} for {}: more than 3/4 of this machine's available "
                         "memory ({} MemAvailable)",
                         p.label, bytes_text(c.bytes), what, bytes_text(m.mem_available)));
    }
  }
}

}  // namespace bpfbench
