#include "cli/kernel_cmd.hpp"
#include "util/escape.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/front.hpp"
#include "cli/values.hpp"
#include "runtime/privileges.hpp"
#include "runtime/probe.hpp"
#include "runtime/stop.hpp"
#include "vm/guest_probe.hpp"
#include "vm/guest_run.hpp"
#include "vm/labels.hpp"

namespace bpfbench::cli {

namespace fs = std::filesystem;

namespace {

constexpr double kDaySeconds = 24 * 3600;

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all(std::istreambuf_iterator<char>(in), {});
  std::vector<std::string> argv;
  for (size_t pos = 0; pos < all.size();) {
    size_t end = all.find('\0', pos);
    if (end == std::string::npos) end = all.size();
    argv.push_back(all.substr(pos, end - pos));
    pos = end + 1;
  }
  if (!argv.empty()) argv[0] = own_executable();
  return argv;
}

void progress(const std::string &msg) {
  fmt::print(stderr, "bpfbench: {}\n", msg);
  std::fflush(stderr);
}

std::optional<vm::KernelSpec> resolve_kernel(const std::string &name, const std::string &modules) {
  vm::KernelCache cache(vm::default_cache_root());
  auto k = cache.resolve(name, true, modules, progress);
  if (!k) {
    fmt::print(stderr, "bpfbench: error: {}\n", k.error().message);
    return std::nullopt;
  }
  return *k;
}

void print_failure(const vm::GuestResult &r) {
  fmt::print(stderr, "bpfbench: error: {}\n", r.error);
  if (!r.console_tail.empty()) fmt::print(stderr, "--- guest console (last lines) ---\n{}\n---\n", r.console_tail);
  if (!r.job_stderr.empty()) fmt::print(stderr, "{}", r.job_stderr);
}

// A string member of a probe row, "" when absent or not a string (value() would throw).
std::string row_text(const nlohmann::json &row, const char *key) {
  auto it = row.find(key);
  return it != row.end() && it->is_string() ? printable_text(it->get<std::string>()) : "";
}

// `attach:` rows of a probe: "9/10 (no: kprobe.multi: EOPNOTSUPP)".
std::string attach_summary(const nlohmann::json &rows) {
  int yes = 0, all = 0;
  std::string missing;
  for (const auto &r : rows) {
    if (!r.is_object() || row_text(r, "kind") != "attach") continue;
    ++all;
    if (auto a = r.find("available"); a != r.end() && *a == true) ++yes;
    else missing += (missing.empty() ? "" : ", ") + (row_text(r, "name").empty() ? "?" : row_text(r, "name"));
  }
  if (all == 0) return "-";
  return fmt::format("attach {}/{}{}", yes, all, missing.empty() ? "" : " (missing: " + missing + ")");
}

}  // namespace

std::string own_executable() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec).string();
}

void add_vm_options(CLI::App *cmd, VmArgs &a) {
  cmd->add_option("--kernel", a.kernel,
                  "Run inside this kernel in qemu: 6.1, 6.12 (Debian's, downloaded once), a linux-image-* "
                  "package, or a path to a vmlinux/bzImage")
      ->check(checked(non_empty("a kernel name or path"), "KERNEL"));
  cmd->add_option("--modules", a.modules, "Modules folder (lib/modules/<release>) of a --kernel given by path")
      ->check(checked(non_empty("a folder name"), "DIR"))
      ->type_name("DIR");
  cmd->add_option("--accel", a.accel, "qemu accelerator: auto (KVM when usable), kvm or tcg")
      ->check(CLI::IsMember({"auto", "kvm", "tcg"}));
  // CLI::PositiveNumber lets NaN and inf through: finite seconds, at most a day.
  add_value<double>(
      cmd, "--boot-timeout", number_in(0, kDaySeconds, true), [&a](double s) { a.boot_timeout_s = s; },
      "Seconds for the guest to come up before it is killed", "SECONDS");
  add_value<double>(
      cmd, "--vm-timeout", number_in(0, kDaySeconds), [&a](double s) { a.vm_timeout_s = s; },
      "Seconds for the command in the guest (0 = no limit)", "SECONDS");
}

