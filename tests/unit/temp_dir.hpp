// The tests' one temporary directory: made under /tmp, mode 1777 like /tmp itself (so a
// test can run a child as another user in it, and a cache folder made in it is one that
// bpfbench trusts: util/safe_dir.hpp), removed with its contents when the test ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace bpfbench::test {

struct TempDir {
  std::filesystem::path path;

  TempDir() {
    char tmpl[] = "/tmp/bpfbench-test-XXXXXX";
    if (mkdtemp(tmpl)) {
      path = tmpl;
      std::filesystem::permissions(path, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
    }
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  TempDir(TempDir &&o) noexcept : path(std::move(o.path)) { o.path.clear(); }  // one owner removes it

  // Writes `text` to path/name (parent folders made), mode 0644; returns its path.
  std::string write(const std::string &name, const std::string &text) const {
    namespace fs = std::filesystem;
    fs::path p = path / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    return p.string();
  }
};

}  // namespace bpfbench::test
