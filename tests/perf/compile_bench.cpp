// Times compile_bpf on a typical generated program: cold (no cache) and cache hits; with
// --vmlinux, the precompiled vmlinux.h too: preparing it cold and from the cache, and a
// CO-RE program compiled with it, with vmlinux.h as a plain header and without it.
// Usage: bpfbench_compile_bench [--runs N] [--vmlinux] [program.bpf.c]
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bpf/vmlinux_header.hpp"
#include "compiler/bpf/vmlinux_pch.hpp"

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

// A CO-RE read of the current task's tgid: with vmlinux.h as the emitter writes it, and
// with a hand-declared struct (preserve_access_index) under <linux/bpf.h> instead.
const std::string kCoreTgid = R"(
__u64 seen;

SEC("?raw_tp")
int core_tgid(void *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	seen = BPF_CORE_READ(t, tgid);
	return 0;
}

char _license[] SEC("license") = "GPL";
)";

const std::string kCoreVmlinux =
    "#include <vmlinux.h>\n#include <bpf/bpf_helpers.h>\n#include <bpf/bpf_core_read.h>\n" + kCoreTgid;

const std::string kCoreHandWritten =
    "#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n#include <bpf/bpf_core_read.h>\n"
    "struct task_struct {\n\tint tgid;\n} __attribute__((preserve_access_index));\n" +
    kCoreTgid;

// Small kernel types only: a kprobe-style read of a pt_regs argument.
const char *kSmallVmlinux = R"(#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

__u64 seen;

SEC("?kprobe/do_nanosleep")
int core_arg(struct pt_regs *ctx)
{
	seen = PT_REGS_PARM1_CORE(ctx);
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

// Wall and CPU milliseconds of each run; CPU is bpfbench's own plus its reaped children's
// (the compile child), which a loaded machine distorts far less than the wall clock.
struct Times {
  std::vector<double> wall, cpu;
};

double cpu_ms_now() {
  struct rusage self {
  }, kids{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  auto ms = [](const timeval &t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; };
  return ms(self.ru_utime) + ms(self.ru_stime) + ms(kids.ru_utime) + ms(kids.ru_stime);
}

// Runs `f` `runs` times; empty when it failed once.
template <class F>
Times measure(int runs, F &&f) {
  Times t;
  for (int i = 0; i < runs; ++i) {
    double c0 = cpu_ms_now();
    auto t0 = std::chrono::steady_clock::now();
    if (!f()) return {};
    t.wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    t.cpu.push_back(cpu_ms_now() - c0);
  }
  return t;
}

void print_times(const char *what, const Times &t) {
  std::printf("%-46s wall median %8.2f ms (min %8.2f)  cpu median %8.2f ms (min %8.2f)\n", what, median_ms(t.wall),
              *std::min_element(t.wall.begin(), t.wall.end()), median_ms(t.cpu),
              *std::min_element(t.cpu.begin(), t.cpu.end()));
}

bool compiles(const std::string &src, const bpfbench::CompileOptions &o) {
  bpfbench::CompileResult r = bpfbench::compile_bpf(src, o);
  if (!r.ok) std::fprintf(stderr, "compile failed: %s\n", r.error.c_str());
  for (const auto &d : r.diags)
    std::fprintf(stderr, "%s:%u:%u: %s\n", d.file.c_str(), d.line, d.col, d.message.c_str());
  return r.ok && !r.cached;
}

// The vmlinux.h times: preparing it cold (each run in a cache folder of its own) and from
// the cache, and compiles (object cache off) with the PCH, with vmlinux.h as a plain
// header and with a hand-written struct under <linux/bpf.h> instead.
int bench_vmlinux(const std::string &dir, int runs) {
  auto btf = bpfbench::read_kernel_btf(bpfbench::default_kernel_btf_path());
  if (!btf) {
    std::fprintf(stderr, "%s\n", btf.error().message.c_str());
    return 1;
  }
  Times gen = measure(runs, [&] { return static_cast<bool>(bpfbench::vmlinux_header_text(*btf)); });
  auto text = bpfbench::vmlinux_header_text(*btf);
  const std::string header = text ? *text : "";
  int n = 0;
  bpfbench::VmlinuxOptions vo;
  Times cold = measure(runs, [&] {
    vo.cache_dir = dir + "/pch-" + std::to_string(n++);
    auto r = bpfbench::prepare_vmlinux(vo);
    return r.vmlinux && !r.cached;
  });
  bpfbench::VmlinuxResult prepared;
  Times hit = measure(runs, [&] {
    prepared = bpfbench::prepare_vmlinux(vo);
    return prepared.vmlinux && prepared.cached;
  });
  if (gen.wall.empty() || cold.wall.empty() || hit.wall.empty()) return 1;
  bpfbench::CompileOptions o;
  o.use_cache = false;
  o.vmlinux = &*prepared.vmlinux;
  Times with_pch = measure(runs, [&] { return compiles(kCoreVmlinux, o); });
  Times small_pch = measure(runs, [&] { return compiles(kSmallVmlinux, o); });
  // vmlinux.h as an ordinary header in a folder of its own (a compile without the PCH).
  std::ofstream(dir + "/vmlinux.h", std::ios::binary) << header;
  bpfbench::CompileOptions plain;
  plain.use_cache = false;
  plain.extra_args = {"-I", dir};
  Times without_pch = measure(runs, [&] { return compiles(kCoreVmlinux, plain); });
  Times hand = measure(runs, [&] { return compiles(kCoreHandWritten, plain); });
  Times typical = measure(runs, [&] { return compiles(kTypical, plain); });
  for (const Times *t : {&with_pch, &small_pch, &without_pch, &hand, &typical})
    if (t->wall.empty()) return 1;
  std::printf("%s, %s, BTF %s (%zu bytes), vmlinux.h %zu bytes, PCH %zu bytes, %d runs each\n",
              bpfbench::clang_version_string().c_str(), bpfbench::btf_dump_version().c_str(), btf->path.c_str(),
              btf->bytes.size(), header.size(), prepared.vmlinux->pch.size(), runs);
  print_times("vmlinux.h generated from the BTF (libbpf):", gen);
  print_times("precompiled vmlinux.h, cold (BTF to cache):", cold);
  print_times("precompiled vmlinux.h from the cache:", hit);
  print_times("task_struct CO-RE compile, with the PCH:", with_pch);
  print_times("pt_regs CO-RE compile, with the PCH:", small_pch);
  print_times("task_struct CO-RE compile, vmlinux.h, no PCH:", without_pch);
  print_times("task_struct CO-RE, hand-written struct:", hand);
  print_times("typical program, no vmlinux.h:", typical);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  int runs = 15;
  bool vmlinux = false;
  std::string src = kTypical;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--vmlinux") {
      vmlinux = true;
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
  if (vmlinux) {
    int rc = bench_vmlinux(tmpl, runs);
    std::error_code ec;
    std::filesystem::remove_all(tmpl, ec);
    return rc;
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
