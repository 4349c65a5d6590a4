#include "compiler/bpf/user_includes.hpp"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <system_error>

#include "util/input_file.hpp"
#include "util/sha256.hpp"

namespace bpfbench {

namespace {

namespace fs = std::filesystem;

// The .h names directly in `dir`, sorted (a listing's order is the file system's).
std::vector<std::string> header_names(const std::string &dir, bool &complete) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() > 2 && name.ends_with(".h")) out.push_back(name);
    if (out.size() > kMaxUserHeaders) break;
  }
  if (ec && ec != std::errc::no_such_file_or_directory) complete = false;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

UserIncludes user_includes(const std::vector<std::string> &dirs) {
  UserIncludes u;
  std::vector<std::string> seen;
  std::string hashed;  // per header: dir, name, contents, each length-prefixed
  size_t count = 0;
  for (const auto &d : dirs) {
    if (d.empty() || std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
    seen.push_back(d);
    // A folder without headers adds nothing: the key of a program that includes none does
    // not depend on where its .bdsl file is.
    std::vector<std::string> names = header_names(d, u.cacheable);
    if (names.empty()) continue;
    u.args.insert(u.args.end(), {"-iquote", d});
    for (const auto &name : names) {
      if (++count > kMaxUserHeaders) {
        u.cacheable = false;
        break;
      }
      // What clang may open (compiler/bpf/clang_vfs.hpp): a name that resolves to a .h file,
      // so a passwd.h linked to /etc/passwd is not read here either.
      std::error_code ec;
      fs::path real = fs::canonical(d + "/" + name, ec);
      if (ec || !real.string().ends_with(".h")) continue;
      auto in = read_input_file(d + "/" + name, kMaxUserHeaderBytes);
      if (!in) continue;  // not a regular file, unreadable: clang says so if it is included
      if (hashed.size() + in->data.size() > kMaxUserHeaderBytes) {
        u.cacheable = false;
        break;
      }
      for (const std::string *f : std::initializer_list<const std::string *>{&d, &name, &in->data})
        hashed += std::to_string(f->size()) + ":" + *f;
    }
  }
  if (!hashed.empty()) u.args.push_back("-D__BPFBENCH_USER_HEADERS=" + sha256_hex(hashed));
  return u;
}

}  // namespace bpfbench
