#include "runtime/foreign_links.hpp"

#include <bpf/bpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "runtime/process_watch.hpp"

namespace bpfbench {

namespace {

// struct bpf_link_info as kernels up to 6.18 lay it out (Debian's 6.1 UAPI header lacks
// the perf_event and uprobe_multi members). Bytes the running kernel does not know stay 0,
// which it requires.
struct RawTracepointInfo {
  uint64_t tp_name;
  uint32_t tp_name_len;
};
struct TracingInfo {
  uint32_t attach_type, target_obj_id, target_btf_id;
};
struct PerfEventInfo {
  uint32_t type, pad;
  uint64_t name;  // tracepoint.tp_name, kprobe.func_name, uprobe.file_name: one place
  uint32_t name_len;
};
struct UprobeMultiInfo {
  uint64_t path, offsets, ref_ctr_offsets, cookies;
  uint32_t path_size, count, flags, pid;
};
// Named member types: an anonymous struct inside the anonymous union is a GNU extension
// (clang's -Wnested-anon-types).
struct LinkInfo {
  uint32_t type, id, prog_id, pad;
  union {
    RawTracepointInfo raw_tracepoint;
    TracingInfo tracing;
    PerfEventInfo perf_event;
    UprobeMultiInfo uprobe_multi;
    uint8_t room[224];
  };
};

enum : uint32_t { kRawTracepoint = 1, kTracing = 2, kPerfEvent = 7, kKprobeMulti = 8, kUprobeMulti = 12 };
enum : uint32_t { kPerfUprobe = 1, kPerfUretprobe = 2, kPerfKprobe = 3, kPerfKretprobe = 4, kPerfTracepoint = 5 };

std::string perf_hook(uint32_t type, const char *name) {
  if (!*name) return "";
  switch (type) {
  case kPerfTracepoint: return std::string("tracepoint ") + name;
  case kPerfKprobe:
  case kPerfKretprobe: return std::string("kprobe ") + name;
  case kPerfUprobe:
  case kPerfUretprobe: return std::string("uprobe ") + name;
  default: return "";
  }
}

// The value of `key` ("link_id:") in an fdinfo text, 0 when absent.
uint32_t fdinfo_field(const std::string &text, const char *key) {
  size_t at = text.find(key);
  if (at == std::string::npos) return 0;
  at += std::strlen(key);
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  uint32_t v = 0;
  std::from_chars(text.data() + at, text.data() + text.size(), v);
  return v;
}

std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> out;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d))
      if (e->d_name[0] != '.') out.emplace_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

// The processes whose fds hold link `id` (their fdinfo says link_id: id).
std::vector<int> link_holders(uint32_t id) {
  std::vector<int> pids;
  for (const auto &pid : entries("/proc")) {
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string dir = "/proc/" + pid + "/fdinfo";
    for (const auto &fd : entries(dir))
      if (fdinfo_field(read_proc_file(dir + "/" + fd), "link_id:") == id) {
        pids.push_back(std::stoi(pid));
        break;
      }
  }
  return pids;
}

std::string prog_name(uint32_t prog_id) {
  int fd = bpf_prog_get_fd_by_id(prog_id);
  if (fd < 0) return "";
  bpf_prog_info info{};
  uint32_t len = sizeof info;
  std::string name = bpf_obj_get_info_by_fd(fd, &info, &len) == 0 ? std::string(info.name) : "";
  ::close(fd);
  return name;
}

}  // namespace

LinkHook link_hook(int fd) {
  LinkHook h;
  // A first call learns the kind; the second passes a name buffer where that kind keeps it.
  LinkInfo probe{};
  uint32_t len = sizeof probe;
  if (bpf_obj_get_info_by_fd(fd, &probe, &len) != 0) return h;
  h.id = probe.id;
  h.prog_id = probe.prog_id;
  LinkInfo info{};
  char name[4096] = {};
  len = sizeof info;
  switch (probe.type) {
  case kRawTracepoint:
    info.raw_tracepoint.tp_name = reinterpret_cast<uint64_t>(name);
    info.raw_tracepoint.tp_name_len = sizeof name;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && name[0]) h.hook = std::string("tracepoint ") + name;
    h.kind = "raw_tracepoint";
    break;
  case kTracing:
    h.hook = fmt::format("fentry/fexit btf {}:{}", probe.tracing.target_obj_id, probe.tracing.target_btf_id);
    h.kind = "tracing";
    break;
  case kPerfEvent:
    info.perf_event.name = reinterpret_cast<uint64_t>(name);
    info.perf_event.name_len = sizeof name;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) h.hook = perf_hook(info.perf_event.type, name);
    h.kind = "perf_event";
    break;
  case kUprobeMulti:
    info.uprobe_multi.path = reinterpret_cast<uint64_t>(name);
    info.uprobe_multi.path_size = sizeof name;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && name[0]) h.hook = std::string("uprobe ") + name;
    h.kind = "uprobe_multi";
    break;
  case kKprobeMulti: h.kind = "kprobe_multi"; break;
  default: break;
  }
  return h;
}

std::vector<LinkHook> own_links() {
  std::vector<LinkHook> out;
  std::set<uint32_t> seen;
  for (const auto &fd : entries("/proc/self/fdinfo")) {
    if (fdinfo_field(read_proc_file("/proc/self/fdinfo/" + fd), "link_id:") == 0) continue;
    int n = 0;
    std::from_chars(fd.data(), fd.data() + fd.size(), n);
    LinkHook h = link_hook(n);
    if (h.id != 0 && seen.insert(h.id).second) out.push_back(std::move(h));
  }
  return out;
}

bool hooks_overlap(const std::string &ours, const std::string &theirs) {
  if (ours.empty() || theirs.empty()) return false;
  if (ours == theirs) return true;
  for (const char *raw : {"tracepoint sys_enter", "tracepoint sys_exit"})
    if (theirs == raw && ours.rfind(std::string(raw) + "_", 0) == 0) return true;
  return false;
}

std::vector<ForeignProgram> foreign_programs(const std::vector<LinkHook> &own) {
  std::vector<ForeignProgram> out;
  std::set<uint32_t> ours;
  for (const auto &h : own) ours.insert(h.id);
  for (uint32_t id = 0; bpf_link_get_next_id(id, &id) == 0;) {
    if (ours.count(id)) continue;
    int fd = bpf_link_get_fd_by_id(id);
    if (fd < 0) continue;  // detached meanwhile
    LinkHook theirs = link_hook(fd);
    ::close(fd);
    for (const auto &h : own)
      if (hooks_overlap(h.hook, theirs.hook)) {
        out.push_back({theirs.hook, theirs.id, theirs.prog_id, prog_name(theirs.prog_id), link_holders(theirs.id)});
        break;
      }
  }
  return out;
}

}  // namespace bpfbench
