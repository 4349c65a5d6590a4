#include "runtime/interference.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

#include "runtime/foreign_links.hpp"

namespace bpfbench {

void InterferenceWatch::begin(std::vector<int> cpus) {
  found_ = Interference{};
  found_.cpus = std::move(cpus);
  before_ = take_proc_snapshot();
  begun_ = true;
}

void InterferenceWatch::check_hooks() {
  if (!begun_) return;
  std::vector<LinkHook> own = own_links();
  for (const auto &h : own) {
    if (!h.hook.empty()) {
      if (std::find(found_.hooks.begin(), found_.hooks.end(), h.hook) == found_.hooks.end())
        found_.hooks.push_back(h.hook);
      continue;
    }
    std::string why;
    if (h.kind == "perf_event")
      why = "this kernel does not say which tracepoint, kprobe or uprobe a perf link is on (6.6 does): those hooks "
            "are not checked for other programs";
    else if (h.kind == "kprobe_multi") why = "kprobe.multi hooks are not checked for other programs";
    else if (h.kind == "uprobe_multi")
      why = "this kernel does not say which file an uprobe.multi link is on (6.8 does): not checked for other programs";
    if (!why.empty() && std::find(found_.limits.begin(), found_.limits.end(), why) == found_.limits.end())
      found_.limits.push_back(why);
  }
  for (auto &p : foreign_programs(own))
    if (std::none_of(found_.programs.begin(), found_.programs.end(),
                     [&](const ForeignProgram &q) { return q.link_id == p.link_id; }))
      found_.programs.push_back(std::move(p));
}

Interference InterferenceWatch::end() {
  if (!begun_) return {};
  check_hooks();
  ProcSnapshot after = take_proc_snapshot();
  found_.wall_s = double(after.now_ticks - std::min(after.now_ticks, before_.now_ticks)) / double(sysconf(_SC_CLK_TCK));
  ProcessShares shares = process_shares(before_, after, found_.cpus, getpid());
  found_.bpfbench = std::move(shares.bpfbench);
  found_.busy_cpus = std::move(shares.busy_cpus);
  begun_ = false;
  before_ = ProcSnapshot{};
  return std::move(found_);
}

std::vector<int> measured_cpus(const std::vector<int> &pinned) {
  std::vector<int> out;
  for (int c : pinned)
    if (c >= 0 && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  if (out.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace bpfbench
