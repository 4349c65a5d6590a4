// One keyed file of bpfbench's cache: written whole (temp + rename) in a folder only we can
// change (util/safe_dir.hpp), read back only when it holds its key and the hash (BLAKE3)
// over that key and the payload matches. The object cache and the precompiled vmlinux.h
// cache are both made of these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace bpfbench {

// What a kind of cache file is: `<key><ext>` in the cache dir, starting with `magic`
// (8 bytes), its payload at most `max_payload` bytes. `what` and `owner` word the
// problems: "holds the <what> of <owner> (its key differs)".
struct CacheFileKind {
  std::string_view ext;    // ".o"
  std::string_view magic;  // 8 bytes
  uint64_t max_payload;
  std::string_view what;   // "object"
  std::string_view owner;  // "another program"
};

// A cache read: the payload, or nothing; `problem` says why a file that was there was not
// used ("<path>: truncated or padded (the object's size differs)").
struct CacheFileLookup {
  std::optional<std::string> payload;
  std::string problem;  // "" for a hit or a plain miss (no file)
  std::string refused;  // the folder may not be used: why (SafeDir::open_owned); a miss then
};

std::string cache_file_path(const std::string &dir, const CacheFileKind &kind, const std::string &key);

// The payload when the folder is one only we can change, the file is there, a regular file
// of ours (not a symlink; a FIFO or a device is never opened), in the kind's format, stored
// under this very key and the stored hash matches; else a miss (with `problem` unless it is
// absent, with `refused` when the folder was not used). A missing folder is a plain miss.
CacheFileLookup load_cache_file(const std::string &dir, const CacheFileKind &kind, const std::string &key);

// Writes atomically (a new file in `dir` made with O_EXCL | O_NOFOLLOW, renamed over the
// name; mode 0600); or why it failed ("cannot create /x/bpfbench: Read-only file system",
// "/tmp/c is owned by uid 65534, not by you (uid 0)"). Creates `dir` (0700) when missing;
// never writes in a folder SafeDir::open_owned refuses.
Result<void> store_cache_file(const std::string &dir, const CacheFileKind &kind, const std::string &key,
                              std::string_view payload);

}  // namespace bpfbench
