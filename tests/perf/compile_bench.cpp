// Times compile_bpf on a typical generated program: cold (no cache) and cache hits.
// Usage: bpfbench_compile_bench [--runs N] [program.bpf.c]
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/clang_compile.hpp"

namespace {

// Shaped like an emitted ringbuf family program: #line mapping, rodata knobs, per-CPU
// counters, a ring buffer map and a driver loop.
const char *kTypical = R"(#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#line 1 "examples/ringbufs.bdsl"
#define BB_MAX_CPUS 256
struct bb_counter { __u64 value; } __attribute__((aligned(128)));

const volatile __u32 batch_cnt = 500;
const volatile __u32 sample_rate = 1;
const volatile __u32 wakeup_data_size = 0;

struct bb_counter hits[BB_MAX_CPUS];
struct bb_counter drops[BB_MAX_CPUS];

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024);
} ringbuf SEC(".maps");

struct sample { __u64 seq; __u64 value[3]; };

static __always_inline void bb_inc(struct bb_counter *c)
{
	__u32 cpu = bpf_get_smp_processor_id() & (BB_MAX_CPUS - 1);
	__sync_fetch_and_add(&c[cpu].value, 1);
}

static __always_inline long flags(void)
{
	long sz;
	if (!wakeup_data_size)
		return 0;
	sz = bpf_ringbuf_query(&ringbuf, BPF_RB_AVAIL_DATA);
	return sz >= wakeup_data_size ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_ringbuf(void *ctx)
{
	for (__u32 i = 0; i < batch_cnt; i++) {
		struct sample *s = bpf_ringbuf_reserve(&ringbuf, sizeof(*s), 0);
		if (!s) {
			bb_inc(drops);
			continue;
		}
		s->seq = i;
		s->value[0] = 42;
		bpf_ringbuf_submit(s, sample_rate && i % sample_rate == 0 ? flags() : BPF_RB_NO_WAKEUP);
		bb_inc(hits);
	}
	return 0;
}

char _license[] SEC("license") = "GPL";
)";

double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs compile_bpf `runs` times; returns per-run milliseconds, or empty on a failure.
std::vector<double> time_runs(const std::string &src, const bpfbench::CompileOptions &o, int runs, bool expect_cached) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    bpfbench::CompileResult r = bpfbench::compile_bpf(src, o);
    auto t1 = std::chrono::steady_clock::now();
    if (!r.ok || r.cached != expect_cached) {
      std::fprintf(stderr, "compile failed or cache state unexpected: %s\n", r.error.c_str());
      for (const auto &d : r.diags)
        std::fprintf(stderr, "%s:%u:%u: %s\n", d.file.c_str(), d.line, d.col, d.message.c_str());
      return {};
    }
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return ms;
}

}  // namespace

int main(int argc, char **argv) {
  int runs = 15;
  std::string src = kTypical;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::ifstream in(a);
      if (!in) {
        std::fprintf(stderr, "cannot read %s\n", a.c_str());
        return 2;
      }
      std::stringstream ss;
      ss << in.rdbuf();
      src = ss.str();
    }
  }
  char tmpl[] = "/tmp/bpfbench-compile-bench-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  bpfbench::CompileOptions o;
  o.cache_dir = tmpl;
  o.use_cache = false;
  std::vector<double> cold = time_runs(src, o, runs, false);
  o.use_cache = true;
  std::vector<double> warmup = time_runs(src, o, 1, false);  // fills the cache
  std::vector<double> hit = time_runs(src, o, runs, true);
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  if (cold.empty() || warmup.empty() || hit.empty()) return 1;
  std::printf("%s, %d runs each\n", bpfbench::clang_version_string().c_str(), runs);
  std::printf("cold (no cache):  median %8.2f ms  min %8.2f ms  max %8.2f ms\n", median_ms(cold),
              *std::min_element(cold.begin(), cold.end()), *std::max_element(cold.begin(), cold.end()));
  std::printf("cached:           median %8.3f ms  min %8.3f ms  max %8.3f ms\n", median_ms(hit),
              *std::min_element(hit.begin(), hit.end()), *std::max_element(hit.begin(), hit.end()));
  return 0;
}
