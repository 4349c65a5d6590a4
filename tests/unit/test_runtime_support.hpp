// Shared helpers of the runtime tests: root check, family loading, point building, compile.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/bdsl/source.hpp"
#include "util/error.hpp"
#include "results/point_result.hpp"

namespace bpfbench::test {

// What a producer's or consumer's run failed with, "" when it did not: for CHECKs on the message.
inline std::string error_of(const Result<void> &r) { return r ? std::string() : r.error().message; }

// Runtime tests need root and a BPF-capable kernel; without them they return early
// with a WARN (Catch2 2.x has no SKIP).
inline bool have_root() { return geteuid() == 0; }
#define BB_REQUIRE_ROOT()                                                                                              \
  do {                                                                                                                 \
    if (!::bpfbench::test::have_root()) {                                                                              \
      WARN("skipped: runtime tests need root and BPF");                                                                \
      return;                                                                                                          \
    }                                                                                                                  \
  } while (0)

// Polls `done` every `poll` until it holds or `bound` has passed: tests wait for a count or a
// state, not for a fixed time a slow (sanitizer, loaded) run may not meet; `bound` only
// ends a hang. Calls done() once per poll and never after it held (it may take counts);
// returns whether it held.
template <class Pred>
bool wait_until(Pred done, std::chrono::milliseconds bound, std::chrono::milliseconds poll) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(poll);
  }
}

struct Families {
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg;
  explicit Families(std::vector<std::string> extra_dirs = {}) {
    std::vector<std::string> dirs = {std::string(BPFBENCH_SOURCE_DIR) + "/bpf_templates"};
    dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
    reg = FamilyRegistry::load(dirs, sources, diags);
  }
  const FamilyManifest &get(const std::string &name) const { return *reg.find(name); }
};

inline std::string fixtures_dir() { return std::string(BPFBENCH_SOURCE_DIR) + "/tests/fixtures/families"; }

// A point of `program` with the family's defaults and short timings.
inline PlanPoint make_point(const FamilyManifest &f, const std::string &program, int64_t warmup_ns = 1'000'000'000,
                            int64_t duration_ns = 1'000'000'000) {
  PlanPoint p;
  p.family = f.name;
  p.program = program;
  p.label = program;
  for (const auto &ps : f.params) {
    p.params.emplace_back(ps.name, ps.default_value);
    p.param_ranges.emplace_back();
  }
  p.warmup_ns = warmup_ns;
  p.duration_ns = duration_ns;
  p.producers = 1;
  p.consumers = 1;
  p.report = f.default_report;
  return p;
}

// Calls f(fd) for every fd this process has open (the directory's own fd included).
template <typename F>
void for_each_open_fd(F f) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return;
  while (dirent *e = readdir(d))
    if (e->d_name[0] != '.') f(std::string(e->d_name));
  closedir(d);
}

// What fd `fd` of this process refers to ("anon_inode:bpf-prog", "/dev/null", ...).
inline std::string fd_target(const std::string &fd) {
  char buf[256];
  ssize_t n = readlink(("/proc/self/fd/" + fd).c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

// BPF programs, maps and links, and perf events (how some attachments are held).
inline bool is_bpf_fd_target(const std::string &t) {
  return t.rfind("anon_inode:bpf", 0) == 0 || t == "anon_inode:[perf_event]";
}

// The IDs of the BPF objects this process holds fds of (from /proc/self/fdinfo; a link's
// program counts too). Unlike a walk over every ID in the kernel, other processes'
// objects never show up, so tests stay exact while others load the same programs.
struct HeldBpfObjects {
  std::set<uint32_t> progs, maps, links;
};
inline HeldBpfObjects held_bpf_objects() {
  HeldBpfObjects h;
  for_each_open_fd([&](const std::string &fd) {
    if (!is_bpf_fd_target(fd_target(fd))) return;
    std::ifstream in("/proc/self/fdinfo/" + fd);
    for (std::string line; std::getline(in, line);)
      for (auto [key, ids] : {std::pair{"prog_id:", &h.progs}, {"map_id:", &h.maps}, {"link_id:", &h.links}})
        if (line.rfind(key, 0) == 0)
          if (long id = std::strtol(line.c_str() + std::strlen(key), nullptr, 10); id > 0) ids->insert(uint32_t(id));
  });
  return h;
}

inline ParamValue num(int64_t i) { return ParamValue{true, i, {}}; }
inline ParamValue word(std::string s) { return ParamValue{false, 0, std::move(s)}; }
inline void set_param(PlanPoint &p, const std::string &name, ParamValue v) {
  for (auto &[n, val] : p.params)
    if (n == name) val = std::move(v);
}

// Emits and compiles the point's program; "" error on success.
inline std::vector<uint8_t> compile_point(const PlanPoint &p, const Families &fams, std::string &error) {
  SourceManager sm;
  Diagnostics diags;
  auto c = emit_point(p, fams.get(p.family), fams.reg, sm, diags);
  if (!c) {
    error = "emit failed: " + render_all(diags, sm);
    return {};
  }
  CompileResult cr = compile_bpf(*c, CompileOptions{});
  if (!cr.ok) {
    error = "compile failed: " + cr.error;
    for (const auto &d : cr.diags) error += "\n" + d.file + ":" + std::to_string(d.line) + ": " + d.message;
    return {};
  }
  return cr.object;
}

// A metric's events over the measured intervals (0 when no interval counted it).
inline uint64_t sampled_total(const PointResult &r, const std::string &metric) {
  uint64_t n = 0;
  for (const auto &s : r.samples)
    if (auto it = s.deltas.find(metric); it != s.deltas.end()) n += it->second;
  return n;
}

}  // namespace bpfbench::test
