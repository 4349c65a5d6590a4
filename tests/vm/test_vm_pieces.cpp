// The vm/ pieces alone: cpio, modules, kernel images, apt parsing, qemu command line,
// job hand-off, labels. No qemu, no network.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/process_owner.hpp"

#include <chrono>

#include "tests/vm/vm_test_support.hpp"
#include "vm/cpio.hpp"
#include "vm/guest_probe.hpp"
#include "vm/guest_run.hpp"
#include "vm/kernel_cache.hpp"
#include "vm/kernel_image.hpp"
#include "vm/kmod.hpp"
#include "vm/labels.hpp"
#include "vm/qemu.hpp"
#include "vm/work_dir.hpp"

using namespace bpfbench;
using namespace bpfbench::vm;
using bpfbench::test::ScopedEnv;
using bpfbench::test::TempDir;

TEST_CASE("cpio newc archive round-trips files, links and devices", "[vm-unit]") {
  CpioWriter w;
  w.add_dir("bin");
  w.add_file("bin/busybox",
             std::string("\x7f"
                         "ELF"
                         "abc",
                         7),
             0755);
  w.add_symlink("bin/sh", "busybox");
  w.add_char_device("dev/console", 5, 1);
  std::string a = w.finish();
  CHECK(a.size() % 4 == 0);
  CHECK(a.rfind("070701", 0) == 0);
  CHECK(a.find("TRAILER!!!") != std::string::npos);
  auto r = read_cpio(a);
  REQUIRE(r);
  auto &e = *r;
  REQUIRE(e.size() == 4);
  CHECK(e[0].path == "bin");
  CHECK(S_ISDIR(e[0].mode));
  CHECK(e[1].data == std::string("\x7f"
                                 "ELF"
                                 "abc",
                                 7));
  CHECK((e[1].mode & 0777) == 0755);
  CHECK(S_ISLNK(e[2].mode));
  CHECK(e[2].data == "busybox");
  CHECK(S_ISCHR(e[3].mode));
  CHECK(e[3].rdev_major == 5);
  CHECK(e[3].rdev_minor == 1);
  auto bad = read_cpio(a.substr(0, 50));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "cpio at byte 0: truncated header");
}

TEST_CASE("modinfo depends are read from the ELF .modinfo section", "[vm-unit]") {
  auto deps = modinfo_depends(test::fake_module("9p", "9pnet,netfs,fscache"));
  REQUIRE(deps);
  CHECK(*deps == std::vector<std::string>{"9pnet", "netfs", "fscache"});
  CHECK(modinfo_depends(test::fake_module("virtio", ""))->empty());
  CHECK_FALSE(modinfo_depends("not an elf"));
  CHECK(normalize_module_name("9pnet-virtio") == "9pnet_virtio");
}

TEST_CASE("modules are ordered after their dependencies, built-in ones are skipped", "[vm-unit]") {
  TempDir t;
  t.write("kernel/fs/9p/9p.ko", test::fake_module("9p", "9pnet,netfs"));
  t.write("kernel/net/9p/9pnet.ko", test::fake_module("9pnet", ""));
  t.write("kernel/net/9p/9pnet_virtio.ko", test::fake_module("9pnet_virtio", "9pnet,virtio_ring"));
  t.write("kernel/fs/netfs/netfs.ko", test::fake_module("netfs", ""));
  t.write("modules.builtin", "kernel/drivers/virtio/virtio_ring.ko\nkernel/drivers/virtio/virtio_pci.ko\n");
  auto plan = plan_modules(t.path.string(), {"virtio_pci", "9pnet_virtio", "9p"});
  INFO((plan ? std::string() : plan.error().message));
  REQUIRE(plan);
  std::vector<std::string> names;
  for (const auto &m : plan->load_order) names.push_back(m.name);
  CHECK(names == std::vector<std::string>{"9pnet", "9pnet_virtio", "netfs", "9p"});
  CHECK(plan->builtin == std::vector<std::string>{"virtio_pci", "virtio_ring"});
  auto missing = plan_modules(t.path.string(), {"overlay"});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("overlay") != std::string::npos);
}

