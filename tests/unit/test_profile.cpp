// `run --profile`: perf script text parsed into top symbols and folded stacks
// (results/profile.hpp), file stems, and on the real kernel (root, perf installed): the
// recording of a timing point names its BPF program.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "results/profile.hpp"
#include "runtime/profiler.hpp"
#include "runtime/run_point.hpp"
#include "temp_dir.hpp"
#include "test_runtime_support.hpp"

using namespace bpfbench;

namespace {

// Four samples as perf script -F comm,tid,ip,sym,dso prints them with call graphs.
const char *kScript = "bpfbench 100 \n"
                      "\tffffffffc0001234 bpf_prog_6deef7357e7b4530_bench_ktime ([kernel.kallsyms])\n"
                      "\tffffffff81234567 bpf_trace_run2 ([kernel.kallsyms])\n"
                      "\t    7f0012345678 syscall (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
                      "\n"
                      "bpfbench 100 \n"
                      "\tffffffff81000010 ktime_get ([kernel.kallsyms])\n"
                      "\tffffffffc0001240 bpf_prog_6deef7357e7b4530_bench_ktime ([kernel.kallsyms])\n"
                      "\n"
                      "bpfbench 101 \n"
                      "\t            9e80 [unknown] (/usr/bin/bpfbench)\n"
                      "\n"
                      "bpfbench 100 \n"
                      "\tffffffffc0001234 bpf_prog_6deef7357e7b4530_bench_ktime ([kernel.kallsyms])\n"
                      "\tffffffff81234567 bpf_trace_run2 ([kernel.kallsyms])\n"
                      "\t    7f0012345678 syscall (/usr/lib/x86_64-linux-gnu/libc.so.6)\n";  // no blank line at the end

bool exists(const std::string &p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && st.st_size > 0;
}

std::string slurp(const std::string &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("profile: perf script samples become top symbols", "[profile]") {
  ParsedProfile p = parse_perf_script(kScript);
  CHECK(p.samples == 4);
  auto top = top_symbols(p, 10);
  REQUIRE(top.size() == 3);
  CHECK(top[0].name == "bpf_prog_6deef7357e7b4530_bench_ktime");
  CHECK(top[0].kind == SymbolKind::Bpf);
  CHECK(top[0].samples == 2);
  CHECK(top[0].share == Approx(0.5));
  bool kernel = false, user = false;
  for (const auto &s : top) {
    kernel |= s.name == "ktime_get" && s.kind == SymbolKind::Kernel;
    user |= s.name == "[unknown] (/usr/bin/bpfbench)" && s.kind == SymbolKind::User;
  }
  CHECK(kernel);
  CHECK(user);
}

TEST_CASE("profile: folded stacks, outermost first", "[profile]") {
  std::string folded = folded_text(parse_perf_script(kScript));
  CHECK(folded == "bpfbench;[bpfbench] 1\n"
                  "bpfbench;bpf_prog_6deef7357e7b4530_bench_ktime_[k];ktime_get_[k] 1\n"
                  "bpfbench;syscall;bpf_trace_run2_[k];bpf_prog_6deef7357e7b4530_bench_ktime_[k] 2\n");
}

TEST_CASE("profile: labels become safe file stems", "[profile]") {
  CHECK(profile_file_stem("ktime") == "ktime");
  CHECK(profile_file_stem("rb/batch=10 x") == "rb_batch_10_x");
  CHECK(profile_file_stem("../up") == "_._up");
  CHECK(profile_file_stem("") == "point");
  CHECK(profile_file_stem(std::string(300, 'a')).size() == 100);
}

TEST_CASE("profile: a timing point's recording names its program", "[runtime][profile]") {
  BB_REQUIRE_ROOT();
  if (std::string why = probe_perf(); !why.empty()) {
    WARN("skipped: " << why);
    return;
  }
  test::TempDir dir;
  test::Families fams;
  const FamilyManifest &f = fams.get("timing");
  PlanPoint p = test::make_point(f, "ktime", 0, 1'000'000'000);
  p.label = "ktime/profiled";
  std::string err;
  auto obj = test::compile_point(p, fams, err);
  INFO(err);
  REQUIRE(!obj.empty());
  ProfileOptions po;
  po.dir = dir.path.string();
  po.folded = true;
  FeatureProber prober;
  RunOptions opts;
  opts.prober = &prober;
  opts.profile = &po;
  StopSource stop;
  PointResult r = run_point(p, f, obj, opts, stop);
  INFO(r.reason);
  REQUIRE(r.status == PointResult::Status::Ok);
  REQUIRE(r.profile);
  INFO(r.profile->error);
  REQUIRE(r.profile->error.empty());
  CHECK(r.profile->data_path == dir.path.string() + "/ktime_profiled.perf.data");
  CHECK(exists(r.profile->data_path));
  REQUIRE(exists(r.profile->folded_path));
  CHECK(r.profile->samples > 0);
  bool named = false;
  for (const auto &s : r.profile->top)
    named |= s.kind == SymbolKind::Bpf && s.name.rfind("bpf_prog_", 0) == 0 && s.name.size() > 12 &&
             s.name.substr(s.name.size() - 12) == "_bench_ktime";
  INFO(format_profile(*r.profile));
  CHECK(named);
  CHECK(slurp(r.profile->folded_path).find("_bench_ktime_[k]") != std::string::npos);
}
