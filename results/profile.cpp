#include "results/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>

namespace bpfbench {

namespace {

struct Frame {
  std::string sym, dso;
  SymbolKind kind = SymbolKind::User;
};

bool is_hex(const std::string &s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

// "    ffffffff8123 do_syscall_64 ([kernel.kallsyms])": address, symbol (may hold spaces),
// the DSO in the last parentheses.
std::optional<Frame> parse_frame(const std::string &line) {
  size_t a = line.find_first_not_of(" \t");
  if (a == std::string::npos) return std::nullopt;
  size_t a_end = line.find(' ', a);
  if (a_end == std::string::npos || !is_hex(line.substr(a, a_end - a))) return std::nullopt;
  const std::string addr = line.substr(a, a_end - a);
  Frame f;
  size_t close = line.find_last_not_of(' ');
  size_t open = line.rfind(" (");
  if (close != std::string::npos && line[close] == ')' && open != std::string::npos && open > a_end) {
    f.dso = line.substr(open + 2, close - open - 2);
    f.sym = line.substr(a_end + 1, open - a_end - 1);
  } else {
    f.sym = line.substr(a_end + 1, close == std::string::npos ? std::string::npos : close - a_end);
  }
  f.sym.erase(0, f.sym.find_first_not_of(' '));
  if (f.sym.empty()) f.sym = "[unknown]";
  if (f.sym.rfind("bpf_prog_", 0) == 0) f.kind = SymbolKind::Bpf;
  else if (f.dso.find("kernel.kallsyms") != std::string::npos || f.dso.rfind("[kernel", 0) == 0 ||
           (addr.size() == 16 && addr.rfind("ffff", 0) == 0))
    f.kind = SymbolKind::Kernel;
  return f;
}

// A frame's name in a folded stack: no ';' (the separator) and no newline.
std::string folded_name(const Frame &f) {
  std::string n = f.sym;
  if (n == "[unknown]" && !f.dso.empty() && f.dso != "[unknown]") n = "[" + f.dso.substr(f.dso.rfind('/') + 1) + "]";
  for (char &c : n)
    if (c == ';' || c == '\n' || c == '\r') c = ':';
  return f.kind == SymbolKind::User ? n : n + "_[k]";
}

std::string leaf_name(const Frame &f) {
  if (f.sym == "[unknown]" && !f.dso.empty() && f.dso != "[unknown]") return "[unknown] (" + f.dso + ")";
  return f.sym;
}

}  // namespace

const char *to_string(SymbolKind k) {
  switch (k) {
  case SymbolKind::Kernel: return "kernel";
  case SymbolKind::Bpf: return "bpf";
  case SymbolKind::User: return "user";
  }
  return "user";
}

ParsedProfile parse_perf_script(const std::string &text) {
  ParsedProfile out;
  std::string comm;
  std::vector<Frame> frames;
  bool in_sample = false;
  auto flush = [&] {
    if (!in_sample) return;
    in_sample = false;
    ++out.samples;
    if (frames.empty()) frames.push_back(Frame{"[unknown]", "", SymbolKind::User});
    ++out.leaves[{leaf_name(frames.front()), frames.front().kind}];
    std::string stack = comm.empty() ? "[unknown]" : comm;
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) stack += ";" + folded_name(*it);
    ++out.folded[stack];
    frames.clear();
  };
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      flush();
    } else if (line[0] != ' ' && line[0] != '\t') {  // "comm tid": a new sample
      flush();
      in_sample = true;
      size_t end = line.find_last_not_of(' ');
      size_t sp = line.rfind(' ', end);
      comm = sp == std::string::npos ? line.substr(0, end + 1) : line.substr(0, sp);
      for (char &c : comm)
        if (c == ';' || c == ' ') c = '_';
    } else if (in_sample) {
      if (auto f = parse_frame(line)) frames.push_back(std::move(*f));
    }
  }
  flush();
  return out;
}

std::vector<ProfileSymbol> top_symbols(const ParsedProfile &p, size_t n) {
  std::vector<ProfileSymbol> all;
  for (const auto &[key, count] : p.leaves)
    all.push_back({key.first, key.second, count, p.samples ? double(count) / double(p.samples) : 0.0});
  std::stable_sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.samples > b.samples; });
  if (all.size() > n) all.resize(n);
  return all;
}

std::string folded_text(const ParsedProfile &p) {
  std::string out;
  for (const auto &[stack, count] : p.folded) out += fmt::format("{} {}\n", stack, count);
  return out;
}

std::string profile_file_stem(const std::string &label) {
  std::string s;
  for (char c : label) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    s += keep ? c : '_';
    if (s.size() >= 100) break;
  }
  if (!s.empty() && s[0] == '.') s[0] = '_';
  return s.empty() ? "point" : s;
}

std::string format_profile(const ProfileSummary &p, size_t n) {
  if (!p.error.empty()) return "profile: none (" + p.error + ")";
  std::string out = fmt::format("profile ({}, {} samples): {}", p.event, p.samples, p.data_path);
  if (!p.folded_path.empty()) out += ", " + p.folded_path;
  for (size_t i = 0; i < p.top.size() && i < n; ++i)
    out += fmt::format("\n  {:5.1f}%  {:<6} {}", p.top[i].share * 100, to_string(p.top[i].kind), p.top[i].name);
  return out;
}

nlohmann::json profile_to_json(const ProfileSummary &p) {
  nlohmann::json top = nlohmann::json::array();
  for (const auto &s : p.top)
    top.push_back({{"symbol", s.name}, {"kind", to_string(s.kind)}, {"samples", s.samples}, {"share", s.share}});
  nlohmann::json j = {{"event", p.event}, {"samples", p.samples}, {"perf_data", p.data_path}, {"top", top}};
  j["folded"] = p.folded_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.folded_path);
  if (!p.error.empty()) j["error"] = p.error;
  return j;
}

}  // namespace bpfbench