TEST_CASE("xz-compressed modules are decompressed", "[vm-unit]") {
  TempDir t;
  std::string ko = t.write("kernel/fs/overlayfs/overlay.ko", test::fake_module("overlay", ""));
  ProcResult r = run_command({"xz", ko});
  if (!r.started) {
    WARN("skipped: xz not installed");
    return;
  }
  auto plan = plan_modules(t.path.string(), {"overlay"});
  INFO((plan ? std::string() : plan.error().message));
  REQUIRE(plan);
  REQUIRE(plan->load_order.size() == 1);
  CHECK(plan->load_order[0].path.ends_with(".ko.xz"));
  CHECK(is_elf(plan->load_order[0].data));
}

TEST_CASE("kernel release comes from a bzImage header or a vmlinux banner", "[vm-unit]") {
  TempDir t;
  std::string bz(0x400, '\0');
  bz.replace(0x202, 4, "HdrS");
  bz[0x20e] = 0x00;  // kernel_version = 0x100 → string at 0x300
  bz[0x20f] = 0x01;
  bz.replace(0x300, 40, "6.1.0-57-amd64 (debian-kernel@lists) #1 ");
  CHECK(kernel_release_of(t.write("bzImage", bz)) == "6.1.0-57-amd64");
  std::string elf = "\x7f"
                    "ELF....Linux version %s (%s)....Linux version 6.12.9-custom (me@host) #3 SMP";
  CHECK(kernel_release_of(t.write("vmlinux", elf)) == "6.12.9-custom");
  CHECK(kernel_release_of(t.write("junk", "nothing here")).empty());
}

TEST_CASE("a bzImage payload is extracted to an ELF vmlinux", "[vm-unit]") {
  TempDir t;
  std::string payload = t.write("payload", "\x7f"
                                           "ELF fake kernel body");
  if (!run_command({"xz", "-k", payload}).ok()) {
    WARN("skipped: xz not installed");
    return;
  }
  std::string img = "setup code " + test::read_text(payload + ".xz") + " trailing code";
  std::string bz = t.write("bzImage", img);
  auto ok = extract_vmlinux(bz, (t.path / "vmlinux").string());
  INFO((ok ? std::string() : ok.error().message));
  REQUIRE(ok);
  CHECK(test::read_text((t.path / "vmlinux").string()) == "\x7f"
                                                          "ELF fake kernel body");
  auto bad = extract_vmlinux(t.write("plain", "no kernel"), (t.path / "v2").string());
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("no compressed ELF kernel") != std::string::npos);
}

TEST_CASE("apt-cache depends output names the concrete kernel package", "[vm-unit]") {
  std::string out = "linux-image-amd64\n  Depends: linux-image-6.1.0-57-amd64\n";
  CHECK(parse_apt_depends(out) == "linux-image-6.1.0-57-amd64");
  CHECK(parse_apt_depends("linux-image-6.12-amd64\n  Depends: foo\n  Depends: linux-image-6.12.117+deb12-amd64\n") ==
        "linux-image-6.12.117+deb12-amd64");
  CHECK(parse_apt_depends("W: no package\n").empty());
}

TEST_CASE("kernel names that are neither known nor paths are refused with the choices", "[vm-unit]") {
  TempDir t;
  KernelCache cache(t.path.string());
  // The refusal of `name` ("" when it resolved).
  auto refusal = [&](const std::string &name) {
    auto k = cache.resolve(name, false);
    return k ? std::string() : k.error().message;
  };
  std::string err = refusal("5.10");
  CHECK(err.find("unknown kernel '5.10'") != std::string::npos);
  CHECK(err.find("6.1, 6.12") != std::string::npos);
  CHECK(refusal("6.1").find("not in the cache") != std::string::npos);
  CHECK(refusal("/no/such/vmlinux") == "/no/such/vmlinux: not a kernel image: No such file or directory");
  // Said for what it is, not "does not exist"; and never read (it would never end).
  CHECK(refusal("/dev/zero") == "/dev/zero: not a kernel image: is a character device, not a regular file");
  CHECK(cache.cached().empty());
}

