#include "vm/kernel_cache.hpp"
#include "util/escape.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "util/input_file.hpp"
#include "util/json_input.hpp"
#include "vm/kernel_image.hpp"
#include "vm/process.hpp"

namespace bpfbench::vm {

namespace fs = std::filesystem;

namespace {

constexpr const char *kMetaFile = "bpfbench-kernel.json";

std::optional<KernelSpec> read_meta(const fs::path &dir) {
  JsonError bad;
  auto parsed = read_json_file((dir / kMetaFile).string(), kMaxTextInputBytes, bad);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  // Strings only: value() throws on any other type.
  auto text = [&](const char *key) {
    auto it = parsed->find(key);
    return it != parsed->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  KernelSpec k;
  k.name = text("name");
  k.release = text("release");
  k.package = text("package");
  k.version = text("version");
  k.image = text("image");
  k.modules_dir = text("modules_dir");
  k.dir = dir.string();
  std::error_code ec;
  if (k.release.empty() || !fs::is_regular_file(k.image, ec)) return std::nullopt;
  return k;
}

Result<void> write_meta(const KernelSpec &k) {
  nlohmann::json j = {{"name", k.name},       {"release", k.release}, {"package", k.package},
                      {"version", k.version}, {"image", k.image},     {"modules_dir", k.modules_dir}};
  std::ofstream out(fs::path(k.dir) / kMetaFile, std::ios::trunc);
  out << json_text(j, 2) << "\n";
  if (!out) return Error("cannot write " + (fs::path(k.dir) / kMetaFile).string());
  return {};
}

// "linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb" → "6.1.192-3" (apt escapes ':' as %3a).
std::string deb_version(const std::string &file) {
  size_t a = file.find('_'), b = file.rfind('_');
  if (a == std::string::npos || b <= a) return "";
  std::string v = file.substr(a + 1, b - a - 1);
  if (size_t p = v.find("%3a"); p != std::string::npos) v.replace(p, 3, ":");
  return v;
}

std::string only_subdir(const fs::path &dir) {
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec)) return e.path().filename().string();
  return "";
}

std::string first_vmlinuz(const fs::path &boot) {
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(boot, ec)) {
    std::string f = e.path().filename().string();
    if (f.rfind("vmlinuz-", 0) == 0 || f.rfind("vmlinux-", 0) == 0) return e.path().string();
  }
  return "";
}

RunOptions timed(double timeout_s, std::string cwd = "") {
  RunOptions o;
  o.timeout_s = timeout_s;
  o.cwd = std::move(cwd);
  return o;
}

void note(const std::function<void(const std::string &)> &progress, const std::string &msg) {
  if (progress) progress(msg);
}

}  // namespace

std::string KernelSpec::label() const {
  if (!version.empty()) return release + " (Debian " + version + ")";
  return release + " (" + image + ")";
}

const std::vector<KnownKernel> &known_kernels() {
  static const std::vector<KnownKernel> k = {{"6.1", "linux-image-amd64"}, {"6.12", "linux-image-6.12-amd64"}};
  return k;
}

std::string default_cache_root() {
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/bpfbench/kernels";
  const char *home = std::getenv("HOME");
  return std::string(home && *home ? home : "/root") + "/.cache/bpfbench/kernels";
}

std::string parse_apt_depends(const std::string &out, const std::string &prefix) {
  size_t pos = 0;
  while ((pos = out.find("Depends:", pos)) != std::string::npos) {
    pos += 8;
    size_t start = out.find_first_not_of(" \t", pos);
    size_t end = out.find_first_of(" \t\n", start);
    std::string pkg = out.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (pkg.rfind(prefix, 0) == 0) return pkg;
  }
  return "";
}

std::optional<KernelSpec> KernelCache::find_cached(const std::string &name) const {
  std::vector<KernelSpec> hits;
  for (auto &k : cached())
    if (k.name == name || k.package == name || k.release == name) hits.push_back(std::move(k));
  if (hits.empty()) return std::nullopt;
  return hits.front();
}

std::vector<KernelSpec> KernelCache::cached() const {
  std::vector<std::pair<fs::file_time_type, KernelSpec>> found;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(root_, ec)) {
    if (!e.is_directory(ec)) continue;
    if (auto k = read_meta(e.path())) found.emplace_back(fs::last_write_time(e.path() / kMetaFile, ec), std::move(*k));
  }
  // Known names in their table order, then the rest; newest download first within a name.
  auto rank = [](const KernelSpec &k) {
    const auto &kk = known_kernels();
    for (size_t i = 0; i < kk.size(); ++i)
      if (kk[i].name == k.name) return i;
    return kk.size();
  };
  std::sort(found.begin(), found.end(), [&](const auto &a, const auto &b) {
    if (rank(a.second) != rank(b.second)) return rank(a.second) < rank(b.second);
    if (a.second.name != b.second.name) return a.second.name < b.second.name;
    return a.first > b.first;
  });
  std::vector<KernelSpec> out;
  for (auto &f : found) out.push_back(std::move(f.second));
  return out;
}

