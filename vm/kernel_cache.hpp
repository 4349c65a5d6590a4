// Guest kernels: Debian's packaged kernels by name (downloaded once with apt-get download
// + dpkg -x into the cache, never installed into /boot) or any vmlinux/bzImage by path.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench::vm {

// A kernel ready to boot.
struct KernelSpec {
  std::string name;           // as asked: "6.1", a package name, or a path
  std::string release;        // "6.1.0-57-amd64" (uname -r in the guest)
  std::string package;        // "linux-image-6.1.0-57-amd64"; "" for a path
  std::string version;        // Debian version "6.1.192-3"; "" for a path
  std::string image;          // uncompressed ELF vmlinux to boot
  std::string modules_dir;    // lib/modules/<release>; "" = everything needed is built in
  std::string dir;            // this kernel's cache folder (initramfs, probe results)
  std::string label() const;  // "6.1.0-57-amd64 (Debian 6.1.192-3)"
};

// The names `--kernel` resolves through Debian's metapackages.
struct KnownKernel {
  std::string name;
  std::string metapackage;
};
const std::vector<KnownKernel> &known_kernels();

// $XDG_CACHE_HOME/bpfbench/kernels, else $HOME/.cache/bpfbench/kernels.
std::string default_cache_root();

// The concrete package a metapackage depends on, from `apt-cache depends` output
// ("  Depends: linux-image-6.1.0-57-amd64"); "" when none.
std::string parse_apt_depends(const std::string &apt_cache_output, const std::string &prefix = "linux-image-");

class KernelCache {
 public:
  explicit KernelCache(std::string root) : root_(std::move(root)) {}
  const std::string &root() const { return root_; }

  // A known name or package name: the cached kernel when there is one (no network),
  // else apt resolves, downloads and unpacks it (when `allow_download`). A path: a
  // vmlinux/bzImage file, or a folder holding boot/vmlinuz-* (a `dpkg -x` tree).
  // `modules_dir` overrides where a path's modules are. `progress` gets one-line notes.
  Result<KernelSpec> resolve(const std::string &name_or_path, bool allow_download, const std::string &modules_dir = "",
                             const std::function<void(const std::string &)> &progress = {}) const;

  // Every kernel unpacked in the cache, newest release first per name.
  std::vector<KernelSpec> cached() const;

 private:
  std::optional<KernelSpec> find_cached(const std::string &name) const;
  Result<KernelSpec> download(const std::string &name, const std::string &package,
                              const std::function<void(const std::string &)> &progress) const;
  Result<KernelSpec> from_path(const std::string &path, const std::string &modules_dir) const;
  std::string root_;
};

}  // namespace bpfbench::vm