TEST_CASE("a kernel given by path finds its modules beside it", "[vm-unit]") {
  TempDir t;
  std::string elf = "\x7f"
                    "ELF....Linux version 6.9.0-test (me@host) #1";
  t.write("boot/vmlinux-6.9.0-test", elf);
  std::filesystem::create_directories(t.path / "lib/modules/6.9.0-test");
  KernelCache cache((t.path / "cache").string());
  auto k = cache.resolve(t.path.string(), false);
  INFO((k ? "" : k.error().message));
  REQUIRE(k);
  CHECK(k->release == "6.9.0-test");
  CHECK(k->modules_dir == (t.path / "lib/modules/6.9.0-test").string());
  CHECK(k->image == (t.path / "boot/vmlinux-6.9.0-test").string());
}

TEST_CASE("the qemu command line boots the vmlinux through qboot with both 9p shares", "[vm-unit]") {
  VmConfig c;
  c.kernel_image = "/k/vmlinux";
  c.initramfs = "/k/initramfs.cpio";
  c.share_dir = "/tmp/share";
  c.console_log = "/tmp/console.log";
  c.kernel_env = {"BPFBENCH_VM_KERNEL=6.1.0-57-amd64"};
  auto cmd = qemu_command(c);
  auto has = [&](const std::string &a, const std::string &b) {
    for (size_t i = 0; i + 1 < cmd.size(); ++i)
      if (cmd[i] == a && cmd[i + 1] == b) return true;
    return false;
  };
  CHECK(has("-bios", "/usr/share/qemu/qboot.rom"));
  CHECK(has("-accel", "tcg,thread=multi"));
  CHECK(has("-cpu", "qemu64"));
  CHECK(has("-kernel", "/k/vmlinux"));
  CHECK(has("-serial", "file:/tmp/console.log"));
  CHECK(has("-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"));
  CHECK(has("-virtfs", "local,path=/tmp/share,mount_tag=bbresults,security_model=none,multidevs=remap"));
  std::string append = kernel_cmdline(c);
  CHECK(append.find("console=ttyS0") != std::string::npos);
  CHECK(append.find("acpi=off") == std::string::npos);  // a 4 ms tick otherwise
  CHECK(append.find(" no_timer_check") != std::string::npos);  // a slow TCG boot fails the timer check
  CHECK(append.ends_with(" BPFBENCH_VM_KERNEL=6.1.0-57-amd64"));
  c.accel = Accel::Kvm;
  cmd = qemu_command(c);
  CHECK(has("-accel", "kvm"));
  CHECK(has("-cpu", "host"));
}

TEST_CASE("KVM is chosen only when /dev/kvm opens and the CPU virtualizes", "[vm-unit]") {
  TempDir t;
  std::string kvm = t.write("kvm", ""), with = t.write("cpu1", "flags : fpu vmx sse\n"),
              without = t.write("cpu2", "flags : fpu sse\n");
  CHECK(choose_accel(Accel::Auto, kvm, with).accel == Accel::Kvm);
  AccelChoice c = choose_accel(Accel::Auto, kvm, without);
  CHECK(c.accel == Accel::Tcg);
  CHECK(c.why.find("no vmx/svm") != std::string::npos);
  CHECK(choose_accel(Accel::Auto, (t.path / "none").string(), with).accel == Accel::Tcg);
  CHECK(choose_accel(Accel::Tcg, kvm, with).accel == Accel::Tcg);
  CHECK(choose_accel(Accel::Kvm, (t.path / "none").string(), without).accel == Accel::Kvm);
}

TEST_CASE("host-only options are stripped and output files redirected to the share", "[vm-unit]") {
  std::vector<std::string> argv = {"/bin/bpfbench", "run",        "--kernel", "6.1", "x.bdsl",         "--accel=tcg",
                                   "--json",        "out/r.json", "--csv=-",  "-q",  "--boot-timeout", "30"};
  auto g = strip_host_options(argv);
  CHECK(g == std::vector<std::string>{"/bin/bpfbench", "run", "x.bdsl", "--json", "out/r.json", "--csv=-", "-q"});
  auto files = redirect_outputs(g, "/home/u");
  REQUIRE(files.size() == 1);
  CHECK(files[0].host_path == "/home/u/out/r.json");
  CHECK(g[4] == "/run/bpfbench-vm/out/0-r.json");
  CHECK(g[5] == "--csv=-");
  std::vector<std::string> eq = {"b", "run", "--json=/abs/r.json"};
  files = redirect_outputs(eq, "/x");
  REQUIRE(files.size() == 1);
  CHECK(files[0].host_path == "/abs/r.json");
  CHECK(eq[2] == "--json=/run/bpfbench-vm/out/0-r.json");
  std::vector<std::string> flag = {"b", "probe", "--json"};
  CHECK(redirect_outputs(flag, "/x").empty());
}

