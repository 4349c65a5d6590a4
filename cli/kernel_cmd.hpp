// `--kernel` for run/probe (the same command inside a qemu guest) and `bpfbench kernels`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace bpfbench {
struct FileArgs;
}  // namespace bpfbench

namespace bpfbench::cli {

struct VmArgs {
  std::string kernel;   // "" = run on the host
  std::string modules;  // modules folder for a kernel given by path
  std::string accel = "auto";
  double boot_timeout_s = 90;
  double vm_timeout_s = 0;
};

// This process's own binary (/proc/self/exe): what a guest runs.
std::string own_executable();

// --kernel, --modules, --accel, --boot-timeout, --vm-timeout (vm/guest_run.cpp strips
// exactly these before handing the command to the guest).
void add_vm_options(CLI::App *cmd, VmArgs &a);

// Runs this process's own command line (from /proc/self/cmdline, minus the VM options)
// inside the guest kernel, streams and labels its output, brings result files back.
// `json_stdout`: the command prints JSON on stdout, so the banner goes to stderr.
// `precompile`: the command's input, whose programs are compiled here first (into the
// cache the guest reads: a fraction of the time the emulated guest takes).
int cmd_in_guest(const VmArgs &a, bool json_stdout, const FileArgs *precompile = nullptr);

struct KernelsArgs {
  std::vector<std::string> names;  // "" = the known names + every cached kernel
  bool fetch = false;              // download the named/known kernels that are missing
  bool probe = false;              // boot each kernel and record `probe --json`
  bool json = false;
  std::string accel = "auto";
};

CLI::App *add_kernels_command(CLI::App &app, KernelsArgs &a);
int cmd_kernels(const KernelsArgs &a);

}  // namespace bpfbench::cli
