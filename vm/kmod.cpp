#include "vm/kmod.hpp"

#include <elf.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "util/input_file.hpp"
#include "vm/kernel_image.hpp"

namespace bpfbench::vm {

namespace fs = std::filesystem;

namespace {

// lib/modules/<rel>/kernel/.../name.ko[.xz|.zst|.gz] → name (normalized) → path.
std::map<std::string, std::string> index_modules(const std::string &dir) {
  std::map<std::string, std::string> index;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string file = it->path().filename().string();
    size_t ko = file.find(".ko");
    if (ko == std::string::npos) continue;
    std::string rest = file.substr(ko);
    if (rest != ".ko" && rest != ".ko.xz" && rest != ".ko.zst" && rest != ".ko.gz") continue;
    index.emplace(normalize_module_name(file.substr(0, ko)), it->path().string());
  }
  return index;
}

std::set<std::string> read_builtin(const std::string &dir) {
  std::set<std::string> names;
  // None (no file, or not a regular one): no module is built in.
  auto in = read_input_file(dir + "/modules.builtin", kMaxTextInputBytes);
  std::istringstream text(in ? std::move(in->data) : std::string());
  for (std::string line; std::getline(text, line);) {
    size_t slash = line.rfind('/');
    std::string file = line.substr(slash == std::string::npos ? 0 : slash + 1);
    if (size_t ko = file.find(".ko"); ko != std::string::npos) names.insert(normalize_module_name(file.substr(0, ko)));
  }
  return names;
}

}  // namespace

const std::vector<std::string> &guest_modules() {
  static const std::vector<std::string> m = {"virtio_pci", "9pnet_virtio", "9p", "overlay"};
  return m;
}

std::string normalize_module_name(std::string name) {
  for (char &c : name)
    if (c == '-') c = '_';
  return name;
}

std::optional<std::vector<std::string>> modinfo_depends(const std::string &elf) {
  if (elf.size() < sizeof(Elf64_Ehdr) || !is_elf(elf) || elf[EI_CLASS] != ELFCLASS64 || elf[EI_DATA] != ELFDATA2LSB)
    return std::nullopt;
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  auto section = [&](size_t i, Elf64_Shdr &sh) {
    size_t at = eh.e_shoff + i * sizeof(Elf64_Shdr);
    if (at + sizeof sh > elf.size()) return false;
    std::memcpy(&sh, elf.data() + at, sizeof sh);
    return sh.sh_type == SHT_NOBITS || sh.sh_offset + sh.sh_size <= elf.size();
  };
  Elf64_Shdr strtab;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !section(eh.e_shstrndx, strtab)) return std::nullopt;
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!section(i, sh) || sh.sh_name >= strtab.sh_size) return std::nullopt;
    if (std::strncmp(elf.data() + strtab.sh_offset + sh.sh_name, ".modinfo", strtab.sh_size - sh.sh_name) != 0)
      continue;
    // NUL-separated key=value strings; "depends=a,b" (empty when none).
    std::string info = elf.substr(sh.sh_offset, sh.sh_size);
    std::vector<std::string> deps;
    for (size_t pos = 0; pos < info.size();) {
      size_t end = info.find('\0', pos);
      if (end == std::string::npos) end = info.size();
      std::string kv = info.substr(pos, end - pos);
      if (kv.rfind("depends=", 0) == 0) {
        std::string list = kv.substr(8);
        for (size_t p = 0; p < list.size();) {
          size_t comma = list.find(',', p);
          if (comma == std::string::npos) comma = list.size();
          if (comma > p) deps.push_back(normalize_module_name(list.substr(p, comma - p)));
          p = comma + 1;
        }
      }
      pos = end + 1;
    }
    return deps;
  }
  return std::nullopt;
}

Result<ModulePlan> plan_modules(const std::string &modules_dir, const std::vector<std::string> &wanted) {
  auto index = index_modules(modules_dir);
  auto builtin = read_builtin(modules_dir);
  ModulePlan plan;
  std::set<std::string> done, visiting;
  std::string err;
  // Depth-first: a module is appended after everything it depends on.
  std::function<bool(const std::string &)> visit = [&](const std::string &raw) {
    std::string name = normalize_module_name(raw);
    if (done.count(name)) return true;
    if (visiting.count(name)) {
      err = "module dependency cycle at " + name;
      return false;
    }
    auto it = index.find(name);
    if (it == index.end()) {
      if (builtin.count(name)) {
        plan.builtin.push_back(name);
        done.insert(name);
        return true;
      }
      err = "module " + name + " is neither in " + modules_dir + " nor built into the kernel";
      return false;
    }
    visiting.insert(name);
    auto data = decompress_file(it->second, compression_of(it->second), 0);
    if (!data) {
      err = data.error().message;
      return false;
    }
    auto deps = modinfo_depends(*data);
    if (!deps) {
      err = it->second + ": not a kernel module (no .modinfo)";
      return false;
    }
    for (const auto &d : *deps)
      if (!visit(d)) return false;
    visiting.erase(name);
    done.insert(name);
    plan.load_order.push_back({name, it->second, std::move(*data)});
    return true;
  };
  for (const auto &w : wanted)
    if (!visit(w)) return Error(err);
  return plan;
}

}  // namespace bpfbench::vm
