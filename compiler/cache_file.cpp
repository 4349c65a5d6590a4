#include "compiler/cache_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/BLAKE3.h>

#include "compiler/input_file.hpp"

namespace bpfbench {

namespace {

// A file: the kind's magic (8 bytes), the key (64 hex chars), the BLAKE3 hash of the
// payload (32 bytes), the payload's size (u64 little endian), the payload. BLAKE3, not
// SHA-256: a precompiled vmlinux.h is ~19 MiB, which LLVM's SHA-256 took ~150 ms to
// check on every run here, BLAKE3 ~5 ms.
constexpr size_t kMagicLen = 8, kKeyLen = 64, kHashLen = 32;
constexpr size_t kHeaderLen = kMagicLen + kKeyLen + kHashLen + 8;

std::array<uint8_t, kHashLen> payload_hash(std::string_view payload) {
  return llvm::BLAKE3::hash<kHashLen>(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(payload.data()), payload.size()));
}

std::string header_for(const CacheFileKind &kind, const std::string &key, std::string_view payload) {
  std::string h(kind.magic);
  h += key;
  auto hash = payload_hash(payload);
  h.append(reinterpret_cast<const char *>(hash.data()), hash.size());
  uint64_t n = payload.size();
  for (int i = 0; i < 8; ++i) h.push_back(static_cast<char>(n >> (8 * i)));
  return h;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::string cache_file_path(const std::string &dir, const CacheFileKind &kind, const std::string &key) {
  return dir + "/" + key + std::string(kind.ext);
}

CacheFileLookup load_cache_file(const std::string &dir, const CacheFileKind &kind, const std::string &key) {
  CacheFileLookup r;
  const std::string path = cache_file_path(dir, kind, key);
  if (struct stat st{}; ::stat(path.c_str(), &st) != 0 && errno == ENOENT) return r;
  auto bad = [&](const std::string &reason) {
    r.problem = path + ": " + reason;
    return r;
  };
  std::string why;
  auto in = read_input_file(path, kHeaderLen + kind.max_payload, why);
  if (!in) return bad(why);
  const std::string_view bytes = in->data;
  const std::string what(kind.what);
  if (bytes.size() < kHeaderLen || bytes.substr(0, kMagicLen) != kind.magic) return bad("not a bpfbench cache file");
  if (bytes.substr(kMagicLen, kKeyLen) != key)
    return bad("holds the " + what + " of " + std::string(kind.owner) + " (its key differs)");
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= uint64_t{static_cast<uint8_t>(bytes[kHeaderLen - 8 + i])} << (8 * i);
  if (size != bytes.size() - kHeaderLen) return bad("truncated or padded (the " + what + "'s size differs)");
  auto hash = payload_hash(bytes.substr(kHeaderLen));
  if (std::memcmp(hash.data(), bytes.data() + kMagicLen + kKeyLen, kHashLen) != 0)
    return bad("corrupted (the " + what + "'s hash differs)");
  in->data.erase(0, kHeaderLen);  // in place: a payload may be tens of MiB
  r.payload = std::move(in->data);
  return r;
}

std::string store_cache_file(const std::string &dir, const CacheFileKind &kind, const std::string &key,
                             std::string_view payload) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  // The temp file lives in the cache dir so rename() is atomic: readers see either no
  // file or a complete one, even with concurrent bpfbench runs.
  const std::string path = cache_file_path(dir, kind, key);
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return "cannot write in " + dir + ": " + std::strerror(errno);
  bool ok = write_all(fd, header_for(kind, key, payload)) && write_all(fd, payload);
  ok = (::fchmod(fd, 0644) == 0) && ok;
  ok = (::close(fd) == 0) && ok;
  if (ok) ok = ::rename(tmp.c_str(), path.c_str()) == 0;
  if (ok) return "";
  std::string why = "cannot write " + path + ": " + std::strerror(errno);
  ::unlink(tmp.c_str());
  return why;
}

}  // namespace bpfbench
