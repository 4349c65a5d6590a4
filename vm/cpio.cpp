#include "vm/cpio.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

namespace bpfbench::vm {

namespace {

void pad4(std::string &s) {
  while (s.size() % 4) s.push_back('\0');
}

}  // namespace

void CpioWriter::add(const std::string &path, uint32_t mode, const std::string &data, uint32_t rmajor,
                     uint32_t rminor) {
  // Fields: magic ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor
  // namesize check. mtime 0 keeps the archive reproducible (it is cached by content).
  out_ +=
      fmt::format("070701{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}", next_ino_++,
                  mode, 0, 0, S_ISDIR(mode) ? 2 : 1, 0, data.size(), 0, 0, rmajor, rminor, path.size() + 1, 0);
  out_ += path;
  out_.push_back('\0');
  pad4(out_);
  out_ += data;
  pad4(out_);
}

void CpioWriter::add_dir(const std::string &path, uint32_t mode) { add(path, S_IFDIR | mode, {}); }
void CpioWriter::add_file(const std::string &path, const std::string &data, uint32_t mode) {
  add(path, S_IFREG | mode, data);
}
void CpioWriter::add_symlink(const std::string &path, const std::string &target) { add(path, S_IFLNK | 0777, target); }
void CpioWriter::add_char_device(const std::string &path, uint32_t major, uint32_t minor, uint32_t mode) {
  add(path, S_IFCHR | mode, {}, major, minor);
}

std::string CpioWriter::finish() {
  add("TRAILER!!!", 0, {});
  std::string out;
  out.swap(out_);
  next_ino_ = 1;
  return out;
}

Result<std::vector<CpioEntry>> read_cpio(const std::string &a) {
  std::vector<CpioEntry> entries;
  size_t pos = 0;
  auto field = [&](int i) { return static_cast<uint32_t>(std::stoul(a.substr(pos + 6 + 8 * i, 8), nullptr, 16)); };
  auto fail = [&](const std::string &why) { return Error(fmt::format("cpio at byte {}: {}", pos, why)); };
  while (true) {
    if (pos + 110 > a.size()) return fail("truncated header");
    if (a.compare(pos, 6, "070701") != 0) return fail("bad magic");
    CpioEntry e;
    uint32_t filesize = 0, namesize = 0;
    try {
      e.mode = field(1);
      filesize = field(6);
      e.rdev_major = field(9);
      e.rdev_minor = field(10);
      namesize = field(11);
    } catch (const std::exception &) {
      return fail("bad hex field");
    }
    size_t name_at = pos + 110;
    if (namesize == 0 || name_at + namesize > a.size()) return fail("bad name size");
    e.path = a.substr(name_at, namesize - 1);
    size_t data_at = (name_at + namesize + 3) & ~size_t{3};
    if (data_at + filesize > a.size()) return fail("truncated data");
    if (e.path == "TRAILER!!!") return entries;
    e.data = a.substr(data_at, filesize);
    entries.push_back(std::move(e));
    pos = (data_at + filesize + 3) & ~size_t{3};
  }
}

}  // namespace bpfbench::vm
