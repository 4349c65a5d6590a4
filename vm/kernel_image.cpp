#include "vm/kernel_image.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "util/input_file.hpp"
#include "vm/process.hpp"

namespace bpfbench::vm {

namespace {

std::optional<std::string> read_all(const std::string &path) {
  auto in = read_input_file(path, kMaxKernelImageBytes);
  if (!in) return std::nullopt;
  return std::move(in->data);
}

struct Magic {
  const char *format;
  std::string bytes;
};

// Same table as extract-vmlinux; the order only matters for speed.
const std::array<Magic, 6> &magics() {
  static const std::array<Magic, 6> m = {{
      {"xz", std::string("\xfd\x37\x7a\x58\x5a\x00", 6)},
      {"zstd", std::string("\x28\xb5\x2f\xfd", 4)},
      {"gzip", std::string("\x1f\x8b\x08", 3)},
      {"lz4", std::string("\x02\x21\x4c\x18", 4)},
      {"bzip2", std::string("BZh", 3)},
      {"lzma", std::string("\x5d\x00\x00\x00", 4)},
  }};
  return m;
}

Result<void> write_atomically(const std::string &path, const std::string &data) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) return Error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Error("cannot rename " + tmp + " to " + path);
  }
  return {};
}

}  // namespace

std::string compression_of(const std::string &path) {
  auto ends = [&](const std::string &s) { return path.size() >= s.size() && path.ends_with(s); };
  if (ends(".xz")) return "xz";
  if (ends(".zst")) return "zstd";
  if (ends(".gz")) return "gzip";
  return "";
}

bool is_elf(const std::string &data) {
  return data.size() >= 4 && data.compare(0, 4,
                                          "\x7f"
                                          "ELF") == 0;
}

Result<std::string> decompress_file(const std::string &path, const std::string &format, off_t offset) {
  if (format.empty() && offset == 0) {
    auto data = read_all(path);
    if (!data) return Error("cannot read " + path);
    return std::move(*data);
  }
  RunOptions ro;
  ro.stdin_path = path;
  ro.stdin_offset = offset;
  ro.timeout_s = 120;
  ProcResult r = run_command({format, "-dc"}, ro);
  if (!r.started) return Error(r.error + " (install the " + (format == "xz" ? "xz-utils" : format) + " package)");
  // A bzImage payload is followed by more bytes: the tools complain and exit non-zero
  // but have written the whole stream. The caller checks what came out.
  if (r.out.empty()) return Error(format + " -dc " + path + ": " + tail_lines(r.err, 2));
  return std::move(r.out);
}

Result<void> extract_vmlinux(const std::string &bzimage, const std::string &out_path) {
  auto image = read_all(bzimage);
  if (!image) return Error("cannot read " + bzimage);
  if (is_elf(*image)) return write_atomically(out_path, *image);
  std::string last_error;
  for (const auto &m : magics()) {
    for (size_t pos = image->find(m.bytes); pos != std::string::npos; pos = image->find(m.bytes, pos + 1)) {
      auto data = decompress_file(bzimage, m.format, static_cast<off_t>(pos));
      if (data && is_elf(*data)) return write_atomically(out_path, *data);
      if (!data) last_error = data.error().message;
      if (!data && last_error.find("not found") != std::string::npos) break;  // tool missing
    }
  }
  return Error("no compressed ELF kernel found in " + bzimage + (last_error.empty() ? "" : " (" + last_error + ")"));
}

std::string kernel_release_of(const std::string &image_path) {
  auto image = read_all(image_path);
  if (!image) return "";
  const std::string &s = *image;
  auto first_word = [&](size_t at) {
    size_t end = s.find_first_of(std::string(" \0", 2), at);
    return end == std::string::npos ? std::string() : s.substr(at, end - at);
  };
  // bzImage: "HdrS" at 0x202, kernel_version (a pointer relative to 0x200) at 0x20e.
  if (s.size() > 0x210 && s.compare(0x202, 4, "HdrS") == 0) {
    size_t off = static_cast<unsigned char>(s[0x20e]) | (static_cast<unsigned char>(s[0x20f]) << 8);
    if (off + 0x200 < s.size()) return first_word(off + 0x200);
  }
  const std::string banner = "Linux version ";
  for (size_t pos = s.find(banner); pos != std::string::npos; pos = s.find(banner, pos + 1)) {
    std::string w = first_word(pos + banner.size());
    // the banner format string itself ("Linux version %s") also appears in the image
    if (!w.empty() && w.find('%') == std::string::npos && std::isdigit(static_cast<unsigned char>(w[0]))) return w;
  }
  return "";
}

}  // namespace bpfbench::vm