int cmd_in_guest(const VmArgs &a, bool json_stdout, const FileArgs *precompile) {
  StopSource stop;
  SignalWatcher signals(stop);
  if (geteuid() != 0) {
    // The guest's 9p root is exported with the caller's rights; bpfbench needs root there.
    fmt::print(stderr,
               "bpfbench: error: --kernel needs root (the guest runs bpfbench as root over the host's files)\n");
    return kExitBadInput;
  }
  auto kernel = resolve_kernel(a.kernel, a.modules);
  if (!kernel) return kExitBadInput;
  if (precompile) {
    precompile_quietly(*precompile, &stop.flag());
    if (int code = exit_code_for(stop); code != 0) return code;
  }

  vm::GuestRequest req;
  req.kernel = *kernel;
  req.accel = vm::choose_accel(vm::accel_from_name(a.accel));
  req.argv = vm::strip_host_options(own_command_line());
  std::error_code ec;
  req.cwd = fs::current_path(ec).string();
  req.boot_timeout_s = a.boot_timeout_s;
  req.job_timeout_s = a.vm_timeout_s;
  req.stop = &stop.flag();
  vm::TextLabeler labeler(*kernel, req.accel.accel);
  std::FILE *banner_to = json_stdout ? stderr : stdout;
  if (json_stdout)
    req.on_stdout = [](const std::string &s) {
      fmt::print("{}", s);
      std::fflush(stdout);
    };
  else
    req.on_stdout = [&](const std::string &s) {
      fmt::print("{}", labeler.feed(s));
      std::fflush(stdout);
    };
  std::string banner = vm::vm_banner(*kernel, req.accel);
  fmt::print(banner_to, "{}\n", banner);
  std::fflush(banner_to);

  vm::GuestResult r = vm::run_in_guest(req);
  if (!json_stdout) fmt::print("{}", labeler.flush());
  if (!r.ok) {
    print_failure(r);
    if (int code = exit_code_for(stop); code != 0) return code;
    return kExitBadInput;
  }
  if (!r.job_stderr.empty()) fmt::print(stderr, "{}", r.job_stderr);
  for (const auto &f : r.brought_back) fmt::print(stderr, "bpfbench: result from the guest written to {}\n", f);
  if (!r.error.empty()) fmt::print(stderr, "bpfbench: error: {}\n", r.error);
  fmt::print(banner_to, "bpfbench: guest {} done: up in {:.1f} s, {:.1f} s in all{}\n", kernel->release, r.boot_s,
             r.total_s, req.accel.accel == vm::Accel::Kvm ? "" : std::string(" (") + vm::kEmulatedNote + ")");
  return r.job_exit;
}

CLI::App *add_kernels_command(CLI::App &app, KernelsArgs &a) {
  auto *k = app.add_subcommand("kernels", "List the guest kernels (cached or known) and what probe found in each");
  k->add_option("NAME", a.names, "Only these kernels (6.1, 6.12, a package name or a path)")
      ->check(checked(non_empty("a kernel name or path"), "NAME"));
  k->add_flag("--fetch", a.fetch, "Download and unpack the kernels that are not cached yet");
  k->add_flag("--probe", a.probe, "Boot each kernel in qemu and record `bpfbench probe` there");
  k->add_option("--accel", a.accel, "qemu accelerator for --probe: auto, kvm or tcg")
      ->check(CLI::IsMember({"auto", "kvm", "tcg"}));
  k->add_flag("--json", a.json, "Print as JSON");
  return k;
}

int cmd_kernels(const KernelsArgs &a) {
  vm::KernelCache cache(vm::default_cache_root());
  std::vector<std::string> names = a.names;
  if (names.empty()) {
    for (const auto &kk : vm::known_kernels()) names.push_back(kk.name);
    for (const auto &k : cache.cached())
      if (std::find(names.begin(), names.end(), k.name) == names.end()) names.push_back(k.name);
  }
  StopSource stop;
  SignalWatcher signals(stop);
  int rc = kExitOk;
  nlohmann::json out = {{"cache", cache.root()}, {"kernels", nlohmann::json::array()}};
  std::vector<std::array<std::string, 4>> rows;
  for (const auto &name : names) {
    if (stop.stop_requested()) break;
    auto k = cache.resolve(name, a.fetch, "", progress);
    nlohmann::json j = {{"name", name}, {"cached", static_cast<bool>(k)}};
    if (!k) {
      if (a.fetch || !a.names.empty()) {
        fmt::print(stderr, "bpfbench: error: {}\n", k.error().message);
        rc = kExitBadInput;
      }
      rows.push_back({name, "-", "not cached (bpfbench kernels --fetch " + name + ")", "-"});
      out["kernels"].push_back(j);
      continue;
    }
    if (a.probe) {
      progress("probing " + k->label() + " in qemu");
      vm::GuestProbe p =
          vm::probe_in_guest(*k, vm::choose_accel(vm::accel_from_name(a.accel)), own_executable(), &stop.flag());
      if (!p.error.empty()) {
        p.run.error = p.error;
        print_failure(p.run);
        rc = kExitBadInput;
      }
    }
    nlohmann::json probe = vm::read_guest_probe(*k);
    j.update({{"release", k->release},
              {"package", k->package},
              {"version", k->version},
              {"image", k->image},
              {"dir", k->dir},
              {"probe", probe}});
    out["kernels"].push_back(j);
    rows.push_back({name, k->release, k->version.empty() ? k->image : "Debian " + k->version,
                    probe.is_array() ? attach_summary(probe) : "not probed (bpfbench kernels --probe)"});
  }
  // The host's own kernel, probed live, for comparison (needs root like `probe`).
  utsname u{};
  uname(&u);
  nlohmann::json host_probe;
  if (check_privileges()) {
    FeatureProber prober;
    host_probe = probe_to_json(prober.probe_all());
  }
  out["host"] = {{"release", u.release}, {"probe", host_probe}};
  if (a.json) {
    fmt::print("{}\n", json_text(out, 2));
    return rc;
  }
  fmt::print("kernel cache: {}\n", cache.root());
  fmt::print("{:<8} {:<26} {:<28} {}\n", "NAME", "RELEASE", "SOURCE", "PROBE");
  fmt::print("{:<8} {:<26} {:<28} {}\n", "host", u.release, "running kernel",
             host_probe.is_array() ? attach_summary(host_probe) : "not probed (needs root)");
  for (const auto &r : rows) fmt::print("{:<8} {:<26} {:<28} {}\n", r[0], r[1], r[2], r[3]);
  return rc;
}

}  // namespace bpfbench::cli