Result<KernelSpec> KernelCache::resolve(const std::string &name, bool allow_download, const std::string &modules_dir,
                                        const std::function<void(const std::string &)> &progress) const {
  auto fail = [](const std::string &why) { return Result<KernelSpec>(Error(why)); };
  if (name.find('/') != std::string::npos) return from_path(name, modules_dir);
  if (auto k = find_cached(name)) return *k;
  std::string package = name;
  for (const auto &kk : known_kernels()) {
    if (kk.name != name) continue;
    if (!allow_download) return fail("kernel " + name + " is not in the cache " + root_);
    ProcResult r = run_command({"apt-cache", "depends", kk.metapackage}, timed(60));
    if (!r.started) return fail("cannot resolve kernel " + name + ": " + r.error + " (this needs Debian's apt)");
    package = parse_apt_depends(r.out);
    if (!r.ok() || package.empty())
      return fail("apt knows no " + kk.metapackage + " (kernel " + name + "): run `apt-get update` first" +
                  (r.err.empty() ? "" : "\n" + tail_lines(r.err, 3)));
  }
  if (package.rfind("linux-image-", 0) != 0) {
    std::string names;
    for (const auto &kk : known_kernels()) names += (names.empty() ? "" : ", ") + kk.name;
    return fail("unknown kernel '" + name + "': use " + names +
                ", a linux-image-* package name, or a path to a vmlinux/bzImage");
  }
  if (!allow_download) return fail("kernel " + name + " is not in the cache " + root_);
  return download(name, package, progress);
}

Result<KernelSpec> KernelCache::download(const std::string &name, const std::string &package,
                                         const std::function<void(const std::string &)> &progress) const {
  auto fail = [](const std::string &why) { return Result<KernelSpec>(Error(why)); };
  std::error_code ec;
  fs::path debs = fs::path(root_) / "debs";
  fs::create_directories(debs, ec);
  if (ec) return fail("cannot create " + debs.string() + ": " + ec.message());
  auto find_deb = [&]() -> std::string {
    std::string best;
    for (const auto &e : fs::directory_iterator(debs, ec)) {
      std::string f = e.path().filename().string();
      if (f.rfind(package + "_", 0) == 0 && f.ends_with(".deb") && f > best) best = f;
    }
    return best;
  };
  // The .deb stays cached: Debian drops old ABI numbers from its mirrors.
  std::string deb = find_deb();
  if (deb.empty()) {
    note(progress, "downloading " + package + " (apt-get download) into " + debs.string());
    ProcResult r = run_command({"apt-get", "download", package}, timed(900, debs.string()));
    if (!r.started) return fail("cannot download " + package + ": " + r.error);
    deb = find_deb();
    if (!r.ok() || deb.empty())
      return fail("apt-get download " + package + " failed (run `apt-get update`; this needs Debian's mirrors)\n" +
                  tail_lines(r.err, 4));
  }
  note(progress, "unpacking " + deb + " (dpkg -x)");
  fs::path tmp = fs::path(root_) / (".unpack-" + std::to_string(getpid()));
  fs::remove_all(tmp, ec);
  ProcResult x = run_command({"dpkg", "-x", (debs / deb).string(), tmp.string()}, timed(600));
  std::string release = only_subdir(tmp / "lib/modules");
  if (!x.ok() || release.empty()) {
    fs::remove_all(tmp, ec);
    return fail("dpkg -x " + deb + " failed: " + (x.started ? tail_lines(x.err, 3) : x.error));
  }
  fs::path dir = fs::path(root_) / release;
  fs::remove_all(dir, ec);
  fs::rename(tmp, dir, ec);
  if (ec) return fail("cannot move the unpacked kernel to " + dir.string() + ": " + ec.message());
  KernelSpec k;
  k.name = name;
  k.release = release;
  k.package = package;
  k.version = deb_version(deb);
  k.dir = dir.string();
  k.modules_dir = (dir / "lib/modules" / release).string();
  k.image = (dir / "vmlinux").string();
  if (auto r = extract_vmlinux((dir / "boot" / ("vmlinuz-" + release)).string(), k.image); !r) return r.error();
  BB_TRY(write_meta(k));
  return k;
}

Result<KernelSpec> KernelCache::from_path(const std::string &path, const std::string &modules_dir) const {
  auto fail = [](const std::string &why) { return Result<KernelSpec>(Error(why)); };
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  std::string image = p.string();
  fs::path base = p.parent_path();
  if (fs::is_directory(p, ec)) {  // a dpkg -x tree
    image = first_vmlinuz(p / "boot");
    base = p;
    if (image.empty()) return fail(path + ": no boot/vmlinuz-* in this folder");
  }
  if (auto ok = check_input_file(image); !ok) return fail(image + ": not a kernel image: " + ok.error().message);
  std::string release = kernel_release_of(image);
  if (release.empty()) return fail(image + ": not a Linux kernel image (no version string found)");
  KernelSpec k;
  k.name = path;
  k.release = release;
  k.modules_dir = modules_dir;
  if (k.modules_dir.empty()) {
    for (const fs::path &c : {base / "lib/modules" / release, base.parent_path() / "lib/modules" / release,
                              fs::path("/lib/modules") / release})
      if (fs::is_directory(c, ec)) {
        k.modules_dir = c.string();
        break;
      }
  }
  // Its own cache folder, keyed by the image path, for the vmlinux and the initramfs.
  k.dir =
      (fs::path(root_) / ("path-" + release + "-" + std::to_string(std::hash<std::string>{}(image) % 100000))).string();
  fs::create_directories(k.dir, ec);
  // Through the checked opener: a FIFO swapped in since the check above is refused, not waited on.
  auto in = open_input_stream(image, kMaxKernelImageBytes);
  char magic[4] = {};
  if (!in || in->read(magic, sizeof magic) != sizeof magic)
    return fail(image + ": not a kernel image: " + (in ? in->error() : in.error().message));
  if (is_elf(std::string(magic, 4))) {
    k.image = image;
  } else {
    k.image = k.dir + "/vmlinux";
    bool fresh = fs::exists(k.image, ec) && fs::last_write_time(k.image, ec) >= fs::last_write_time(image, ec);
    if (!fresh)
      if (auto r = extract_vmlinux(image, k.image); !r) return fail(r.error().message);
  }
  return k;
}

}  // namespace bpfbench::vm
