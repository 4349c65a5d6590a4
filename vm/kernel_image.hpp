// Kernel images: decompressing a bzImage into the vmlinux qemu boots fast, and reading the
// release string out of either form.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "util/error.hpp"

namespace bpfbench::vm {

// Decompresses `path` from byte `offset` on with the tool its suffix/format names
// ("xz", "zstd", "gzip", "bzip2", "lzma", "lz4"; "" = not compressed, read as is).
// Trailing garbage after the stream is tolerated (a bzImage payload is followed by code).
Result<std::string> decompress_file(const std::string &path, const std::string &format, off_t offset);

// "xz" for foo.ko.xz, "zstd" for .zst, "gzip" for .gz, "" otherwise.
std::string compression_of(const std::string &path);

// True when `data` starts with the ELF magic.
bool is_elf(const std::string &data);

// Extracts the uncompressed ELF vmlinux from a bzImage (the method of the kernel's
// scripts/extract-vmlinux: try every compression magic until one decompresses to an ELF)
// and writes it to `out_path` atomically. Booting it through qboot skips the in-guest
// decompression that costs ~6 s under TCG.
Result<void> extract_vmlinux(const std::string &bzimage, const std::string &out_path);

// The release ("6.1.0-57-amd64") of a bzImage (setup header) or an ELF vmlinux
// ("Linux version …" banner); "" when neither is found.
std::string kernel_release_of(const std::string &image_path);

}  // namespace bpfbench::vm