TEST_CASE("the job script runs the exact argv in the given folder", "[vm-unit]") {
  TempDir t;
  std::string script = job_script({"printf", "%s|", "a b", "it's", "$HOME"}, t.path.string());
  std::string path = t.write("job.sh", script + "pwd\n");
  ProcResult r = run_command({"/bin/sh", path});
  REQUIRE(r.ok());
  CHECK(r.out == "a b|it's|$HOME|");  // exec replaced the shell: no pwd
  CHECK(shell_quote("x'y") == "'x'\\''y'");
  // The host's file settings are exported as given, whatever they hold.
  script = job_script({"sh", "-c", "printf '%s|' \"$XDG_CACHE_HOME\" \"$HOME\""}, t.path.string(),
                      {"XDG_CACHE_HOME=/c a'$(x)"});
  r = run_command({"/bin/sh", t.write("env.sh", script)});
  REQUIRE(r.ok());
  CHECK(r.out == "/c a'$(x)|/root|");
}

TEST_CASE("the guest gets the host's cache and template folders, nothing else of its environment", "[vm-unit]") {
  ScopedEnv cache("XDG_CACHE_HOME", "/tmp/bb cache"), tmpl("BPFBENCH_TEMPLATE_PATH", ""),
      btf("BPFBENCH_VMLINUX_BTF", "/host/btf");
  CHECK(host_file_env() == std::vector<std::string>{"XDG_CACHE_HOME=/tmp/bb cache"});
  ScopedEnv tmpl2("BPFBENCH_TEMPLATE_PATH", "/a:/b");
  CHECK(host_file_env() == std::vector<std::string>{"XDG_CACHE_HOME=/tmp/bb cache", "BPFBENCH_TEMPLATE_PATH=/a:/b"});
}

TEST_CASE("text output from a guest is labelled with kernel and emulation", "[vm-unit]") {
  KernelSpec k;
  k.release = "6.1.0-57-amd64";
  TextLabeler l(k, Accel::Tcg);
  std::string out = l.feed("Iter   0 ( 12.3us): hits 1.0M/s\nSummary: hits 1.000 ± 0.0");
  CHECK(out == "Iter   0 ( 12.3us): hits 1.0M/s\n");
  out = l.feed("00M/s\n\n==== suite ====\nfentry   :  1.0 ± 0.1M/s\n\ndone\n");
  CHECK(out.find("Summary: hits 1.000 ± 0.000M/s  [6.1.0-57-amd64, emulated: timings not comparable]\n") == 0);
  CHECK(out.find("fentry   :  1.0 ± 0.1M/s  [6.1.0-57-amd64, emulated") != std::string::npos);
  CHECK(out.find("==== suite ====\n") != std::string::npos);
  CHECK(out.ends_with("\ndone\n"));
  CHECK(l.flush().empty());
  TextLabeler kvm(k, Accel::Kvm);
  CHECK(kvm.feed("Summary: x\n") == "Summary: x  [6.1.0-57-amd64, kvm]\n");
}

TEST_CASE("JSON results get a vm block", "[vm-unit]") {
  TempDir t;
  KernelSpec k;
  k.release = "6.12.117+deb12-amd64";
  std::string path = t.write("r.json", R"({"environment": {"kernel": "x"}, "results": []})");
  auto labelled = label_json_file(path, vm_info(k, Accel::Tcg));
  INFO((labelled ? "" : labelled.error().message));
  REQUIRE(labelled);
  auto j = nlohmann::json::parse(test::read_text(path));
  CHECK(j["vm"]["kernel"] == "6.12.117+deb12-amd64");
  CHECK(j["vm"]["emulated"] == true);
  CHECK(j["vm"]["note"] == kEmulatedNote);
  CHECK(j["environment"]["vm"]["accel"] == "tcg");
  const std::string bad = t.write("bad.json", "[1]");
  auto refused = label_json_file(bad, vm_info(k, Accel::Tcg));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == bad + ": not a JSON object; left unlabelled");
  CHECK(vm_info(k, Accel::Kvm).count("note") == 0);
}

