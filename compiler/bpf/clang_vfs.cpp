#include "compiler/bpf/clang_vfs.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>

#include <llvm/Support/MemoryBuffer.h>

#include "util/input_file.hpp"

namespace bpfbench {

namespace {

bool is_header_name(const std::string &p) { return p.size() > 2 && p.ends_with(".h") && p[p.size() - 3] != '/'; }

class CheckedHeaderFs final : public llvm::vfs::ProxyFileSystem {
 public:
  CheckedHeaderFs(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, std::vector<std::string> &refusals)
      : ProxyFileSystem(std::move(fs)),
        refusals_(refusals) {}

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &path) override {
    std::string p = path.str();
    if (auto ok = check_header(p); !ok) {
      const std::string &why = ok.error().message;
      // A path that does not exist is clang's to report, and header search goes on to the
      // next folder (-iquote, -I): "not found", not "denied", which would stop it there.
      if (why.find("No such file or directory") != std::string::npos)
        return std::make_error_code(std::errc::no_such_file_or_directory);
      refusals_.push_back(why);
      return std::make_error_code(std::errc::permission_denied);
    }
    return ProxyFileSystem::openFileForRead(path);
  }

 private:
  std::vector<std::string> &refusals_;
};

}  // namespace

Result<> check_header(const std::string &path) {
  if (!is_header_name(path)) return Error("'" + path + "' is not a .h file");
  if (auto ok = check_input_file(path); !ok) return Error("'" + path + "' " + ok.error().message);
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  if (real && !is_header_name(real.get()))
    return Error("'" + path + "' resolves to '" + real.get() + "', not a .h file");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) > kMaxHeaderBytes)
    return Error("'" + path + "' is larger than the " + format_byte_limit(kMaxHeaderBytes) + " limit");
  return {};
}

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> checked_header_fs(std::vector<std::string> &refusals) {
  return llvm::makeIntrusiveRefCnt<CheckedHeaderFs>(llvm::vfs::getRealFileSystem(), refusals);
}

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> compile_fs(std::vector<std::string> &refusals,
                                                           const std::vector<InMemoryFile> &files) {
  auto checked = checked_header_fs(refusals);
  if (files.empty()) return checked;
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const auto &f : files)
    // No copy: the text stays where it is for as long as the compile runs. A std::string
    // is NUL-terminated, as clang's lexer wants a source buffer to be.
    memory->addFile(f.path, /*ModificationTime=*/0,
                    llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(f.text->data(), f.text->size()), f.path,
                                                     /*RequiresNullTerminator=*/false));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(checked);
  overlay->pushOverlay(memory);  // looked at first
  return overlay;
}

}  // namespace bpfbench
