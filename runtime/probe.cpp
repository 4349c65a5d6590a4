#include "runtime/probe.hpp"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sys/stat.h>

#include <cerrno>

#include <fmt/format.h>

#include "compiler/bpf/clang_compile.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/libbpf_log.hpp"
#include "runtime/uprobe_targets.hpp"

namespace bpfbench {
namespace {

// One tiny program per attach kind: loading and attaching it is the probe.
constexpr const char *kProbeSource = R"(#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
char LICENSE[] SEC("license") = "GPL";
SEC("?tp/syscalls/sys_enter_getpgid") int p_tracepoint(void *ctx) { return 0; }
SEC("?raw_tp/sys_enter") int p_raw_tp(void *ctx) { return 0; }
SEC("?kprobe/bpf_get_numa_node_id") int p_kprobe(void *ctx) { return 0; }
SEC("?kretprobe/bpf_get_numa_node_id") int p_kretprobe(void *ctx) { return 0; }
SEC("?kprobe.multi/bpf_get_numa_node_id") int p_kprobe_multi(void *ctx) { return 0; }
SEC("?kretprobe.multi/bpf_get_numa_node_id") int p_kretprobe_multi(void *ctx) { return 0; }
SEC("?fentry/bpf_get_numa_node_id") int p_fentry(void *ctx) { return 0; }
SEC("?fexit/bpf_get_numa_node_id") int p_fexit(void *ctx) { return 0; }
SEC("?fmod_ret/bpf_modify_return_test_tp") int p_fmod_ret(void *ctx) { return 0; }
SEC("?uprobe") int p_uprobe(void *ctx) { return 0; }
SEC("?uretprobe") int p_uretprobe(void *ctx) { return 0; }
)";

// Kinds newer than libbpf 1.1 (uprobe.multi: runtime/uprobe_multi.hpp) or needing libbpf's
// usdt.bpf.h (its maps hold the USDT specs): a source of their own, so a problem with them
// cannot take the other probes down.
constexpr const char *kNewerProbeSource = R"(#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#define bool _Bool
#include <bpf/usdt.bpf.h>
char LICENSE[] SEC("license") = "GPL";
SEC("?usdt") int p_usdt(void *ctx) { return 0; }
SEC("?uprobe.multi") int p_uprobe_multi(void *ctx) { return 0; }
SEC("?uprobe.multi") int p_uretprobe_multi(void *ctx) { return 0; }
)";

struct AttachProbe {
  const char *kind;      // the `attach:` name
  const char *function;  // in kProbeSource
  AttachKind attach;
};
constexpr AttachProbe kAttachProbes[] = {
    {"tracepoint", "p_tracepoint", AttachKind::Auto},
    {"raw_tp", "p_raw_tp", AttachKind::Auto},
    {"kprobe", "p_kprobe", AttachKind::Auto},
    {"kretprobe", "p_kretprobe", AttachKind::Auto},
    {"kprobe.multi", "p_kprobe_multi", AttachKind::Auto},
    {"kretprobe.multi", "p_kretprobe_multi", AttachKind::Auto},
    {"fentry", "p_fentry", AttachKind::Auto},
    {"fexit", "p_fexit", AttachKind::Auto},
    {"fmod_ret", "p_fmod_ret", AttachKind::Auto},
    {"uprobe", "p_uprobe", AttachKind::Uprobe},
    {"uretprobe", "p_uretprobe", AttachKind::Uretprobe},
    {"uprobe.multi", "p_uprobe_multi", AttachKind::UprobeMulti},
    {"uretprobe.multi", "p_uretprobe_multi", AttachKind::UretprobeMulti},
    {"usdt", "p_usdt", AttachKind::Usdt},
};

