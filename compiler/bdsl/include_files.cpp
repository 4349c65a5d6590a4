#include "compiler/bdsl/include_files.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>

#include "util/input_file.hpp"
#include "compiler/bdsl/parse.hpp"

namespace bpfbench {

namespace fs = std::filesystem;

namespace {

bool is_bdsl_name(std::string_view path) {
  constexpr std::string_view ext = ".bdsl";
  return path.size() > ext.size() && path.substr(path.size() - ext.size()) == ext &&
         path[path.size() - ext.size() - 1] != '/';
}

}  // namespace

std::string IncludeFiles::canonical_key(const std::string &path) {
  std::error_code ec;
  auto c = fs::weakly_canonical(path, ec);
  return ec ? fs::path(path).lexically_normal().string() : c.string();
}

bool IncludeFiles::within_budget(const ast::Name &inc, uint64_t more_bytes) {
  if (exhausted_) return false;  // said once; later includes are skipped quietly
  std::string why;
  if (sites_ >= kMaxIncludeSites) why = fmt::format("more than {} include statements expanded", kMaxIncludeSites);
  else if (bytes_ + more_bytes > kMaxSourceBytes)
    why = fmt::format("more than {} of source in all", format_byte_limit(kMaxSourceBytes));
  if (why.empty()) {
    ++sites_;
    bytes_ += more_bytes;
    return true;
  }
  exhausted_ = true;
  diags_.error(inc.range, fmt::format("too much included: {}", why),
               {"a file included N times counts N times; include shared definitions once, at the top"});
  return false;
}

std::optional<IncludedFile> IncludeFiles::open(const ast::Name &inc, const std::string &from,
                                               const std::vector<std::string> &stack) {
  if (stack.size() > kMaxIncludeDepth) {
    diags_.error(inc.range, fmt::format("includes nested too deeply (more than {} levels)", kMaxIncludeDepth));
    return std::nullopt;
  }
  // Only .bdsl files: a parse error shows the offending source line, so an include of
  // /etc/shadow (run as root) would print a line of it. Checked before anything is read.
  if (!is_bdsl_name(inc.text)) {
    diags_.error(inc.range, fmt::format("cannot include '{}': an include must name a .bdsl file", inc.text));
    return std::nullopt;
  }
  fs::path p(inc.text);
  if (p.is_relative()) p = fs::path(from).parent_path() / p;
  std::string key = canonical_key(p.string());
  if (!is_bdsl_name(key)) {  // a symlink x.bdsl -> /etc/shadow
    diags_.error(inc.range,
                 fmt::format("cannot include '{}': it resolves to '{}', which is not a .bdsl file", inc.text, key));
    return std::nullopt;
  }
  for (const auto &open : stack)
    if (open == key) {
      diags_.error(inc.range, fmt::format("recursive include of '{}'", inc.text));
      return std::nullopt;
    }
  auto cached = ids_.find(key);
  if (cached == ids_.end()) {
    auto in = read_input_file(p.string(), kMaxTextInputBytes);
    if (!in) {
      diags_.error(inc.range, fmt::format("cannot open include '{}': {}", inc.text, in.error().message));
      return std::nullopt;
    }
    cached = ids_.emplace(key, sm_.add(p.lexically_normal().string(), std::move(in->data))).first;
  }
  if (!within_budget(inc, sm_.file(cached->second).text.size())) return std::nullopt;
  return IncludedFile{cached->second, key};
}

}  // namespace bpfbench
