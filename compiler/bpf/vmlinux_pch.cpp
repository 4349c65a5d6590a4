#include "compiler/bpf/vmlinux_pch.hpp"

#include <chrono>

#include "util/cache_file.hpp"
#include "compiler/bpf/object_cache.hpp"
#include "compiler/bpf/vmlinux_header.hpp"

namespace bpfbench {

namespace {

// Bumped when the payload's layout or the header's prologue changes.
// v2: the cache file's hash covers its key too (util/cache_file.hpp).
constexpr std::string_view kPchKeySalt = "bpfbench-vmlinux-pch-v2";

// `<key>.vmlinux.pch`. vmlinux.h of a distribution kernel is ~3 MiB and its PCH ~16 MiB;
// a PCH comes over the compile child's pipe, which carries at most 256 MiB.
constexpr CacheFileKind kPchFile{
    ".vmlinux.pch", {"BPFBPCH\0", 8}, uint64_t{512} << 20, "precompiled vmlinux.h", "another kernel's BTF"};

// The payload: the PCH, the header, the header's size (u64 little endian). In this order
// a read splits it with one copy of the header: the PCH stays where it was read.
std::string payload_of(const PrecompiledVmlinux &v) {
  std::string p;
  p.reserve(v.pch.size() + v.header.size() + 8);
  p += v.pch;
  p += v.header;
  for (int i = 0; i < 8; ++i) p.push_back(static_cast<char>(uint64_t{v.header.size()} >> (8 * i)));
  return p;
}

// The pair back, or why not. clang's own check of a PCH comes later; this one catches
// what would make it read garbage (its magic is "CPCH").
Result<PrecompiledVmlinux> parse_payload(std::string p) {
  uint64_t n = 0;
  if (p.size() >= 8)
    for (size_t i = 0; i < 8; ++i) n |= uint64_t{static_cast<uint8_t>(p[p.size() - 8 + i])} << (8 * i);
  if (p.size() < 8 || n > p.size() - 8) return Error("its header's size is out of range");
  PrecompiledVmlinux v;
  v.header = p.substr(p.size() - 8 - n, n);
  p.resize(p.size() - 8 - n);
  v.pch = std::move(p);
  if (!v.pch.starts_with("CPCH")) return Error("not a clang precompiled header");
  return v;
}

// Generates vmlinux.h from `btf` and precompiles it; fills `r` (its vmlinux or why not).
void build(const KernelBtf &btf, const VmlinuxOptions &opts, VmlinuxResult &r) {
  auto t0 = std::chrono::steady_clock::now();
  Result<std::string> header = vmlinux_header_text(btf);
  if (!header) {
    r.error = header.error().message;
    return;
  }
  CompileOptions co;
  co.limits = opts.limits;
  co.stop = opts.stop;
  CompileResult c = build_vmlinux_pch(*header, co);
  r.interrupted = c.interrupted;
  if (!c.ok) {
    r.error = "vmlinux.h generated from " + btf.path + " did not precompile" + (c.error.empty() ? "" : ": " + c.error);
    r.diags = std::move(c.diags);
    return;
  }
  PrecompiledVmlinux v;
  v.header = std::move(*header);
  v.pch.assign(c.object.begin(), c.object.end());
  r.vmlinux = std::move(v);
  r.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string vmlinux_pch_key(const std::string &btf_hash) {
  std::vector<std::string> args = vmlinux_pch_args();
  const std::string clang = clang_version_string(), dumper = btf_dump_version();
  std::vector<std::string_view> fields = {kPchKeySalt, btf_hash, dumper, clang};
  fields.insert(fields.end(), args.begin(), args.end());
  return cache_key(fields);
}

VmlinuxResult prepare_vmlinux(const VmlinuxOptions &opts) {
  VmlinuxResult r;
  r.btf_path = opts.btf_path.empty() ? default_kernel_btf_path() : opts.btf_path;
  Result<KernelBtf> btf = read_kernel_btf(r.btf_path);
  if (!btf) {
    r.error = btf.error().message;
    return r;
  }
  r.btf_hash = btf->hash;
  const std::string key = vmlinux_pch_key(btf->hash);
  const std::string dir = opts.cache_dir.empty() ? default_cache_dir() : opts.cache_dir;
  if (opts.use_cache) {
    CacheFileLookup hit = load_cache_file(dir, kPchFile, key);
    std::optional<PrecompiledVmlinux> v;
    if (hit.payload) {
      Result<PrecompiledVmlinux> parsed = parse_payload(std::move(*hit.payload));
      if (parsed) v = std::move(*parsed);
      else hit.problem = cache_file_path(dir, kPchFile, key) + ": " + parsed.error().message;
    }
    if (v) {
      v->key = key;
      r.vmlinux = std::move(v);
      r.cached = true;
      return r;
    }
    r.cache_repaired = hit.problem;  // "" for a plain miss
    r.cache_warning = hit.refused;   // a folder we may not use: nothing is stored in it
  }
  build(*btf, opts, r);
  if (!r.vmlinux) return r;
  r.vmlinux->key = key;
  if (opts.use_cache && r.cache_warning.empty())
    if (auto stored = store_cache_file(dir, kPchFile, key, payload_of(*r.vmlinux)); !stored)
      r.cache_warning = stored.error().message;
  return r;
}

}  // namespace bpfbench
