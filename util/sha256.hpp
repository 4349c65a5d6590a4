// SHA-256 of a byte string as lowercase hex (LLVM's implementation; used for result hashes).
#pragma once

#include <string>
#include <string_view>

namespace bpfbench {

std::string sha256_hex(std::string_view data);

}  // namespace bpfbench
