#include "compiler/object_cache.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <array>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>

#include "compiler/input_file.hpp"

namespace bpfbench {

namespace {

// Bumped when the cache file format or the meaning of a key changes.
// v2: a file holds a header with its key and the object's hash (load() checks both).
constexpr std::string_view kKeySalt = "bpfbench-object-cache-v2";

// `<key>.o`: kMagic, the key (64 hex chars), the SHA-256 of the object (32 bytes), the
// object's size (u64 little endian), the object.
constexpr std::string_view kMagic{"BPFBOBJ\0", 8};
constexpr size_t kKeyLen = 64, kHashLen = 32;
constexpr size_t kHeaderLen = kMagic.size() + kKeyLen + kHashLen + 8;
constexpr uint64_t kMaxObject = uint64_t{256} << 20;  // as compile_bpf accepts from clang

std::array<uint8_t, kHashLen> object_hash(const std::vector<uint8_t> &object) {
  return llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(object.data(), object.size()));
}

std::string header_for(const std::string &key, const std::vector<uint8_t> &object) {
  std::string h(kMagic);
  h += key;
  auto hash = object_hash(object);
  h.append(reinterpret_cast<const char *>(hash.data()), hash.size());
  uint64_t n = object.size();
  for (int i = 0; i < 8; ++i) h.push_back(static_cast<char>(n >> (8 * i)));
  return h;
}

void hash_field(llvm::SHA256 &h, std::string_view field) {
  uint64_t len = field.size();
  uint8_t len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<uint8_t>(len >> (8 * i));
  h.update(llvm::ArrayRef<uint8_t>(len_bytes, sizeof(len_bytes)));
  h.update(llvm::StringRef(field.data(), field.size()));
}

bool write_all(int fd, const uint8_t *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

std::string default_cache_dir() {
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/bpfbench";
  if (const char *home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/bpfbench";
  return "/tmp/bpfbench-cache-" + std::to_string(::getuid());
}

std::string object_cache_key(std::string_view c_source, std::string_view compiler_version,
                             const std::vector<std::string> &args, std::string_view virtual_name) {
  llvm::SHA256 h;
  hash_field(h, kKeySalt);
  hash_field(h, c_source);
  hash_field(h, compiler_version);
  hash_field(h, std::to_string(args.size()));
  for (const auto &a : args) hash_field(h, a);
  hash_field(h, virtual_name);
  auto digest = h.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()),
                     /*LowerCase=*/true);
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

std::string ObjectCache::path_for(const std::string &key) const { return dir_ + "/" + key + ".o"; }

CacheLookup ObjectCache::load(const std::string &key) const {
  CacheLookup r;
  // The one input opener: a FIFO, device or oversized file under a key is never read.
  if (struct stat st{}; ::stat(path_for(key).c_str(), &st) != 0 && errno == ENOENT) return r;
  auto bad = [&](const std::string &reason) {
    r.problem = path_for(key) + ": " + reason;
    return r;
  };
  std::string why;
  auto in = read_input_file(path_for(key), kHeaderLen + kMaxObject, why);
  if (!in) return bad(why);
  const std::vector<uint8_t> file(in->data.begin(), in->data.end());
  const std::string_view bytes(reinterpret_cast<const char *>(file.data()), file.size());
  if (bytes.size() < kHeaderLen || bytes.substr(0, kMagic.size()) != kMagic) return bad("not a bpfbench cache file");
  if (bytes.substr(kMagic.size(), kKeyLen) != key) return bad("holds the object of another program (its key differs)");
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= uint64_t{file[kHeaderLen - 8 + i]} << (8 * i);
  if (size != bytes.size() - kHeaderLen) return bad("truncated or padded (the object's size differs)");
  std::vector<uint8_t> object(file.begin() + kHeaderLen, file.end());
  auto hash = object_hash(object);
  if (std::memcmp(hash.data(), file.data() + kMagic.size() + kKeyLen, kHashLen) != 0)
    return bad("corrupted (the object's hash differs)");
  if (!is_bpf_elf(object)) return bad("not a BPF object");
  r.object = std::move(object);
  return r;
}

std::string ObjectCache::store(const std::string &key, const std::vector<uint8_t> &object) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return "cannot create " + dir_ + ": " + ec.message();
  // The temp file lives in the cache dir so rename() is atomic: readers see either no
  // file or a complete one, even with concurrent bpfbench runs.
  std::string tmp = path_for(key) + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return "cannot write in " + dir_ + ": " + std::strerror(errno);
  const std::string header = header_for(key, object);
  bool ok = write_all(fd, reinterpret_cast<const uint8_t *>(header.data()), header.size()) &&
            write_all(fd, object.data(), object.size());
  ok = (::fchmod(fd, 0644) == 0) && ok;
  ok = (::close(fd) == 0) && ok;
  if (ok) ok = ::rename(tmp.c_str(), path_for(key).c_str()) == 0;
  if (ok) return "";
  std::string why = "cannot write " + path_for(key) + ": " + std::strerror(errno);
  ::unlink(tmp.c_str());
  return why;
}

}  // namespace bpfbench
