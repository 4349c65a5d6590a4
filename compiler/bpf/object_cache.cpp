#include "compiler/bpf/object_cache.hpp"

#include <elf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>

#include "util/cache_file.hpp"
#include "util/input_file.hpp"
#include "util/safe_dir.hpp"

namespace bpfbench {

namespace {

// Bumped when the cache file format or the meaning of a key changes.
// v2: a file holds a header with its key and the object's hash (load() checks both).
// v3: that hash is BLAKE3 (util/cache_file.hpp), not SHA-256.
// v4: the hash covers the key too (a v3 file would fail it: a new key is a plain miss).
constexpr std::string_view kObjectKeySalt = "bpfbench-object-cache-v4";

// `<key>.o`; objects as large as compile_bpf accepts from clang.
constexpr CacheFileKind kObjectFile{".o", {"BPFBOBJ\0", 8}, kMaxObjectInputBytes, "object", "another program"};

void hash_field(llvm::SHA256 &h, std::string_view field) {
  uint64_t len = field.size();
  uint8_t len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<uint8_t>(len >> (8 * i));
  h.update(llvm::ArrayRef<uint8_t>(len_bytes, sizeof(len_bytes)));
  h.update(llvm::StringRef(field.data(), field.size()));
}

}  // namespace

std::string default_cache_dir() {
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/bpfbench";
  if (const char *home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/bpfbench";
  return "/tmp/bpfbench-cache-" + std::to_string(::geteuid());
}

Result<> check_cache_dir(const std::string &dir) {
  bool missing = false;
  auto d = SafeDir::open_owned(dir, /*create=*/false, &missing);
  if (d || missing) return {};
  return d.error();
}

std::string cache_key(const std::vector<std::string_view> &fields) {
  llvm::SHA256 h;
  for (auto f : fields) hash_field(h, f);
  auto digest = h.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()),
                     /*LowerCase=*/true);
}

std::string object_cache_key(std::string_view c_source, std::string_view compiler_version,
                             const std::vector<std::string> &args, std::string_view virtual_name,
                             std::string_view vmlinux_key) {
  std::string nargs = std::to_string(args.size());
  std::vector<std::string_view> fields = {kObjectKeySalt, c_source, compiler_version, nargs};
  fields.insert(fields.end(), args.begin(), args.end());
  fields.push_back(virtual_name);
  // Only when a vmlinux.h is in: the keys of every other program stay as they were.
  if (!vmlinux_key.empty()) fields.insert(fields.end(), {"vmlinux.h", vmlinux_key});
  return cache_key(fields);
}

bool is_bpf_elf(const std::vector<uint8_t> &bytes) {
  if (bytes.size() < sizeof(Elf64_Ehdr)) return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof(eh));
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return false;
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) return false;
  if (eh.e_machine != EM_BPF || eh.e_shentsize != sizeof(Elf64_Shdr)) return false;
  uint64_t table_end = eh.e_shoff + uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr);
  if (eh.e_shnum == 0 || eh.e_shoff < sizeof(eh) || table_end > bytes.size()) return false;
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, bytes.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof(sh));
    if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL) continue;
    if (sh.sh_offset > bytes.size() || sh.sh_size > bytes.size() - sh.sh_offset) return false;
  }
  return true;
}

std::string ObjectCache::path_for(const std::string &key) const { return cache_file_path(dir_, kObjectFile, key); }

CacheLookup ObjectCache::load(const std::string &key) const {
  CacheLookup r;
  CacheFileLookup file = load_cache_file(dir_, kObjectFile, key);
  r.problem = std::move(file.problem);
  r.refused = std::move(file.refused);
  if (!file.payload) return r;
  std::vector<uint8_t> object(file.payload->begin(), file.payload->end());
  if (!is_bpf_elf(object)) {
    r.problem = path_for(key) + ": not a BPF object";
    return r;
  }
  r.object = std::move(object);
  return r;
}

std::string ObjectCache::store(const std::string &key, const std::vector<uint8_t> &object) const {
  auto stored = store_cache_file(dir_, kObjectFile, key,
                                 std::string_view(reinterpret_cast<const char *>(object.data()), object.size()));
  return stored ? std::string() : stored.error().message;
}

}  // namespace bpfbench
