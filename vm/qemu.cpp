#include "vm/qemu.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "util/input_file.hpp"
#include "vm/initramfs.hpp"
#include "vm/process.hpp"

namespace bpfbench::vm {

namespace {

// Status files, logs and /proc/cpuinfo: "" when missing (the guest has not written it yet).
// The object-size bound, not the text one: a chatty guest's console log is still shown.
std::string read_text(const std::string &path) {
  auto in = read_input_file(path, kMaxObjectInputBytes);
  return in ? std::move(in->data) : std::string();
}

// Bytes of `path` from `offset` on (the guest appends to it over 9p while we read), through
// the checked opener: a regular file only, and no more than the object-size bound in all.
std::string read_from(const std::string &path, size_t offset) {
  std::string out;
  auto in = open_input_stream(path, kMaxObjectInputBytes);
  if (!in || !in->seek(offset)) return "";
  char buf[65536];
  for (ssize_t n; (n = in->read(buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  return out;
}

// Kills (the group) and reaps qemu unless release()d: it has been reaped already.
class GroupReaper {
 public:
  explicit GroupReaper(pid_t pid) : pid_(pid) {}
  ~GroupReaper() {
    if (pid_ <= 0) return;
    kill_process_group(pid_);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
  }
  GroupReaper(const GroupReaper &) = delete;
  GroupReaper &operator=(const GroupReaper &) = delete;
  void release() { pid_ = -1; }

 private:
  pid_t pid_;
};

// What the guest's end means: the job's exit code, or why there is none.
VmOutcome ended(VmOutcome o, const VmConfig &c, const VmWatch &w, std::optional<VmOutcome::Kind> killed, int wstatus) {
  using K = VmOutcome::Kind;
  const std::string qemu_log = c.console_log + ".qemu", status = c.share_dir + "/" + kStatusFile;
  auto describe = [&](K kind, std::string msg) {
    o.kind = kind;
    o.message = std::move(msg);
    o.console_tail = tail_lines(read_text(c.console_log), 15);
    if (o.console_tail.empty()) o.console_tail = "(empty: the kernel printed nothing yet; it boots with `quiet`)";
    if (std::string q = tail_lines(read_text(qemu_log), 5); !q.empty()) o.console_tail += "\n[qemu] " + q;
    return o;
  };
  if (killed == K::Interrupted) return describe(K::Interrupted, "interrupted: the guest was stopped");
  if (killed == K::BootTimeout)
    return describe(K::BootTimeout,
                    "the guest did not come up within " + std::to_string(int(w.boot_timeout_s)) + " s and was killed");
  if (killed == K::JobTimeout)
    return describe(K::JobTimeout, "the job did not finish within " + std::to_string(int(w.job_timeout_s)) +
                                       " s and the guest was killed");
  std::string code = read_text(c.share_dir + "/" + kExitFile);
  if (code.empty()) {
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0)
      return describe(K::QemuFailed, "qemu exited with status " + std::to_string(WEXITSTATUS(wstatus)));
    std::string st = read_text(status);
    return describe(K::NoResult, st.rfind("failed: ", 0) == 0 ? "guest init " + tail_lines(st, 1)
                                                              : "the guest stopped without a result");
  }
  o.job_exit = std::atoi(code.c_str());
  return o;
}

}  // namespace

const char *to_string(Accel a) {
  switch (a) {
  case Accel::Kvm: return "kvm";
  case Accel::Tcg: return "tcg";
  case Accel::Auto: break;
  }
  return "auto";
}

Accel accel_from_name(const std::string &name) {
  return name == "kvm" ? Accel::Kvm : name == "tcg" ? Accel::Tcg : Accel::Auto;
}

AccelChoice choose_accel(Accel requested, const std::string &dev_kvm, const std::string &cpuinfo) {
  if (requested == Accel::Tcg) return {Accel::Tcg, "TCG requested"};
  if (requested == Accel::Kvm) return {Accel::Kvm, "KVM requested"};
  int fd = open(dev_kvm.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return {Accel::Tcg, dev_kvm + ": " + std::strerror(errno)};
  close(fd);
  std::string info = read_text(cpuinfo);
  bool hw = info.find(" vmx") != std::string::npos || info.find(" svm") != std::string::npos;
  if (!hw) return {Accel::Tcg, dev_kvm + " exists but the CPU has no vmx/svm: it cannot run a stock kernel"};
  return {Accel::Kvm, dev_kvm + " usable"};
}

std::string kernel_cmdline(const VmConfig &c) {
  // quiet + loglevel: less console to emulate; cryptomgr.notests skips self-tests;
  // panic=-1 turns a panic into a reboot, which -no-reboot turns into qemu exiting.
  // no_timer_check: the IO-APIC timer check counts ticks over a busy-wait, and an emulated
  // CPU on a loaded host misses them; the 6.12 guest of a CI run (2026-12-06, beside the
  // sanitizer step) panicked in setup_IO_APIC, where that check's panic is.
  std::string s = "console=ttyS0 quiet loglevel=3 cryptomgr.notests panic=-1 mitigations=off no_timer_check";
  for (const auto &kv : c.kernel_env) s += " " + kv;
  return s;
}

std::vector<std::string> qemu_command(const VmConfig &c) {
  bool kvm = c.accel == Accel::Kvm;
  return {c.qemu,
          "-nodefaults",
          "-no-user-config",
          "-display",
          "none",
          "-no-reboot",
          "-bios",
          c.bios,
          "-accel",
          kvm ? "kvm" : "tcg,thread=multi",
          "-cpu",
          kvm ? "host" : "qemu64",
          "-smp",
          std::to_string(c.cpus),
          "-m",
          std::to_string(c.memory_mb),
          "-kernel",
          c.kernel_image,
          "-initrd",
          c.initramfs,
          "-append",
          kernel_cmdline(c),
          "-serial",
          "file:" + c.console_log,
          "-virtfs",
          std::string("local,path=/,mount_tag=") + kHostRootTag + ",security_model=none,readonly=on,multidevs=remap",
          "-virtfs",
          "local,path=" + c.share_dir + ",mount_tag=" + kShareTag + ",security_model=none,multidevs=remap"};
}

VmOutcome run_vm(const VmConfig &c, const VmWatch &w) {
  using Clock = std::chrono::steady_clock;
  using K = VmOutcome::Kind;
  VmOutcome o;
  std::string qemu_log = c.console_log + ".qemu";
  int log_fd = open(qemu_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  SpawnOptions so;
  so.stdout_fd = log_fd;
  so.stderr_fd = log_fd;
  so.new_process_group = true;
  auto start = Clock::now();
  pid_t pid = spawn_process(qemu_command(c), so);
  if (log_fd >= 0) close(log_fd);
  if (pid < 0) {
    o.kind = pid == -ENOENT ? K::QemuMissing : K::QemuFailed;
    o.message = pid == -ENOENT ? c.qemu + " not found: install the qemu-system-x86 package"
                               : c.qemu + ": " + std::strerror(-pid);
    return o;
  }
  GroupReaper reaper{pid};  // qemu dies on every way out of here, an exception included
  auto since = [&](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  const std::string status = c.share_dir + "/" + kStatusFile, out = c.share_dir + "/" + kStdoutFile;
  size_t streamed = 0;
  auto stream = [&] {
    if (!w.on_stdout) return;
    std::string more = read_from(out, streamed);
    streamed += more.size();
    if (!more.empty()) w.on_stdout(more);
  };
  bool up = false;
  Clock::time_point up_at;
  int wstatus = 0;
  std::optional<K> killed;
  while (true) {
    pid_t r = waitpid(pid, &wstatus, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      reaper.release();  // reaped (or not ours to wait for)
      break;
    }
    if (!up && read_text(status).rfind("up", 0) == 0) {
      up = true;
      up_at = Clock::now();
      o.boot_s = since(start);
    }
    if (up) stream();
    if (!killed) {
      if (w.stop && w.stop->load()) killed = K::Interrupted;
      else if (!up && w.boot_timeout_s > 0 && since(start) > w.boot_timeout_s) killed = K::BootTimeout;
      else if (up && w.job_timeout_s > 0 && since(up_at) > w.job_timeout_s) killed = K::JobTimeout;
      if (killed) kill_process_group(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stream();
  o.total_s = since(start);
  o.job_stderr = read_text(c.share_dir + "/" + kStderrFile);
  return ended(std::move(o), c, w, killed, wstatus);
}

}  // namespace bpfbench::vm
