#include "runtime/bpf_object.hpp"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sys/mount.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <cstring>
#include <utility>

#include "runtime/kprobe_multi_all.hpp"
#include "runtime/libbpf_log.hpp"
#include "runtime/memory_cgroup.hpp"
#include "runtime/uprobe_multi.hpp"
#include "runtime/uprobe_targets.hpp"

namespace bpfbench {

namespace {

BpfError make_error(BpfPhase phase, int err, std::string msg, std::string tail = {}) {
  return BpfError{phase, err < 0 ? -err : err, std::move(msg), std::move(tail)};
}

// libbpf's own one-line summary of a failed program load, if it printed one.
std::string failed_prog_line(const std::string &text) {
  size_t p = text.rfind("BPF program load failed");
  if (p == std::string::npos) return "";
  size_t b = text.rfind('\n', p);
  b = b == std::string::npos ? 0 : b + 1;
  size_t e = text.find('\n', p);
  return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

// The map libbpf says it could not create ("map 'huge': failed to create: ..."), or "".
std::string failed_map_name(const std::string &text) {
  size_t p = text.find("': failed to create");
  size_t b = p == std::string::npos ? p : text.rfind("map '", p);
  return b == std::string::npos ? "" : text.substr(b + 5, p - b - 5);
}

}  // namespace

BpfObject::~BpfObject() { reset(); }

BpfObject::BpfObject(BpfObject &&o) noexcept
    : elf_(std::move(o.elf_)),
      obj_(std::exchange(o.obj_, nullptr)),
      links_(std::move(o.links_)),
      link_fds_(std::move(o.link_fds_)) {
  o.links_.clear();
  o.link_fds_.clear();
}

BpfObject &BpfObject::operator=(BpfObject &&o) noexcept {
  if (this != &o) {
    reset();
    elf_ = std::move(o.elf_);
    obj_ = std::exchange(o.obj_, nullptr);
    links_ = std::move(o.links_);
    link_fds_ = std::move(o.link_fds_);
    o.links_.clear();
    o.link_fds_.clear();
  }
  return *this;
}

void BpfObject::reset() {
  // Links first: a link pins its program, and detaching before the object closes
  // keeps the kernel from running a half-torn-down program.
  for (auto it = links_.rbegin(); it != links_.rend(); ++it) bpf_link__destroy(*it);
  links_.clear();
  for (int fd : link_fds_) close(fd);
  link_fds_.clear();
  if (obj_) bpf_object__close(obj_);
  obj_ = nullptr;
}

Result<> BpfObject::open(const std::vector<uint8_t> &elf, const std::string &name) {
  reset();
  if (elf.empty()) return make_error(BpfPhase::Open, EINVAL, "empty BPF object");
  elf_ = elf;
  LibbpfLogCapture cap;
  LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = name.c_str());
  bpf_object *obj = bpf_object__open_mem(elf_.data(), elf_.size(), &opts);
  long err = libbpf_get_error(obj);
  if (!obj || err) {
    int e = err ? static_cast<int>(-err) : errno;
    return make_error(BpfPhase::Open, e, "cannot open BPF object '" + name + "'", last_lines(cap.text(), 5));
  }
  obj_ = obj;
  return {};
}

std::vector<DatasecVar> BpfObject::datasec_vars(const std::string &datasec) const {
  std::vector<DatasecVar> vars;
  const btf *b = obj_ ? bpf_object__btf(obj_) : nullptr;
  int id = b ? btf__find_by_name_kind(b, datasec.c_str(), BTF_KIND_DATASEC) : -1;
  if (id < 0) return vars;
  const btf_type *sec = btf__type_by_id(b, id);
  const btf_var_secinfo *vi = btf_var_secinfos(sec);
  for (int i = 0; i < btf_vlen(sec); ++i, ++vi) {
    const btf_type *v = btf__type_by_id(b, vi->type);
    const char *n = v ? btf__name_by_offset(b, v->name_off) : nullptr;
    if (n) vars.push_back(DatasecVar{vi->offset, vi->size, n});
  }
  return vars;
}

std::optional<DatasecVar> BpfObject::datasec_var(const std::string &datasec, const std::string &var) const {
  for (DatasecVar &v : datasec_vars(datasec))
    if (v.name == var) return std::move(v);
  return std::nullopt;
}

Result<> BpfObject::set_rodata(const std::string &var, int64_t value, bool optional) {
  auto v = datasec_var(".rodata", var);
  bpf_map *m = map(".rodata");
  if (!v || !m) {
    if (optional) return {};
    return make_error(BpfPhase::Setup, ENOENT, "no const volatile global '" + var + "' in .rodata");
  }
  size_t size = 0;
  auto *image = static_cast<uint8_t *>(const_cast<void *>(bpf_map__initial_value(m, &size)));
  if (!image || v->offset + v->size > size || v->size > sizeof(value))
    return make_error(BpfPhase::Setup, EINVAL, "cannot write .rodata variable '" + var + "'");
  // Little endian: the low bytes of the value are the variable's value.
  uint64_t u = static_cast<uint64_t>(value);
  for (size_t i = 0; i < v->size; ++i) image[v->offset + i] = static_cast<uint8_t>(u >> (8 * i));
  return {};
}

namespace {

// Before load: `set` on the map called `name` (null: none), its error naming `attr`.
template <typename Set>
Result<> set_map_attr(bpf_map *m, const std::string &name, const char *attr, uint64_t value, Set set) {
  if (!m) return make_error(BpfPhase::Setup, ENOENT, "no map '" + name + "' in the object");
  if (int err = set(m))
    return make_error(BpfPhase::Setup, err,
                      "cannot set " + std::string(attr) + " of map '" + name + "' to " + std::to_string(value));
  return {};
}

}  // namespace

Result<> BpfObject::set_map_size(const std::string &name, uint32_t max_entries) {
  return set_map_attr(map(name), name, "max_entries", max_entries,
                      [&](bpf_map *m) { return bpf_map__set_max_entries(m, max_entries); });
}

Result<> BpfObject::set_map_extra(const std::string &name, uint64_t map_extra) {
  return set_map_attr(map(name), name, "map_extra", map_extra,
                      [&](bpf_map *m) { return bpf_map__set_map_extra(m, map_extra); });
}

Result<> BpfObject::set_autoload_only(const std::vector<std::string> &functions) {
  if (!obj_) return make_error(BpfPhase::Setup, EINVAL, "object not open");
  bpf_program *p;
  bpf_object__for_each_program(p, obj_) bpf_program__set_autoload(p, false);
  for (const auto &f : functions) {
    bpf_program *prog = program(f);
    if (!prog) return make_error(BpfPhase::Setup, ENOENT, "no program '" + f + "' in the object");
    bpf_program__set_autoload(prog, true);
  }
  return {};
}

Result<> BpfObject::load(bool verbose) {
  if (!obj_) return make_error(BpfPhase::Load, EINVAL, "object not open");
  LibbpfLogCapture cap(verbose);
  prepare_uprobe_multi_programs(obj_);
  int err = bpf_object__load(obj_);
  if (!err) return {};
  std::string vlog = extract_verifier_log(cap.text());
  std::string line = failed_prog_line(cap.text());
  std::string msg = line.empty() ? "cannot load BPF object" : line;
  // A map the kernel refused (too big, say): name it and its size, not just the object.
  if (const std::string name = failed_map_name(cap.text()); line.empty() && !name.empty())
    if (const bpf_map *m = map(name))
      msg = "cannot create map '" + name + "' (max_entries " + std::to_string(bpf_map__max_entries(m)) + ", " +
            std::to_string(bpf_map__key_size(m)) + "-byte keys, " + std::to_string(bpf_map__value_size(m)) +
            "-byte values)";
  // Cut libbpf's ": <strerror>" suffix; BpfError::to_string adds its own.
  if (size_t c = msg.find(" load failed:"); c != std::string::npos) msg.resize(c + 12);
  BpfError e = make_error(BpfPhase::Load, err, msg, last_lines(vlog.empty() ? cap.text() : vlog, kLogTailLines));
  e.verifier_log = std::move(vlog);
  return e;
}

// Where cgroup v2 is mounted (runtime/memory_cgroup.hpp), /sys/fs/cgroup when nowhere.
static std::string cgroup2_root() {
  std::string dir = cgroup2_mount();
  return dir.empty() ? "/sys/fs/cgroup" : dir;
}

// A usdt link: libbpf's attach on `target` = provider:name in `binary`.
static bpf_link *attach_usdt_link(bpf_program *prog, const AttachSpec &spec) {
  const size_t colon = spec.target.find(':');
  const std::string provider = spec.target.substr(0, colon);
  const std::string name = colon == std::string::npos ? "" : spec.target.substr(colon + 1);
  return bpf_program__attach_usdt(prog, -1, spec.binary.c_str(), provider.c_str(), name.c_str(), nullptr);
}

// A cgroup link on `target` (default: the cgroup v2 root). The link holds the cgroup: the
// fd is ours to close. The programs filter on bb_tgid.
static Result<bpf_link *> attach_cgroup_link(bpf_program *prog, const AttachSpec &spec) {
  const std::string dir = spec.target.empty() ? cgroup2_root() : spec.target;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return make_error(BpfPhase::Attach, errno, "cannot open cgroup " + dir);
  bpf_link *link = bpf_program__attach_cgroup(prog, fd);
  int e = errno;
  close(fd);
  errno = e;
  return link;
}

// A uprobe or uretprobe on `target` in `binary`. pid -1: every thread of every process
// running the binary; producers are threads other than the one attaching, so "self" (pid
// 0 = this thread) would miss them.
static bpf_link *attach_uprobe_link(bpf_program *prog, const AttachSpec &spec) {
  LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = spec.kind == AttachKind::Uretprobe, .func_name = spec.target.c_str());
  return bpf_program__attach_uprobe_opts(prog, -1, spec.binary.c_str(), 0, &uo);
}

