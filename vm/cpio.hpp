// A newc ("070701") cpio archive written in memory: the initramfs the guest kernel unpacks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench::vm {

class CpioWriter {
 public:
  // Paths are archive paths without a leading '/'; parents must be added first.
  void add_dir(const std::string &path, uint32_t mode = 0755);
  void add_file(const std::string &path, const std::string &data, uint32_t mode = 0644);
  void add_symlink(const std::string &path, const std::string &target);
  void add_char_device(const std::string &path, uint32_t major, uint32_t minor, uint32_t mode = 0600);
  // Appends the TRAILER!!! entry and returns the archive; the writer is empty afterwards.
  std::string finish();

 private:
  void add(const std::string &path, uint32_t mode, const std::string &data, uint32_t rmajor = 0, uint32_t rminor = 0);
  std::string out_;
  uint32_t next_ino_ = 1;
};

struct CpioEntry {
  std::string path;
  uint32_t mode = 0;
  uint32_t rdev_major = 0, rdev_minor = 0;
  std::string data;  // file contents or symlink target
};

// Reads a newc archive back (tests, `--dump` of an initramfs). Empty + error on bad input.
Result<std::vector<CpioEntry>> read_cpio(const std::string &archive);

}  // namespace bpfbench::vm
