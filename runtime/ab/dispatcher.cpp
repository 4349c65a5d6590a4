#include "runtime/ab/dispatcher.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fmt/format.h>

#include <cctype>

#include "compiler/bpf/clang_compile.hpp"
#include "util/escape.hpp"

namespace bpfbench {

namespace {

constexpr const char *kFunction = "bb_ab_dispatch";
constexpr const char *kSlotMap = "bb_ab_slot";

}  // namespace

bool plain_section(const std::string &section) {
  if (section.empty()) return false;
  for (char c : section)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == ':' || c == '+' ||
          c == '-' || c == '?'))
      return false;
  return true;
}

std::string dispatcher_source(const std::string &section) {
  return fmt::format(R"(#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {{
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
}} {} SEC(".maps");

SEC({})
int {}(void *ctx)
{{
	bpf_tail_call(ctx, &{}, 0);
	return 0;
}}
)",
                     kSlotMap, "\"" + section + "\"", kFunction, kSlotMap);
}

Result<> Dispatcher::attach(const ProgramSpec &prog, const std::string &uprobe_binary, bool verbose) {
  // SEC() takes an unevaluated string literal, which allows no escapes: a section is
  // spelled with these characters only (manifests use no others), or refused.
  if (!plain_section(prog.section))
    return Error("cannot dispatch to section '" + printable_text(prog.section) + "': not a plain SEC name");
  CompileOptions co;
  co.virtual_name = "bpfbench_ab_dispatch.bpf.c";
  CompileResult cr = compile_bpf(dispatcher_source(prog.section), co);
  if (!cr.ok) {
    std::string why = cr.error;
    for (const auto &d : cr.diags)
      if (why.empty() && d.severity == Severity::Error) why = d.message;
    return Error("cannot compile the dispatcher for '" + prog.section + "': " + why);
  }
  BB_TRY(obj_.open(cr.object, "bb_ab_dispatch"));
  BB_TRY(obj_.set_autoload_only({kFunction}));
  BB_TRY(obj_.load(verbose));
  bpf_map *m = obj_.map(kSlotMap);
  if (!m) return Error("the dispatcher has no slot map");
  map_fd_ = bpf_map__fd(m);
  fd_ = obj_.program_fd(kFunction);
  if (section_needs_tracefs(prog.section)) BB_TRY(ensure_tracefs());
  return obj_.attach(kFunction, AttachSpec{prog.attach, prog.target, uprobe_binary});
}

Result<> Dispatcher::activate(int prog_fd) {
  const uint32_t key = 0;
  if (bpf_map_update_elem(map_fd_, &key, &prog_fd, BPF_ANY) != 0)
    return Error("the kernel refuses the tail call from the dispatcher into the measured program: " +
                 errno_text(errno));
  return {};
}

void Dispatcher::clear() {
  const uint32_t key = 0;
  if (map_fd_ >= 0) (void)bpf_map_delete_elem(map_fd_, &key);
}

}  // namespace bpfbench
