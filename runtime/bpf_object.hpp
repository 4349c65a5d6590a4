// RAII over one libbpf object: open from memory, set .rodata and map sizes, load, attach.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/family/kinds.hpp"
#include <vector>

#include "util/error.hpp"

struct bpf_object;
struct bpf_program;
struct bpf_map;
struct bpf_link;

namespace bpfbench {

// How a program is attached: `auto` (bpf_program__attach, from SEC), `uprobe` and
// `uretprobe` (on function `target` of `binary`, all processes), `uprobe_multi` and
// `uretprobe_multi` (the same through a uprobe.multi link; `target` one of the bpfbench
// binary's uprobe targets), `usdt` (`target` = "provider:name" in `binary`, all
// processes), `none`/`test_run` (loaded only).
struct AttachSpec {
  AttachKind kind = AttachKind::Auto;
  std::string target;
  std::string binary = "/proc/self/exe";
};

// Lines kept from the verifier log when a load fails.
inline constexpr size_t kLogTailLines = 30;

// A global variable of a DATASEC (".rodata", ".bss") found through the object's BTF.
struct DatasecVar {
  size_t offset = 0;
  size_t size = 0;
  std::string name;
};

class BpfObject {
 public:
  BpfObject() = default;
  ~BpfObject();
  BpfObject(BpfObject &&o) noexcept;
  BpfObject &operator=(BpfObject &&o) noexcept;
  BpfObject(const BpfObject &) = delete;
  BpfObject &operator=(const BpfObject &) = delete;

  // Copies `elf` (libbpf reads it lazily until load) and opens it as `name`.
  Result<> open(const std::vector<uint8_t> &elf, const std::string &name);

  // Before load. Writes `value` (truncated to the variable's BTF size, little endian)
  // into the .rodata image. A missing variable is an error unless `optional`.
  Result<> set_rodata(const std::string &var, int64_t value, bool optional = false);
  Result<> set_map_size(const std::string &map, uint32_t max_entries);
  Result<> set_map_extra(const std::string &map, uint64_t map_extra);
  // Autoloads exactly these programs (C function names); all others are off.
  Result<> set_autoload_only(const std::vector<std::string> &functions);

  // Loads with the verifier log captured; `verbose` echoes libbpf's messages.
  Result<> load(bool verbose = false);
  // Attaches a loaded program; the link lives until this object is destroyed.
  Result<> attach(const std::string &function, const AttachSpec &spec);

  int program_fd(const std::string &function) const;  // -1 when absent / not loaded
  bpf_program *program(const std::string &function) const;
  bpf_map *map(const std::string &name) const;  // also finds ".bss"/".rodata"
  bpf_object *raw() const { return obj_; }
  std::optional<DatasecVar> datasec_var(const std::string &datasec, const std::string &var) const;
  std::vector<DatasecVar> datasec_vars(const std::string &datasec) const;  // all, in BTF order
  size_t link_count() const { return links_.size() + link_fds_.size(); }

  // Destroys links, then the object (idempotent; the destructor calls it).
  void reset();

 private:
  std::vector<uint8_t> elf_;
  bpf_object *obj_ = nullptr;
  std::vector<bpf_link *> links_;
  std::vector<int> link_fds_;  // links libbpf 1.1 cannot make (uprobe.multi), by fd
  Result<> attach_multi(const std::string &function, bpf_program *prog, const AttachSpec &spec);
  Result<> attach_link(const std::string &function, bpf_program *prog, const AttachSpec &spec);
};

// Mounts tracefs at /sys/kernel/tracing when it is not mounted yet (tracepoint and
// kprobe attachment need it). A tracefs that is there but cannot be read is an error of
// its own, never "not mounted", and is not mounted over.
Result<> ensure_tracefs(const std::string &dir = "/sys/kernel/tracing");

// True when a SEC name needs tracefs to attach ("tp/", "tracepoint/", "kprobe/", ...).
bool section_needs_tracefs(const std::string &section);

}  // namespace bpfbench
