#include "util/sha256.hpp"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>

namespace bpfbench {

std::string sha256_hex(std::string_view data) {
  llvm::SHA256 h;
  h.update(llvm::StringRef(data.data(), data.size()));
  auto digest = h.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()), /*LowerCase=*/true);
}

}  // namespace bpfbench
