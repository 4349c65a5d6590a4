// The guest's initramfs: static busybox, the modules the kernel lacks, and an /init that
// mounts the host root read-only under a tmpfs overlay and runs the job from the share.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench::vm {

// 9p mount tags and where the result share appears inside the guest's root.
inline constexpr const char *kHostRootTag = "hostroot";
inline constexpr const char *kShareTag = "bbresults";
inline constexpr const char *kGuestShareDir = "/run/bpfbench-vm";

// Files in the share: the host writes kJobFile; the guest's init writes the rest.
inline constexpr const char *kJobFile = "job.sh";
inline constexpr const char *kStatusFile = "status";  // "up" once the root is mounted
inline constexpr const char *kStdoutFile = "stdout";
inline constexpr const char *kStderrFile = "stderr";
inline constexpr const char *kExitFile = "exit_code";

// The busybox applets /init uses; links are made in the archive, not at boot.
const std::vector<std::string> &busybox_applets();

// The /init script (busybox sh).
std::string guest_init_script();

// True when `elf` is an executable without a program interpreter (statically linked).
bool is_static_elf(const std::string &elf);

struct InitramfsInfo {
  std::string archive;               // newc cpio
  std::vector<std::string> modules;  // load order
  std::vector<std::string> builtin;  // needed but built in
};

// `modules_dir` = lib/modules/<release> of the guest kernel; `busybox` a static busybox
// (busybox-static installs one at /bin/busybox).
Result<InitramfsInfo> build_initramfs(const std::string &modules_dir, const std::string &busybox);

}  // namespace bpfbench::vm
