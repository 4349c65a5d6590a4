#include "runtime/privileges.hpp"

#include <bpf/libbpf.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/bpf_object.hpp"

namespace bpfbench {

Result<void> check_privileges() {
  if (geteuid() == 0) return {};
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &hdr, data) != 0)
    return Error("bpfbench needs root or CAP_BPF and CAP_PERFMON (capget failed: " + errno_text(errno) + ")");
  auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
  bool admin = has(CAP_SYS_ADMIN);
  std::string missing;
  if (!has(CAP_BPF) && !admin) missing = "CAP_BPF";
  if (!has(CAP_PERFMON) && !admin) missing += (missing.empty() ? "" : ", ") + std::string("CAP_PERFMON");
  if (missing.empty()) return {};
  return Error("bpfbench needs root or CAP_BPF and CAP_PERFMON (missing: " + missing + ")");
}

Result<void> check_bpf_loading() {
  // libbpf's probe: `r0 = 0; exit` as a socket filter, the type every BPF kernel has.
  const int r = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SOCKET_FILTER, nullptr);
  if (r == 1) return {};
  return Error("the kernel refused a minimal BPF program (" +
               (r < 0 ? errno_text(-r) : std::string("not loaded")) + ")");
}

}  // namespace bpfbench