struct HelperId {
  const char *name;
  int id;
};
#define BB_HELPER_ENTRY(name, ...)                                                                                     \
  HelperId { "bpf_" #name, BPF_FUNC_##name }
constexpr HelperId kHelpers[] = {__BPF_FUNC_MAPPER(BB_HELPER_ENTRY)};
#undef BB_HELPER_ENTRY

bool exists(const char *path) {
  struct stat st {};
  return stat(path, &st) == 0;
}

std::string kprobe_config_hint() {
  if (exists("/sys/bus/event_source/devices/kprobe") || exists("/sys/kernel/tracing/kprobe_events")) return "";
  return "kprobes not configured: no /sys/bus/event_source/devices/kprobe and no "
         "/sys/kernel/tracing/kprobe_events; ";
}

FeatureStatus probe_prog_type(const std::string &name) {
  for (int t = 1; t < 64; ++t) {
    const char *s = libbpf_bpf_prog_type_str(static_cast<bpf_prog_type>(t));
    if (!s || name != s) continue;
    int r = libbpf_probe_bpf_prog_type(static_cast<bpf_prog_type>(t), nullptr);
    if (r == 1) return {true, ""};
    if (r == 0) return {false, "the kernel rejects a program of this type"};
    return {false, "probe failed: " + errno_text(-r)};
  }
  return {false, "unknown program type '" + name + "'"};
}

FeatureStatus probe_helper(const std::string &name) {
  for (const auto &h : kHelpers) {
    if (name != h.name) continue;
    // Tracing program types are what the families use; the first that accepts wins.
    std::string last;
    for (bpf_prog_type t : {BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_PROG_TYPE_TRACEPOINT, BPF_PROG_TYPE_KPROBE}) {
      int r = libbpf_probe_bpf_helper(t, static_cast<bpf_func_id>(h.id), nullptr);
      if (r == 1) return {true, ""};
      last = r == 0 ? "not available to tracing programs" : "probe failed: " + errno_text(-r);
    }
    return {false, last};
  }
  return {false, "unknown helper '" + name + "' (not in this bpfbench's <linux/bpf.h>)"};
}

FeatureStatus probe_kfunc(const std::string &name) {
  LibbpfLogCapture quiet;
  btf *vmlinux = btf__load_vmlinux_btf();
  if (libbpf_get_error(vmlinux) || !vmlinux) return {false, "missing BTF: cannot load /sys/kernel/btf/vmlinux"};
  int id = btf__find_by_name_kind(vmlinux, name.c_str(), BTF_KIND_FUNC);
  btf__free(vmlinux);
  if (id < 0) return {false, "missing BTF: no function '" + name + "' in /sys/kernel/btf/vmlinux"};
  return {true, ""};
}

FeatureStatus probe_attach(const std::string &kind) {
  const AttachProbe *ap = nullptr;
  for (const auto &a : kAttachProbes)
    if (kind == a.kind) ap = &a;
  if (!ap) return {false, "unknown attach kind '" + kind + "'"};
  CompileOptions co;
  co.virtual_name = "bpfbench_probe.bpf.c";
  const bool usdt = ap->attach == AttachKind::Usdt;
  const bool newer = usdt || ap->attach == AttachKind::UprobeMulti || ap->attach == AttachKind::UretprobeMulti;
  CompileResult cr = compile_bpf(newer ? kNewerProbeSource : kProbeSource, co);
  if (!cr.ok) return {false, "cannot compile the probe program" + (cr.error.empty() ? "" : ": " + cr.error), true};
  BpfObject obj;
  Result<> e = obj.open(cr.object, "bb_probe");
  if (e) e = obj.set_autoload_only({ap->function});
  if (e) e = obj.load();
  std::string hint = (kind == "kprobe" || kind == "kretprobe") ? kprobe_config_hint() : "";
  if (e && (kind == "tracepoint")) {
    if (auto t = ensure_tracefs(); !t) return {false, t.error().message, true};
  }
  if (e)
    e = obj.attach(ap->function, AttachSpec{ap->attach, usdt ? kUsdtTargetNop : kUprobeTargetNop, "/proc/self/exe"});
  if (e) return {true, ""};
  if (usdt && !usdt_targets_built()) return {false, "this bpfbench was built without sys/sdt.h (no USDT probes)"};
  const BpfError &b = *e.error().bpf;  // every BpfObject failure carries its phase
  return {false, hint + to_string(b.phase) + " failed: " + errno_text(b.err)};
}

}  // namespace