// Every attach kind is a case here (no default: -Wswitch names this place for a new kind).
Result<> BpfObject::attach(const std::string &function, const AttachSpec &spec) {
  bpf_program *prog = program(function);
  if (!prog || bpf_program__fd(prog) < 0)
    return make_error(BpfPhase::Attach, ENOENT, "program '" + function + "' is not loaded");
  switch (spec.kind) {
  case AttachKind::None:
  case AttachKind::TestRun: return {};
  case AttachKind::UprobeMulti:
  case AttachKind::UretprobeMulti: return attach_multi(function, prog, spec);
  case AttachKind::Auto:
  case AttachKind::Usdt:
  case AttachKind::Cgroup:
  case AttachKind::Uprobe:
  case AttachKind::Uretprobe: return attach_link(function, prog, spec);
  }
  return make_error(BpfPhase::Attach, EINVAL, "program '" + function + "': unknown attach kind");
}

// The kinds that make a libbpf bpf_link, which links_ keeps.
Result<> BpfObject::attach_link(const std::string &function, bpf_program *prog, const AttachSpec &spec) {
  LibbpfLogCapture cap;
  bpf_link *link = nullptr;
  switch (spec.kind) {
  case AttachKind::Auto:
    if (is_kprobe_multi_all_section(bpf_program__section_name(prog))) {
      auto all = attach_kprobe_multi_all(prog, std::string(bpf_program__section_name(prog)).find("kretprobe") !=
                                                   std::string::npos);
      if (!all) return all.error();
      link = *all;
    } else {
      link = bpf_program__attach(prog);
    }
    break;
  case AttachKind::Usdt:
    if (!usdt_targets_built() && spec.binary == "/proc/self/exe")
      return make_error(
          BpfPhase::Attach, ENOENT,
          "cannot attach program '" + function + "' (usdt on " + spec.target +
              "): this bpfbench was built without sys/sdt.h (Debian: systemtap-sdt-dev), so it has no USDT "
              "probes");
    link = attach_usdt_link(prog, spec);
    break;
  case AttachKind::Cgroup: {
    auto l = attach_cgroup_link(prog, spec);
    if (!l) return l.error();
    link = *l;
    break;
  }
  case AttachKind::Uprobe:
  case AttachKind::Uretprobe: link = attach_uprobe_link(prog, spec); break;
  case AttachKind::UprobeMulti:
  case AttachKind::UretprobeMulti:
  case AttachKind::TestRun:
  case AttachKind::None:
    return make_error(BpfPhase::Attach, EINVAL,
                      std::string("attach kind '") + kind_name(spec.kind) + "' makes no bpf_link");
  }
  long err = libbpf_get_error(link);
  if (!link || err) {
    int e = err ? static_cast<int>(-err) : errno;
    std::string what = spec.kind == AttachKind::Auto || spec.kind == AttachKind::Cgroup
                           ? std::string(bpf_program__section_name(prog))
                           : std::string(kind_name(spec.kind)) + " on " + spec.target;
    std::string msg = "cannot attach program '" + function + "' (" + what + ")";
    if (spec.kind != AttachKind::Auto && spec.kind != AttachKind::Cgroup &&
        cap.text().find("failed to find symbol") != std::string::npos)
      msg += ": " + spec.binary + (spec.binary == "/proc/self/exe" ? " (the bpfbench binary)" : "") +
             " has no function '" + spec.target + "'";
    return make_error(BpfPhase::Attach, e, msg, last_lines(cap.text(), 5));
  }
  links_.push_back(link);
  return {};
}

