#include "runtime/verifier_log.hpp"

#include <cctype>
#include <string_view>
#include <vector>

#include "results/profile.hpp"

namespace bpfbench {

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

bool starts_with_digits_then(std::string_view line, std::string_view after) {
  size_t i = 0;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  return i > 0 && line.substr(i).starts_with(after);
}

// "12: (61) r1 = *(u32 *)(r1 +0)": an instruction as the verifier prints it.
bool is_insn(std::string_view line) { return starts_with_digits_then(line, ": ("); }

// The verifier's closing statistics (log_level 1 prints the first; 4 the others).
bool is_stats(std::string_view line) {
  for (std::string_view s : {"processed ", "verification time ", "stack depth ", "max_states_per_insn "})
    if (line.starts_with(s)) return true;
  return false;
}

// Register state and path notes printed between instructions, not complaints.
bool is_state(std::string_view line) {
  if (line.empty() || line.front() == ' ' || line.front() == '\t' || line.front() == ';') return true;
  if (starts_with_digits_then(line, ": R") || starts_with_digits_then(line, ": frame")) return true;
  for (std::string_view s : {"from ", "caller:", "callee:", "returning from callee:"})
    if (line.starts_with(s)) return true;
  return line.starts_with("frame") && starts_with_digits_then(line.substr(5), ":");  // "frame1: R1=..."
}

// "12: (61) r1 = *(u32 *)(r1 +0)       ; R1_w=0": the instruction without its state.
std::string without_state(std::string_view line) {
  size_t semi = line.find(" ;");
  std::string_view insn = semi == std::string_view::npos ? line : line.substr(0, semi);
  while (!insn.empty() && std::isspace(static_cast<unsigned char>(insn.back()))) insn.remove_suffix(1);
  return std::string(insn);
}

// "; int x = *p; @ prog.bpf.c:10" -> text, file, line; false when `line` is no annotation.
bool read_annotation(std::string_view line, VerifierComplaint &c) {
  if (!line.starts_with("; ")) return false;
  const size_t at = line.rfind(" @ ");
  if (at == std::string_view::npos) return false;
  const std::string_view place = line.substr(at + 3);
  const size_t colon = place.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= place.size()) return false;
  int n = 0;
  for (char ch : place.substr(colon + 1)) {
    if (!std::isdigit(static_cast<unsigned char>(ch)) || n > 100'000'000) return false;
    n = n * 10 + (ch - '0');
  }
  c.source_text = std::string(line.substr(2, at - 2));
  c.source_file = std::string(place.substr(0, colon));
  c.source_line = n;
  return true;
}

}  // namespace

VerifierComplaint read_verifier_complaint(const std::string &log) {
  const std::vector<std::string_view> lines = split_lines(log);
  VerifierComplaint c;
  size_t last_insn = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (is_insn(lines[i])) last_insn = i;
  if (last_insn == lines.size()) {
    for (auto it = lines.rbegin(); it != lines.rend() && c.error.empty(); ++it)
      if (!it->empty() && !is_stats(*it)) c.error = std::string(*it);
    return c;
  }
  c.insn = without_state(lines[last_insn]);
  for (size_t i = last_insn; i-- > 0;)
    if (read_annotation(lines[i], c)) break;
  for (size_t i = last_insn + 1; i < lines.size() && c.error.empty(); ++i)
    if (!is_state(lines[i]) && !is_stats(lines[i])) c.error = std::string(lines[i]);
  return c;
}

size_t count_lines(const std::string &text) {
  size_t n = 0;
  for (char ch : text) n += ch == '\n';
  return n + (!text.empty() && text.back() != '\n');
}

Result<std::string> VerifierLogFolder::keep(const std::string &stem, const std::string &log) {
  if (!dir_) {
    auto dir = SafeDir::open_child(parent_, kName);
    if (!dir) return dir.error();
    dir_ = std::move(*dir);
  }
  const std::string name = stem + ".log";
  BB_TRY(dir_->write(name, {log}, 0600));
  return (parent_ == "." ? std::string(kName) : dir_->path()) + "/" + name;
}

std::string program_in_libbpf_message(const std::string &message) {
  const size_t b = message.find("prog '");
  if (b == std::string::npos) return "";
  const size_t e = message.find('\'', b + 6);
  return e == std::string::npos ? "" : message.substr(b + 6, e - b - 6);
}

std::string one_line_failure(const std::string &message, const std::optional<BpfError> &bpf, const std::string &label,
                             std::vector<std::string> stem_parts, VerifierLogFolder *logs) {
  std::string out = message.substr(0, message.find('\n'));
  if (!bpf || bpf->verifier_log.empty() || !logs) return out;
  stem_parts.push_back(program_in_libbpf_message(bpf->message));
  Result<std::string> kept = logs->keep(log_file_stem(label, stem_parts), bpf->verifier_log);
  return out +
         (kept ? " (verifier log: " + *kept + ")" : " (the verifier log was not kept: " + kept.error().message + ")");
}

std::string log_file_stem(const std::string &label, const std::vector<std::string> &parts) {
  std::string stem = profile_file_stem(label);
  for (const auto &p : parts)
    if (!p.empty()) stem += "." + profile_file_stem(p);
  return stem;
}

}  // namespace bpfbench
