// What clang may read while compiling generated BPF C: regular .h files only, bounded.
#pragma once

#include <string>
#include <vector>

#include <llvm/ADT/IntrusiveRefCntPtr.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "util/error.hpp"

namespace bpfbench {

// Headers are the only files a compile opens (the C itself is in memory), and inline
// `code` blocks may `#include` or `#embed` any path: clang's messages quote what it
// read ("unknown type name 'root'"), and a FIFO or a device would block or fill memory.
// So the real file system behind clang opens a path only when it is a regular file of at
// most kMaxHeaderBytes whose name ends in ".h", as written and once symlinks are
// resolved. Each refusal is recorded in `refusals` ("'/dev/zero' is a character
// device, not a regular file"); clang then reports the include as not found.
inline constexpr uint64_t kMaxHeaderBytes = uint64_t{64} << 20;  // vmlinux.h is ~3-10 MiB

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> checked_header_fs(std::vector<std::string> &refusals);

// Nothing when that file system would open `path`, else why not (the text of a refusal).
Result<> check_header(const std::string &path);

// A file clang reads from memory, not from disk (the generated vmlinux.h and its PCH).
struct InMemoryFile {
  std::string path;         // absolute
  const std::string *text;  // outlives the compile; not copied
};

// checked_header_fs with `files` over it: their paths (and folders) exist only in memory
// and are served from there; every other path goes to the checked file system below.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> compile_fs(std::vector<std::string> &refusals,
                                                           const std::vector<InMemoryFile> &files);

}  // namespace bpfbench
