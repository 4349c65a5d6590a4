#include "util/cache_file.hpp"

#include <array>
#include <cstring>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/BLAKE3.h>

#include "util/safe_dir.hpp"

namespace bpfbench {

namespace {

// A file: the kind's magic (8 bytes), the key (64 hex chars), a BLAKE3 hash (32 bytes),
// the payload's size (u64 little endian), the payload. The hash covers the magic, the key,
// the size and the payload, so a file whose key was edited to another name's fails it.
// BLAKE3, not SHA-256: a precompiled vmlinux.h is ~19 MiB, which LLVM's SHA-256 took
// ~150 ms to check on every run here, BLAKE3 ~5 ms.
constexpr size_t kMagicLen = 8, kKeyLen = 64, kHashLen = 32;
constexpr size_t kHeaderLen = kMagicLen + kKeyLen + kHashLen + 8;

std::string size_bytes(uint64_t n) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(n >> (8 * i)));
  return s;
}

std::array<uint8_t, kHashLen> file_hash(std::string_view magic, std::string_view key, std::string_view size,
                                        std::string_view payload) {
  llvm::BLAKE3 h;
  for (std::string_view part : {magic, key, size, payload}) h.update(llvm::StringRef(part.data(), part.size()));
  return h.final<kHashLen>();
}

std::string header_for(const CacheFileKind &kind, const std::string &key, std::string_view payload) {
  const std::string size = size_bytes(payload.size());
  std::string h(kind.magic);
  h += key;
  auto hash = file_hash(kind.magic, key, size, payload);
  h.append(reinterpret_cast<const char *>(hash.data()), hash.size());
  h += size;
  return h;
}

std::string file_name(const CacheFileKind &kind, const std::string &key) { return key + std::string(kind.ext); }

}  // namespace

std::string cache_file_path(const std::string &dir, const CacheFileKind &kind, const std::string &key) {
  return dir + "/" + file_name(kind, key);
}

CacheFileLookup load_cache_file(const std::string &dir, const CacheFileKind &kind, const std::string &key) {
  CacheFileLookup r;
  bool missing = false;
  auto folder = SafeDir::open_owned(dir, /*create=*/false, &missing);
  if (!folder) {
    if (!missing) r.refused = folder.error().message;
    return r;
  }
  const std::string path = cache_file_path(dir, kind, key);
  auto bad = [&](const std::string &reason) {
    r.problem = path + ": " + reason;
    return r;
  };
  auto read = folder->read(file_name(kind, key), kHeaderLen + kind.max_payload);
  if (!read) return bad(read.error().message);
  std::optional<std::string> &in = *read;
  if (!in) return r;
  const std::string_view bytes = *in;
  const std::string what(kind.what);
  if (bytes.size() < kHeaderLen || bytes.substr(0, kMagicLen) != kind.magic) return bad("not a bpfbench cache file");
  if (bytes.substr(kMagicLen, kKeyLen) != key)
    return bad("holds the " + what + " of " + std::string(kind.owner) + " (its key differs)");
  const std::string_view size = bytes.substr(kHeaderLen - 8, 8);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t{static_cast<uint8_t>(size[i])} << (8 * i);
  if (n != bytes.size() - kHeaderLen) return bad("truncated or padded (the " + what + "'s size differs)");
  auto hash = file_hash(kind.magic, key, size, bytes.substr(kHeaderLen));
  if (std::memcmp(hash.data(), bytes.data() + kMagicLen + kKeyLen, kHashLen) != 0)
    return bad("corrupted (the " + what + "'s hash differs)");  // or its key edited to this name
  // In place: a payload may be tens of MiB.
  in->erase(0, kHeaderLen);
  r.payload = std::move(in);
  return r;
}

Result<void> store_cache_file(const std::string &dir, const CacheFileKind &kind, const std::string &key,
                              std::string_view payload) {
  auto folder = SafeDir::open_owned(dir, /*create=*/true);
  if (!folder) return folder.error();
  // A new file beside the old name, renamed over it: readers see either no file or a
  // complete one, even with concurrent bpfbench runs.
  return folder->write(file_name(kind, key), {header_for(kind, key, payload), payload}, 0600);
}

}  // namespace bpfbench
