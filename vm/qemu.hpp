// The qemu side: KVM or TCG, the command line, and running one guest with timeouts.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace bpfbench::vm {

enum class Accel { Auto, Kvm, Tcg };

struct AccelChoice {
  Accel accel = Accel::Tcg;  // Kvm or Tcg
  std::string why;           // one line: why this mode
};

// Auto: KVM when /dev/kvm opens read-write and the CPU advertises vmx/svm (a /dev/kvm
// without them is a paravirtual backend that cannot run a stock kernel), else TCG.
AccelChoice choose_accel(Accel requested, const std::string &dev_kvm = "/dev/kvm",
                         const std::string &cpuinfo = "/proc/cpuinfo");
const char *to_string(Accel);
// The `--accel` words: "kvm", "tcg", anything else (the CLI allows only "auto") Auto.
Accel accel_from_name(const std::string &name);

struct VmConfig {
  std::string qemu = "qemu-system-x86_64";
  std::string bios = "/usr/share/qemu/qboot.rom";  // qboot: boots an ELF vmlinux directly
  std::string kernel_image;                        // uncompressed vmlinux
  std::string initramfs;
  std::string share_dir;    // read-write 9p share: job in, results out
  std::string console_log;  // ttyS0 (kernel + init messages)
  Accel accel = Accel::Tcg;
  int cpus = 2;
  int memory_mb = 1024;
  std::vector<std::string> kernel_env;  // KEY=value on the kernel command line → init's environment
};

std::string kernel_cmdline(const VmConfig &);
std::vector<std::string> qemu_command(const VmConfig &);

struct VmWatch {
  double boot_timeout_s = 60;  // qemu start → the guest's "up" status
  double job_timeout_s = 0;    // "up" → poweroff; 0 = none
  const std::atomic<bool> *stop = nullptr;
  std::function<void(const std::string &)> on_stdout;  // the job's stdout as it arrives
};

struct VmOutcome {
  enum class Kind { Done, QemuMissing, QemuFailed, BootTimeout, JobTimeout, NoResult, Interrupted };
  Kind kind = Kind::Done;
  int job_exit = -1;         // Done: the job's exit code
  std::string message;       // not Done: what happened, one line
  std::string console_tail;  // not Done: last console lines
  std::string job_stderr;    // the job's stderr (Done and NoResult)
  double boot_s = 0, total_s = 0;
};

// Starts qemu, streams the job's stdout, enforces the timeouts (SIGKILL; the console tail
// says how far the guest got) and reads the exit code the guest's init left in the share.
VmOutcome run_vm(const VmConfig &, const VmWatch &);

}  // namespace bpfbench::vm
