// One bpfbench command run inside a guest kernel: initramfs (cached), share folder, job
// script, qemu, and the result files brought back to where the user asked for them.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "vm/kernel_cache.hpp"
#include "vm/qemu.hpp"

namespace bpfbench::vm {

// The options `run`/`probe` take only on the host; the guest gets the command without them.
const std::vector<std::string> &host_only_options();

// Options of the guest command whose value is a file to bring back (`run --json out.json`).
const std::vector<std::string> &output_file_options();

// `argv` without the host-only options (both "--opt v" and "--opt=v" forms).
std::vector<std::string> strip_host_options(const std::vector<std::string> &argv);

struct OutputFile {
  std::string host_path;   // absolute, where the user wants it
  std::string share_name;  // file name inside the share's out/ folder
};

// Rewrites every output-file option value to a path in the guest's share and returns what
// to copy back afterwards. "-" (stdout) is left alone. `cwd` makes relative paths absolute.
std::vector<OutputFile> redirect_outputs(std::vector<std::string> &argv, const std::string &cwd);

// The job script the guest's init runs in the chroot (POSIX sh). `env` ("NAME=value")
// is exported before the command.
std::string job_script(const std::vector<std::string> &argv, const std::string &cwd,
                       const std::vector<std::string> &env = {});

// The host's settings of where bpfbench's files are (XDG_CACHE_HOME, BPFBENCH_TEMPLATE_PATH),
// as "NAME=value", for the guest: its root is the host's, so the same paths name the same
// files, and a guest run reads the object cache the host filled (session/inputs.hpp
// precompile_quietly) instead of compiling under emulation.
std::vector<std::string> host_file_env();

// Single-quotes for sh.
std::string shell_quote(const std::string &s);

// The cached initramfs for a kernel (built on first use), or why it could not be.
Result<std::string> ensure_initramfs(const KernelSpec &, const std::string &busybox);

struct GuestRequest {
  KernelSpec kernel;
  AccelChoice accel;
  std::vector<std::string> argv;  // the guest command; argv[0] is the bpfbench binary
  std::string cwd;
  std::string busybox = "/bin/busybox";
  double boot_timeout_s = 60;
  double job_timeout_s = 0;
  int cpus = 2;
  int memory_mb = 1024;
  const std::atomic<bool> *stop = nullptr;
  std::function<void(const std::string &)> on_stdout;
};

struct GuestResult {
  bool ok = false;  // the guest ran the job (job_exit is its exit code)
  int job_exit = -1;
  std::string error;         // setup failure or the VM outcome's message
  std::string console_tail;  // when the guest failed
  std::string job_stderr;
  std::vector<std::string> brought_back;  // host paths written
  bool qemu_missing = false;
  double boot_s = 0, total_s = 0;
};

GuestResult run_in_guest(const GuestRequest &);

}  // namespace bpfbench::vm
