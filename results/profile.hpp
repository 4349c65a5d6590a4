// What `run --profile` found in a point's measured part: perf's samples, read from `perf
// script` text by us (no perf library), as top symbols and folded stacks. No kernel here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bpfbench {

enum class SymbolKind { Kernel, Bpf, User };
const char *to_string(SymbolKind k);  // "kernel", "bpf", "user"

struct ProfileSymbol {
  std::string name;
  SymbolKind kind = SymbolKind::User;
  uint64_t samples = 0;
  double share = 0;  // samples / all samples of the profile
};

struct ProfileSummary {
  std::string event;        // "cpu-clock" (no PMU) or "cycles"
  std::string data_path;    // profiles/<label>.perf.data
  std::string folded_path;  // profiles/<label>.folded ("" unless --profile=folded)
  uint64_t samples = 0;
  std::vector<ProfileSymbol> top;  // leaf symbols by samples, highest first
  std::string error;               // why there is no profile (perf failed); the run went on
};

// Samples parsed from `perf script -F comm,tid,ip,sym,dso` of a recording with call
// graphs: a header line per sample, then one frame per line (leaf first), a blank line.
struct ParsedProfile {
  uint64_t samples = 0;
  std::map<std::pair<std::string, SymbolKind>, uint64_t> leaves;  // leaf symbol -> samples
  std::map<std::string, uint64_t> folded;                         // "comm;outermost;...;leaf" -> samples
};
ParsedProfile parse_perf_script(const std::string &text);

// The `n` most sampled leaf symbols with their shares.
std::vector<ProfileSymbol> top_symbols(const ParsedProfile &p, size_t n);
// Brendan Gregg's collapsed format: "stack count" lines, sorted by stack.
std::string folded_text(const ParsedProfile &p);

// A label as a file name: letters, digits, '.', '-', '_' kept, everything else '_', a
// leading '.' as '_', at most 100 bytes; "point" when nothing is left.
std::string profile_file_stem(const std::string &label);

// "profile (cpu-clock, 1234 samples): 31.2% [bpf] bpf_prog_..._bench, 12.0% [kernel] ..."
std::string format_profile(const ProfileSummary &p, size_t n = 8);
nlohmann::json profile_to_json(const ProfileSummary &p);

}  // namespace bpfbench
