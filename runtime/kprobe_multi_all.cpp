#include "runtime/kprobe_multi_all.hpp"

#include <bpf/libbpf.h>

#include <cerrno>
#include <fstream>
#include <set>
#include <sstream>

#include "runtime/bpf_object.hpp"

namespace bpfbench {
namespace {

bool skipped(const std::string &name) {
  return name == "bpf_get_numa_node_id" || name == "arch_cpu_idle" || name == "default_idle" ||
         name.rfind("rcu_", 0) == 0 || name == "bpf_dispatcher_xdp_func" ||
         name.rfind("__ftrace_invalid_address__", 0) == 0;
}

}  // namespace

bool is_kprobe_multi_all_section(const std::string &section) {
  std::string s = !section.empty() && section[0] == '?' ? section.substr(1) : section;
  return s == "kprobe.multi/*" || s == "kretprobe.multi/*";
}

std::vector<std::string> kprobe_multi_all_functions(const std::string &text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.find('[') != std::string::npos) continue;  // "[module]"
    std::string name = line.substr(0, line.find_first_of(" \t"));
    if (name.empty() || skipped(name) || !seen.insert(name).second) continue;
    out.push_back(name);
  }
  return out;
}

Result<bpf_link *> attach_kprobe_multi_all(bpf_program *prog, bool retprobe) {
  if (auto t = ensure_tracefs(); !t) return t.error();
  const char *path = "/sys/kernel/tracing/available_filter_functions";
  std::ifstream f(path);
  if (!f) return BpfError{BpfPhase::Attach, errno ? errno : ENOENT, std::string("cannot read ") + path, ""};
  std::stringstream text;
  text << f.rdbuf();
  const std::vector<std::string> names = kprobe_multi_all_functions(text.str());
  if (names.empty()) return BpfError{BpfPhase::Attach, ENOENT, std::string("no functions in ") + path, ""};
  std::vector<const char *> syms;
  syms.reserve(names.size());
  for (const auto &n : names) syms.push_back(n.c_str());
  LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = syms.data(), .cnt = syms.size(), .retprobe = retprobe);
  bpf_link *link = bpf_program__attach_kprobe_multi_opts(prog, nullptr, &opts);
  if (long err = libbpf_get_error(link); !link || err)
    return BpfError{BpfPhase::Attach, err ? static_cast<int>(-err) : errno,
                    "cannot attach a kprobe.multi program to " + std::to_string(names.size()) + " functions", ""};
  return link;
}

}  // namespace bpfbench
