#include "results/interference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/escape.hpp"
#include "results/json_values.hpp"

namespace bpfbench {

namespace {

std::string pid_list(const std::vector<int> &pids) {
  std::string out;
  for (int pid : pids) out += (out.empty() ? "" : ", ") + std::to_string(pid);
  return out;
}

std::string program_text(const ForeignProgram &p) {
  std::string who = fmt::format("id {}", p.prog_id);
  if (!p.pids.empty()) who += fmt::format(", pid{} {}", p.pids.size() == 1 ? "" : "s", pid_list(p.pids));
  std::string name = p.name.empty() ? "" : "'" + printable_text(p.name) + "' ";
  return fmt::format("BPF program {}({}) is attached to {} too", name, who, p.hook);
}

std::string cpu_text(const BusyCpu &c) {
  std::string out = fmt::format("{:.0f} % of CPU {}", c.other_pct, c.cpu);
  std::string top;
  for (const auto &p : c.top)
    top += fmt::format("{}{} {:.0f} %", top.empty() ? "" : ", ", printable_text(p.comm), p.cpu_pct);
  return top.empty() ? out : out + " (" + top + ")";
}

template <class T, class Key>
void add_unique(std::vector<T> &to, const std::vector<T> &from, Key key) {
  for (const auto &x : from)
    if (std::none_of(to.begin(), to.end(), [&](const T &y) { return key(y) == key(x); })) to.push_back(x);
}

}  // namespace

std::string interference_note(const Interference &i) {
  std::vector<std::string> parts;
  if (!i.bpfbench.empty()) {
    std::string who;
    for (const auto &p : i.bpfbench)
      who += fmt::format("{}pid {}, {}", who.empty() ? "" : "; ", p.pid,
                         std::isnan(p.cpu_pct) ? "ended during it" : fmt::format("{:.0f} % of a CPU", p.cpu_pct));
    parts.push_back(fmt::format("{} ({}) ran during this point",
                                i.bpfbench.size() == 1 ? "another bpfbench" : "other bpfbench processes", who));
  }
  if (!i.busy_cpus.empty()) {
    std::string cpus;
    for (const auto &c : i.busy_cpus) cpus += (cpus.empty() ? "" : ", ") + cpu_text(c);
    parts.push_back("other processes used " + cpus);
  }
  for (const auto &p : i.programs) parts.push_back(program_text(p));
  std::string out;
  for (const auto &p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

Interference merge_interference(const Interference &a, const Interference &b) {
  Interference out = a;
  out.wall_s += b.wall_s;
  add_unique(out.cpus, b.cpus, [](int c) { return c; });
  std::sort(out.cpus.begin(), out.cpus.end());
  add_unique(out.hooks, b.hooks, [](const std::string &h) { return h; });
  add_unique(out.limits, b.limits, [](const std::string &l) { return l; });
  for (const auto &p : b.bpfbench) {
    auto it =
        std::find_if(out.bpfbench.begin(), out.bpfbench.end(), [&](const OtherProcess &q) { return q.pid == p.pid; });
    if (it == out.bpfbench.end()) out.bpfbench.push_back(p);
    else if (std::isnan(it->cpu_pct) || p.cpu_pct > it->cpu_pct) it->cpu_pct = p.cpu_pct;  // a known, larger share
  }
  for (const auto &c : b.busy_cpus) {
    auto it =
        std::find_if(out.busy_cpus.begin(), out.busy_cpus.end(), [&](const BusyCpu &d) { return d.cpu == c.cpu; });
    if (it == out.busy_cpus.end()) out.busy_cpus.push_back(c);
    else if (c.other_pct > it->other_pct) *it = c;
  }
  std::sort(out.busy_cpus.begin(), out.busy_cpus.end(),
            [](const BusyCpu &x, const BusyCpu &y) { return x.cpu < y.cpu; });
  add_unique(out.programs, b.programs, [](const ForeignProgram &p) { return p.link_id; });
  return out;
}

nlohmann::json interference_to_json(const Interference &i) {
  auto process = [](const OtherProcess &p) {
    return nlohmann::json{{"pid", p.pid}, {"comm", p.comm}, {"cpu_pct", json_number(p.cpu_pct)}};
  };
  nlohmann::json bb = nlohmann::json::array(), cpus = nlohmann::json::array(), progs = nlohmann::json::array();
  for (const auto &p : i.bpfbench) bb.push_back(process(p));
  for (const auto &c : i.busy_cpus) {
    nlohmann::json top = nlohmann::json::array();
    for (const auto &p : c.top) top.push_back(process(p));
    cpus.push_back({{"cpu", c.cpu}, {"other_pct", c.other_pct}, {"top", top}});
  }
  for (const auto &p : i.programs)
    progs.push_back(
        {{"hook", p.hook}, {"link_id", p.link_id}, {"prog_id", p.prog_id}, {"name", p.name}, {"pids", p.pids}});
  return {{"found", i.found()}, {"note", interference_note(i)},
          {"wall_s", i.wall_s}, {"cpus", i.cpus},
          {"hooks", i.hooks},   {"bpfbench", bb},
          {"busy_cpus", cpus},  {"programs", progs},
          {"limits", i.limits}, {"busy_cpu_pct", kBusyCpuPct}};
}

}  // namespace bpfbench
