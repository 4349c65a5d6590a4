// On-disk cache of compiled BPF objects, keyed by a hash of everything that shapes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "util/error.hpp"

namespace bpfbench {

// $XDG_CACHE_HOME/bpfbench, else $HOME/.cache/bpfbench, else /tmp/bpfbench-cache-<euid>.
// Used only when SafeDir::open_owned accepts it (util/safe_dir.hpp).
std::string default_cache_dir();

// Why the cache folder `dir` may not be used (another user's, writable by others, reached
// through a folder or symlink someone else can change: SafeDir::open_owned), or nothing
// (also when it does not exist yet: the first store makes it).
Result<> check_cache_dir(const std::string &dir);

// Hex SHA-256 over `fields`, each length-prefixed, so no two lists share an encoding.
std::string cache_key(const std::vector<std::string_view> &fields);

// The cache key of an object: over the C source, the compiler version, every compiler
// argument, the virtual file name and, for a program that includes vmlinux.h, the key of
// its precompiled header (which covers the kernel's BTF: compiler/bpf/vmlinux_pch.hpp).
std::string object_cache_key(std::string_view c_source, std::string_view compiler_version,
                             const std::vector<std::string> &args, std::string_view virtual_name,
                             std::string_view vmlinux_key = {});

// True when `bytes` is a complete 64-bit little-endian ELF for EM_BPF: header, section
// header table and every section's contents lie inside the buffer (catches truncation).
bool is_bpf_elf(const std::vector<uint8_t> &bytes);

// A cache read: the object, or nothing; `problem` says why a file that was there was
// not used ("<path>: holds the object of another program (its key differs)").
struct CacheLookup {
  std::optional<std::vector<uint8_t>> object;
  std::string problem;  // "" for a hit or a plain miss (no file)
  std::string refused;  // the folder may not be used: why (a miss, and nothing is stored)
};

// A directory of `<key>.o` files (util/cache_file.hpp), each holding its key and a
// hash over both, in a folder only we can change. Every failure is soft: a cache that
// cannot be read or written behaves like an empty one, it never fails a compile.
class ObjectCache {
 public:
  explicit ObjectCache(std::string dir) : dir_(std::move(dir)) {}

  // The cached object when the file is there, a regular file, in the cache format, stored
  // under this very key and its object matches the stored hash and is a BPF ELF; else a
  // miss (with `problem` unless the file is absent).
  CacheLookup load(const std::string &key) const;
  // Writes atomically (temp file in the same directory + rename); "" or why it failed
  // ("cannot create /x/bpfbench: Read-only file system").
  std::string store(const std::string &key, const std::vector<uint8_t> &object) const;

  std::string path_for(const std::string &key) const;
  const std::string &dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace bpfbench
