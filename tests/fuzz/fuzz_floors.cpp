// libFuzzer target: the `ab --floor-from` reader (results/floor_file.hpp) on arbitrary bytes.
// Properties: no crash, hang or leak; a refusal is one printable line that names the file
// and carries no nlohmann exception text (a floor's key, the file's own text, is left out of
// that check: `floors["…"]` names the bad entry); every floor it accepts is a finite
// number >= 0.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "util/escape.hpp"
#include "results/floor_file.hpp"

using namespace bpfbench;

namespace {

[[noreturn]] void fail(const char *what, const std::string &text) {
  std::fprintf(stderr, "fuzz_floors: %s\n%.2000s\n", what, text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  Result<FloorMap> floors = floors_from_text(text, "c.json");
  if (!floors) {
    const std::string &err = floors.error().message;
    if (err.rfind("c.json", 0) != 0) fail("the error does not name the file", err);
    if (printable_text(err) != err) fail("the error is not printable text", err);
    std::string ours = err;  // without the echoed key of `c.json: floors["KEY"]: why`
    if (size_t k = ours.find(": floors[\""), end = ours.rfind("\"]: "); k != std::string::npos && end > k)
      ours.erase(k, end - k);
    if (ours.find("json.exception") != std::string::npos) fail("exception text in the error", err);
    return 0;
  }
  if (floors->empty()) fail("accepted without a floor", std::string(text.substr(0, 2000)));
  for (const auto &[name, pct] : *floors)
    if (!std::isfinite(pct) || pct < 0) fail("a floor that is not a number >= 0", name);
  return 0;
}
