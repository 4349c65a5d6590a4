// The initramfs builder: busybox and its links, the modules in load order, a valid /init.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <map>

#include "tests/vm/vm_test_support.hpp"
#include "vm/cpio.hpp"
#include "vm/initramfs.hpp"

using namespace bpfbench;
using namespace bpfbench::vm;
using bpfbench::test::TempDir;

namespace {

TempDir fake_modules_dir() {
  TempDir t;
  t.write("kernel/fs/9p/9p.ko", test::fake_module("9p", "9pnet"));
  t.write("kernel/net/9p/9pnet.ko", test::fake_module("9pnet", ""));
  t.write("kernel/net/9p/9pnet_virtio.ko", test::fake_module("9pnet_virtio", "9pnet"));
  t.write("kernel/fs/overlayfs/overlay.ko", test::fake_module("overlay", ""));
  t.write("modules.builtin", "kernel/drivers/virtio/virtio_pci.ko\n");
  return t;
}

}  // namespace

TEST_CASE("the init script is valid sh and follows the share protocol", "[vm-unit]") {
  std::string init = guest_init_script();
  TempDir t;
  std::string path = t.write("init", init);
  auto r = run_command({"/bin/sh", "-n", path});
  INFO(r.err);
  CHECK(r.ok());
  CHECK(init.find("mount -t 9p -o $P9,cache=loose,ro hostroot /mnt/lower") != std::string::npos);
  CHECK(init.find("lowerdir=/mnt/lower,upperdir=/mnt/rw/upper") != std::string::npos);
  CHECK(init.find("mount -t bpf bpf $R/sys/fs/bpf") != std::string::npos);
  CHECK(init.find("chroot $R /bin/sh /run/bpfbench-vm/job.sh") != std::string::npos);
  CHECK(init.find("poweroff -f") != std::string::npos);
}

TEST_CASE("a static busybox is told apart from a dynamic one", "[vm-unit]") {
  CHECK(is_static_elf(test::fake_module("m", "")));        // no program headers, so no interpreter
  CHECK_FALSE(is_static_elf(test::read_text("/bin/sh")));  // dash is dynamic on Debian
  CHECK_FALSE(is_static_elf("text"));
}

TEST_CASE("the initramfs holds busybox, its links, /init and the modules in order", "[vm-unit]") {
  if (!is_static_elf(test::read_text("/bin/busybox"))) {
    WARN("skipped: no static /bin/busybox (install busybox-static)");
    return;
  }
  TempDir mods = fake_modules_dir();
  auto info = build_initramfs(mods.path.string(), "/bin/busybox");
  INFO((info ? "" : info.error().message));
  REQUIRE(info);
  CHECK(info->modules == std::vector<std::string>{"9pnet", "9pnet_virtio", "9p", "overlay"});
  CHECK(info->builtin == std::vector<std::string>{"virtio_pci"});
  auto read = read_cpio(info->archive);
  REQUIRE(read);
  auto &entries = *read;
  std::map<std::string, CpioEntry> by_path;
  for (auto &e : entries) by_path[e.path] = e;
  REQUIRE(by_path.count("init"));
  CHECK((by_path["init"].mode & 0111) != 0);
  CHECK(by_path["init"].data == guest_init_script());
  CHECK(S_ISCHR(by_path["dev/console"].mode));
  CHECK(by_path["bin/busybox"].data.size() > 100000);
  for (const auto &a : busybox_applets()) {
    INFO(a);
    CHECK(by_path["bin/" + a].data == "busybox");
  }
  CHECK(by_path.count("modules/00-9pnet.ko"));
  CHECK(by_path.count("modules/03-overlay.ko"));
  auto refused = build_initramfs(mods.path.string(), "/bin/sh");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("busybox-static") != std::string::npos);
}