// uprobe.multi through the raw BPF_LINK_CREATE (libbpf 1.1 has no API for it). The target
// is a function of this process, so its file offset comes from where it is mapped.
Result<> BpfObject::attach_multi(const std::string &function, bpf_program *prog, const AttachSpec &spec) {
  const std::string what =
      "cannot attach program '" + function + "' (" + kind_name(spec.kind) + " on " + spec.target + ")";
  void *addr = uprobe_target_address(spec.target.c_str());
  if (!addr || spec.binary != "/proc/self/exe")
    return make_error(BpfPhase::Attach, ENOENT,
                      what + ": a uprobe.multi target is one of the bpfbench binary's uprobe targets");
  auto off = file_offset_of(addr);
  if (!off) return make_error(BpfPhase::Attach, EINVAL, what + ": " + off.error().message);
  auto fd = create_uprobe_multi_link(bpf_program__fd(prog), spec.binary, *off, spec.kind == AttachKind::UretprobeMulti);
  if (!fd) return make_error(BpfPhase::Attach, fd.error().bpf ? fd.error().bpf->err : EINVAL, what);
  link_fds_.push_back(*fd);
  return {};
}

bpf_program *BpfObject::program(const std::string &function) const {
  return obj_ ? bpf_object__find_program_by_name(obj_, function.c_str()) : nullptr;
}