std::string FeatureProber::describe(const std::string &req) {
  size_t c = req.find(':');
  std::string kind = req.substr(0, c), name = c == std::string::npos ? "" : req.substr(c + 1);
  if (kind == "prog_type") return "program type " + name;
  if (kind == "helper") return "helper " + name;
  if (kind == "kfunc") return "kfunc " + name;
  if (kind == "attach") return name;
  return req;
}

FeatureStatus FeatureProber::check(const std::string &req) {
  if (auto it = cache_.find(req); it != cache_.end()) return it->second;
  size_t c = req.find(':');
  FeatureStatus st = c == std::string::npos ? FeatureStatus{false, "malformed requirement '" + req + "'"}
                                            : probe(req.substr(0, c), req.substr(c + 1));
  cache_[req] = st;
  return st;
}

FeatureStatus FeatureProber::probe(const std::string &kind, const std::string &name) {
  if (kind == "prog_type") return probe_prog_type(name);
  if (kind == "helper") return probe_helper(name);
  if (kind == "kfunc") return probe_kfunc(name);
  if (kind == "attach") return probe_attach(name);
  return {false, "unknown requirement kind '" + kind + "'"};
}

const std::vector<std::string> &default_probe_list() {
  static const std::vector<std::string> list = {
      "prog_type:tracepoint",
      "prog_type:raw_tracepoint",
      "prog_type:kprobe",
      "prog_type:tracing",
      "prog_type:syscall",
      "attach:tracepoint",
      "attach:raw_tp",
      "attach:uprobe",
      "attach:uretprobe",
      "attach:uprobe.multi",
      "attach:uretprobe.multi",
      "attach:usdt",
      "attach:kprobe",
      "attach:kretprobe",
      "attach:kprobe.multi",
      "attach:kretprobe.multi",
      "attach:fentry",
      "attach:fexit",
      "attach:fmod_ret",
      "helper:bpf_ringbuf_reserve",
      "helper:bpf_ringbuf_output",
      "helper:bpf_perf_event_output",
      "helper:bpf_loop",
      "helper:bpf_strncmp",
      "helper:bpf_task_storage_get",
      "helper:bpf_get_numa_node_id",
      "helper:bpf_ktime_get_ns",
      "kfunc:bpf_modify_return_test_tp",
      "kfunc:bpf_get_cpu_time_counter",
      "kfunc:bpf_cpu_time_counter_to_ns",
  };
  return list;
}

std::vector<FeatureRow> FeatureProber::probe_all() {
  std::vector<FeatureRow> rows;
  for (const auto &req : default_probe_list()) {
    FeatureStatus st = check(req);
    size_t c = req.find(':');
    rows.push_back({req.substr(0, c), req.substr(c + 1), st.available, st.reason});
  }
  return rows;
}

std::string render_probe_text(const std::vector<FeatureRow> &rows) {
  std::string out;
  std::string kind;
  for (const auto &r : rows) {
    if (r.kind != kind) {
      kind = r.kind;
      out += (out.empty() ? "" : "\n") + kind + ":\n";
    }
    out += fmt::format("  {:<30} {}{}\n", r.name, r.available ? "yes" : "no", r.available ? "" : " (" + r.reason + ")");
  }
  return out;
}

nlohmann::json probe_to_json(const std::vector<FeatureRow> &rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto &r : rows)
    j.push_back({{"kind", r.kind}, {"name", r.name}, {"available", r.available}, {"reason", r.reason}});
  return j;
}

}  // namespace bpfbench