TEST_CASE("a missing qemu is reported at once, not waited for", "[vm-unit]") {
  TempDir t;
  VmConfig c;
  c.qemu = "/nonexistent/qemu-system-x86_64";
  c.share_dir = t.path.string();
  c.console_log = (t.path / "console.log").string();
  VmOutcome o = run_vm(c, VmWatch{});
  CHECK(o.kind == VmOutcome::Kind::QemuMissing);
  CHECK(o.message.find("install the qemu-system-x86 package") != std::string::npos);
}

TEST_CASE("a spawned child dies with the thread that spawned it even by SIGKILL", "[vm-unit]") {
  // The orphan is reparented here (a subreaper), so its end can be seen and reaped.
  int previous = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &previous);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t middle = fork();
  if (middle == 0) {  // bpfbench's part: spawns a long sleep, tells its pid, dies outright
    close(fds[0]);
    pid_t sleeper = spawn_process({"sleep", "60"}, SpawnOptions{});
    (void)!write(fds[1], &sleeper, sizeof sleeper);
    raise(SIGKILL);
  }
  close(fds[1]);
  pid_t sleeper = -1;
  REQUIRE(read(fds[0], &sleeper, sizeof sleeper) == sizeof sleeper);
  close(fds[0]);
  waitpid(middle, nullptr, 0);
  REQUIRE(sleeper > 0);
  int status = 0;
  pid_t got = 0;
  for (int i = 0; i < 500 && (got = waitpid(sleeper, &status, WNOHANG)) == 0; ++i) usleep(10000);
  if (got == 0) {  // still running after 5 s: the bug; do not leave it behind
    kill(sleeper, SIGKILL);
    waitpid(sleeper, &status, 0);
  }
  prctl(PR_SET_CHILD_SUBREAPER, previous);
  CHECK(got == sleeper);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("work folders: the sweep removes those of ended runs and never a live or foreign one", "[vm-unit]") {
  TempDir t;
  const std::string parent = t.path.string();
  // A run killed outright: its folder stays, named with its stamp, its lock free.
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t killed = fork();
  if (killed == 0) {
    auto dir = WorkDir::create(parent);
    char ok = dir ? 1 : 0;
    (void)!write(fds[1], &ok, 1);
    raise(SIGKILL);
  }
  close(fds[1]);
  char ok = 0;
  REQUIRE(read(fds[0], &ok, 1) == 1);
  close(fds[0]);
  REQUIRE(ok == 1);
  waitpid(killed, nullptr, 0);
  auto made = WorkDir::create(parent);  // this process's, alive
  INFO((made ? "" : made.error().message));
  REQUIRE(made);
  std::unique_ptr<WorkDir> live = std::move(*made);
  CHECK(std::filesystem::path(live->path()).filename().string().rfind("bpfbench-vm-" + own_stamp() + "-", 0) == 0);
  CHECK((std::filesystem::status(live->path()).permissions() & std::filesystem::perms::all) ==
        std::filesystem::perms::owner_all);
  // Named like an ended run's but: locked by someone (a run in another pid namespace),
  // open to others, a symlink, or with no stamp.
  const std::string dead = std::to_string(getpid()) + "-1";  // our pid, another start time: ended
  for (const char *suffix : {"-locked", "-open", "-nostamp"})
    std::filesystem::create_directory(parent + "/bpfbench-vm-" + dead + suffix);
  std::filesystem::rename(parent + "/bpfbench-vm-" + dead + "-nostamp", parent + "/bpfbench-vm-XXXXXX");
  std::filesystem::permissions(parent + "/bpfbench-vm-" + dead + "-open", std::filesystem::perms::all);
  std::filesystem::permissions(parent + "/bpfbench-vm-" + dead + "-locked", std::filesystem::perms::owner_all);
  int lock = open((parent + "/bpfbench-vm-" + dead + "-locked/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(lock >= 0);
  REQUIRE(flock(lock, LOCK_EX) == 0);
  std::filesystem::create_directory(parent + "/elsewhere");
  std::filesystem::permissions(parent + "/elsewhere", std::filesystem::perms::owner_all);
  std::filesystem::create_directory_symlink(parent + "/elsewhere", parent + "/bpfbench-vm-" + dead + "-link");

  std::vector<std::string> removed = remove_ended_work_dirs(parent);
  close(lock);
  REQUIRE(removed.size() == 1);
  CHECK(removed[0].rfind(parent + "/bpfbench-vm-" + std::to_string(killed) + "-", 0) == 0);
  size_t left = 0;
  for (const auto &e : std::filesystem::directory_iterator(parent)) left += e.path().filename() != "elsewhere";
  CHECK(left == 5);  // live, locked, open, no stamp, the symlink
  CHECK(std::filesystem::exists(live->path() + "/lock"));
  const std::string live_path = live->path();
  live.reset();  // a run that ends removes its own
  CHECK_FALSE(std::filesystem::exists(live_path));
}

TEST_CASE("kernel files are read bounded: a FIFO, a deep or odd JSON is nothing, never waited on", "[vm-unit]") {
  TempDir t;
  const std::string deep = std::string(300'000, '[') + std::string(300'000, ']');
  // The cache: a FIFO as a kernel's bpfbench-kernel.json (an ifstream waited for a writer),
  // one nested 300,000 deep, one whose release is not a string (value() threw).
  std::filesystem::create_directories(t.path / "cache/a");
  REQUIRE(::mkfifo((t.path / "cache/a/bpfbench-kernel.json").c_str(), 0600) == 0);
  t.write("cache/b/bpfbench-kernel.json", "{\"release\": " + deep + "}");
  t.write("cache/c/bpfbench-kernel.json", "{\"release\": 5, \"image\": \"/etc/passwd\"}");
  auto start = std::chrono::steady_clock::now();
  CHECK(KernelCache((t.path / "cache").string()).cached().empty());
  // modules.builtin a FIFO: none built in, no wait.
  t.write("mods/kernel/net/9p/9pnet.ko", test::fake_module("9pnet", ""));
  REQUIRE(::mkfifo((t.path / "mods/modules.builtin").c_str(), 0600) == 0);
  auto plan = plan_modules((t.path / "mods").string(), {"9pnet"});
  INFO((plan ? std::string() : plan.error().message));
  REQUIRE(plan);
  CHECK(plan->builtin.empty());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  // A results file nested too deep is not labelled (the dump of it recursed).
  KernelSpec k;
  CHECK_FALSE(label_json_file(t.write("deep.json", "{\"a\": " + deep + "}"), vm_info(k, Accel::Tcg)));
}

// `kernels --probe` keeps each guest's probe rows in the kernel's folder; `kernels` reads
// them back without a boot. What it reads was written by an earlier run (or by anyone who
// could write there): anything but a JSON array is no probe.
TEST_CASE("guest probes are kept in the kernel's folder and read back bounded, anything else is none", "[vm-unit]") {
  TempDir t;
  KernelSpec k;
  k.dir = (t.path / "k").string();
  std::filesystem::create_directories(k.dir);
  CHECK(read_guest_probe(k).is_null());  // never probed
  const nlohmann::json rows = nlohmann::json::array(
      {{{"kind", "attach"}, {"name", "fentry"}, {"available", true}}, {{"kind", "prog"}, {"name", "xdp"}}});
  CHECK(write_guest_probe(k, rows));
  CHECK(read_guest_probe(k) == rows);
  t.write("k/probe.json", "{\"kind\": \"attach\"}");
  CHECK(read_guest_probe(k).is_null());  // not an array
  t.write("k/probe.json", "[1, 2");
  CHECK(read_guest_probe(k).is_null());  // not JSON
  std::filesystem::remove(t.path / "k/probe.json");
  REQUIRE(::mkfifo((t.path / "k/probe.json").c_str(), 0600) == 0);
  CHECK(read_guest_probe(k).is_null());  // a FIFO: not waited on
  // A folder that is gone: the write says why instead of losing the rows unseen.
  KernelSpec gone;
  gone.dir = (t.path / "missing").string();
  CHECK_FALSE(write_guest_probe(gone, rows));
}