int BpfObject::program_fd(const std::string &function) const {
  bpf_program *p = program(function);
  return p ? bpf_program__fd(p) : -1;
}

bpf_map *BpfObject::map(const std::string &name) const {
  if (!obj_) return nullptr;
  // libbpf matches internal maps (".bss", ".rodata") by their section name too.
  return bpf_object__find_map_by_name(obj_, name.c_str());
}

bool section_needs_tracefs(const std::string &section) {
  std::string s = section;
  if (!s.empty() && s[0] == '?') s.erase(0, 1);
  for (const char *p : {"tp/", "tracepoint/", "kprobe/", "kretprobe/", "ksyscall/", "kretsyscall/"})
    if (s.rfind(p, 0) == 0) return true;
  return false;
}

Result<> ensure_tracefs(const std::string &dir) {
  struct stat st {};
  const std::string events = dir + "/events";
  if (stat(events.c_str(), &st) == 0) return {};
  // Only a missing events/ means "not mounted": anything else (a mount that cannot be
  // read, a broken path) is reported as it is, and nothing is mounted over it.
  if (int e = errno; e != ENOENT)
    return Error("tracefs at " + dir + " cannot be read: " + events + ": " + errno_text(e));
  if (mount("tracefs", dir.c_str(), "tracefs", 0, nullptr) != 0)
    return Error("tracefs is not mounted at " + dir + " and mounting it failed: " + errno_text(errno) +
                 " (mount it first: mount -t tracefs tracefs " + dir + ")");
  return {};
}

}  // namespace bpfbench
