#include "compiler/bpf/clang_compile.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Serialization/ASTWriter.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include "compiler/bpf/clang_diags.hpp"
#include "compiler/bpf/clang_vfs.hpp"
#include "compiler/bpf/object_cache.hpp"

namespace bpfbench {

namespace {

// What the compile child does: the cc1 arguments, its input and the files it reads from
// memory; it emits an object, or (pch) a precompiled header.
struct ChildJob {
  std::vector<std::string> args;
  std::string main_name;                   // the input, as clang names it
  const std::string *main_text = nullptr;  // handed to clang under main_name (null: in `files`)
  std::vector<InMemoryFile> files;
  bool pch = false;
};

// The cc1 line clang's driver would build for `clang -target bpf -O2 -g -c`, minus the
// parts that depend on the working directory (kept out so cached objects are
// reproducible), pinned to the little-endian BPF triple and cpu v3. `action` is -emit-obj,
// or -emit-pch for vmlinux.h: a PCH is only used by compiles whose flags match its own,
// so both take this one list. With `vmlinux`, the generated folder is searched after the
// system's own and (objects) the PCH is included first.
std::vector<std::string> cc1_args(const std::string &action, const std::string &main_file,
                                  const std::vector<std::string> &extra, bool vmlinux, bool pch = true) {
  std::vector<std::string> a = {
      "-triple",
      "bpfel",
      action,
      "-O2",
      "-debug-info-kind=constructor",
      "-dwarf-version=5",
      "-fdebug-compilation-dir=.",
      "-resource-dir",
      BPFBENCH_CLANG_RESOURCE_DIR,
      "-I/usr/include/x86_64-linux-gnu",
      "-D__TARGET_ARCH_x86",
      "-target-cpu",
      "v3",
      "-fgnuc-version=4.2.1",  // libbpf and uapi headers test __GNUC__
      "-ferror-limit",
      std::to_string(Diagnostics::kMaxErrors),
      "-disable-free",
      "-discard-value-names",
      "-main-file-name",
      main_file,
  };
  if (vmlinux) a.insert(a.end(), {"-I", kVmlinuxDir});
  if (vmlinux && pch && action == "-emit-obj") a.insert(a.end(), {"-include-pch", kVmlinuxPchPath});
  a.insert(a.end(), extra.begin(), extra.end());
  a.insert(a.end(), {"-x", action == "-emit-pch" ? "c-header" : "c", main_file});
  return a;
}

// GeneratePCHAction writes to a file; this one keeps the PCH in `buffer` (the child writes
// no file: its RLIMIT_FSIZE is 0). No timestamps: the PCH's bytes depend on its input only.
class PchToMemory final : public clang::GeneratePCHAction {
 public:
  explicit PchToMemory(std::shared_ptr<clang::PCHBuffer> buffer) : buffer_(std::move(buffer)) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci, llvm::StringRef) override {
    std::string sysroot;
    if (!ComputeASTConsumerArguments(ci, sysroot)) return nullptr;
    return std::make_unique<clang::PCHGenerator>(ci.getPreprocessor(), ci.getModuleCache(), kVmlinuxPchPath, sysroot,
                                                 buffer_, ci.getFrontendOpts().ModuleFileExtensions,
                                                 /*AllowASTWithErrors=*/false, /*IncludeTimestamps=*/false);
  }

 private:
  std::shared_ptr<clang::PCHBuffer> buffer_;
};

// --- the child → parent message -------------------------------------------------------
// u64 body length, then the body: magic, ok, error, diags, object. Integers are native
// endian: both ends are the same process image.
constexpr uint32_t kMagic = 0x43465042;  // "BPFC"
// A BPF object is kilobytes; this only bounds what a runaway child can make us hold.
constexpr uint64_t kMaxMessage = uint64_t{256} << 20;

class Writer {
 public:
  void u8(uint8_t v) { buf_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) { buf_.append(reinterpret_cast<const char *>(&v), sizeof(v)); }
  void u64(uint64_t v) { buf_.append(reinterpret_cast<const char *>(&v), sizeof(v)); }
  void bytes(const void *p, size_t n) {
    u64(n);
    buf_.append(static_cast<const char *>(p), n);
  }
  void str(const std::string &s) { bytes(s.data(), s.size()); }
  std::string framed() const {
    std::string out(sizeof(uint64_t), '\0');
    uint64_t n = buf_.size();
    std::memcpy(out.data(), &n, sizeof(n));
    return out + buf_;
  }

 private:
  std::string buf_;
};

class Reader {
 public:
  explicit Reader(const std::string &buf) : buf_(buf) {}
  bool u8(uint8_t &v) { return raw(&v, 1); }
  bool u32(uint32_t &v) { return raw(&v, sizeof(v)); }
  bool u64(uint64_t &v) { return raw(&v, sizeof(v)); }
  template <class T>
  bool bytes(T &out) {
    uint64_t n = 0;
    if (!u64(n) || n > buf_.size() - pos_) return false;
    out.assign(buf_.data() + pos_, buf_.data() + pos_ + n);
    pos_ += n;
    return true;
  }
  bool at_end() const { return pos_ == buf_.size(); }

 private:
  bool raw(void *p, size_t n) {
    if (n > buf_.size() - pos_) return false;
    std::memcpy(p, buf_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  const std::string &buf_;
  size_t pos_ = 0;
};

std::string encode(const CompileResult &r) {
  Writer w;
  w.u32(kMagic);
  w.u8(r.ok ? 1 : 0);
  w.str(r.error);
  w.u32(static_cast<uint32_t>(r.diags.size()));
  for (const auto &d : r.diags) {
    w.u8(static_cast<uint8_t>(d.severity));
    w.u32(d.line);
    w.u32(d.col);
    w.str(d.file);
    w.str(d.message);
    w.u32(d.end_col);
    w.u32(static_cast<uint32_t>(d.fixits.size()));
    for (const auto &f : d.fixits) {
      w.u32(f.line);
      w.u32(f.col);
      w.u32(f.end_col);
      w.str(f.text);
    }
  }
  w.bytes(r.object.data(), r.object.size());
  return w.framed();
}

// Parses the body (after the length prefix); nullopt when malformed.
std::optional<CompileResult> decode(const std::string &body) {
  Reader rd(body);
  CompileResult r;
  uint32_t magic = 0, ndiags = 0;
  uint8_t ok = 0;
  if (!rd.u32(magic) || magic != kMagic || !rd.u8(ok) || !rd.bytes(r.error) || !rd.u32(ndiags)) return std::nullopt;
  for (uint32_t i = 0; i < ndiags; ++i) {
    CompileDiag d;
    uint8_t sev = 0;
    uint32_t nfix = 0;
    if (!rd.u8(sev) || sev > static_cast<uint8_t>(Severity::Note) || !rd.u32(d.line) || !rd.u32(d.col) ||
        !rd.bytes(d.file) || !rd.bytes(d.message) || !rd.u32(d.end_col) || !rd.u32(nfix))
      return std::nullopt;
    for (uint32_t k = 0; k < nfix; ++k) {
      CompileFixIt f;
      if (!rd.u32(f.line) || !rd.u32(f.col) || !rd.u32(f.end_col) || !rd.bytes(f.text)) return std::nullopt;
      d.fixits.push_back(std::move(f));
    }
    d.severity = static_cast<Severity>(sev);
    r.diags.push_back(std::move(d));
  }
  if (!rd.bytes(r.object) || !rd.at_end()) return std::nullopt;
  r.ok = ok != 0;
  return r;
}

bool write_all(int fd, const std::string &data) {
  const char *p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

// --- the child --------------------------------------------------------------------------

// report_fatal_error would print and exit(1); tell the parent why instead.
void on_llvm_fatal_error(void *user_data, const char *reason, bool /*gen_crash_diag*/) {
  CompileResult r;
  r.error = std::string("LLVM fatal error: ") + reason;
  write_all(*static_cast<int *>(user_data), encode(r));
  ::_exit(70);
}

// Runs `action`; true when it produced its output without errors.
bool run_action(clang::CompilerInstance &ci, clang::FrontendAction &action) {
  return ci.ExecuteAction(action) && !ci.getDiagnostics().hasErrorOccurred();
}

CompileResult compile_in_this_process(const ChildJob &job) {
  LLVMInitializeBPFTargetInfo();
  LLVMInitializeBPFTarget();
  LLVMInitializeBPFTargetMC();
  LLVMInitializeBPFAsmPrinter();
  // Inline asm in templates (bpfbench_shared.h's bb_can_loop: `may_goto`) is assembled
  // by the BPF asm parser.
  LLVMInitializeBPFAsmParser();

  CompileResult r;
  std::unique_ptr<clang::DiagnosticConsumer> collect = collecting_consumer(r.diags);
  clang::DiagnosticConsumer &consumer = *collect;
  clang::DiagnosticsEngine arg_diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(),
                                     llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>(), &consumer,
                                     /*ShouldOwnClient=*/false);
  std::vector<const char *> argv;
  argv.reserve(job.args.size());
  for (const auto &a : job.args) argv.push_back(a.c_str());

  auto inv = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*inv, argv, arg_diags)) {
    if (r.diags.empty()) r.error = "clang rejected the compiler arguments";
    return r;
  }
  // Our consumer owns all reporting: no "N errors generated." summary on stderr.
  inv->getDiagnosticOpts().ShowCarets = false;
  if (job.main_text)
    inv->getPreprocessorOpts().addRemappedFile(
        job.main_name, llvm::MemoryBuffer::getMemBufferCopy(*job.main_text, job.main_name).release());

  clang::CompilerInstance ci;
  ci.setInvocation(inv);
  ci.createDiagnostics(&consumer, /*ShouldOwnClient=*/false);
  std::vector<std::string> refused;  // files clang was not let open (compiler/bpf/clang_vfs.hpp)
  ci.createFileManager(compile_fs(refused, job.files));
  bool ok = false;
  if (job.pch) {
    auto buffer = std::make_shared<clang::PCHBuffer>();
    PchToMemory action(buffer);
    ok = run_action(ci, action) && buffer->IsComplete;
    if (ok) r.object.assign(buffer->Data.begin(), buffer->Data.end());
  } else {
    llvm::SmallVector<char, 0> object;
    ci.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(object));
    clang::EmitObjAction action;
    ok = run_action(ci, action);
    r.object.assign(object.begin(), object.end());
  }
  for (const auto &why : refused)
    r.diags.push_back(
        CompileDiag{Severity::Error, "", 0, 0, "a compile may read regular .h files only: " + why, 0, {}});
  if (ok && !job.pch && !is_bpf_elf(r.object)) {
    ok = false;
    r.error = "clang produced no valid BPF object";
  }
  if (!ok) r.object.clear();
  r.ok = ok;
  return r;
}

// Runs in the compile child (util/limited_child.cpp set it up): compile, send the
// result, _exit (skipping LLVM's static destructors and the parent's atexit handlers).
[[noreturn]] void child_main(int fd, const ChildJob &job) {
  llvm::install_fatal_error_handler(on_llvm_fatal_error, &fd);
  // LLVM's allocation failures (safe_malloc) end the child like operator new's do.
  llvm::install_bad_alloc_error_handler([](void *, const char *, bool) { child_out_of_memory(); });
  CompileResult r = compile_in_this_process(job);
  ::_exit(write_all(fd, encode(r)) ? 0 : 71);
}

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// What the child's end means for the compile of `virtual_name`.
CompileResult result_of(const ChildEnd &end, const ChildLimits &limits, const std::string &virtual_name) {
  CompileResult r;
  const std::string what = "the compile of " + virtual_name;
  switch (end.how) {
  case ChildEnd::How::NotStarted: r.error = end.error; return r;
  case ChildEnd::How::Stopped:
    r.interrupted = true;
    r.error = "interrupted";
    return r;
  case ChildEnd::How::MemoryLimit:
    r.error = what + " exceeded its memory limit (" +
              (end.inherited_memory_limit
                   ? "bpfbench's own address-space limit, `ulimit -v`, of " + mib(end.address_space_limit)
                   : mib(limits.memory_bytes) + " of address space") +
              ")";
    return r;
  case ChildEnd::How::CpuLimit:
    r.error = what + " exceeded its CPU limit (" + std::to_string(end.cpu_limit) + " s" +
              (end.inherited_cpu_limit ? ", bpfbench's own, `ulimit -t`)" : ")");
    return r;
  case ChildEnd::How::WallLimit:
    r.error = what + " exceeded its time limit (" + std::to_string(limits.wall_seconds) +
              " s of wall-clock time; does it include a FIFO or a device?)";
    return r;
  case ChildEnd::How::Signaled: r.error = "clang crashed (signal " + std::to_string(end.code) + ")"; return r;
  case ChildEnd::How::Exited: break;
  }
  if (!end.error.empty()) {
    r.error = end.error;
    return r;
  }
  std::optional<CompileResult> got;
  uint64_t len = 0;
  if (end.output.size() >= sizeof(len)) {
    std::memcpy(&len, end.output.data(), sizeof(len));
    if (len == end.output.size() - sizeof(len)) got = decode(end.output.substr(sizeof(len)));
  }
  if (!got) {
    r.error = "clang child sent no valid result (exit status " + std::to_string(end.code) + ")";
    return r;
  }
  return std::move(*got);
}

// `what` names the compile in messages ("trigger-0.bpf.c", "vmlinux.h").
CompileResult compile_in_child(const ChildJob &job, const CompileOptions &opts, const std::string &what) {
  ChildEnd end =
      run_limited_child([&](int fd) { child_main(fd, job); }, opts.limits, opts.stop, kMaxMessage + sizeof(uint64_t));
  return result_of(end, opts.limits, what);
}

}  // namespace

std::string clang_version_string() { return "clang " CLANG_VERSION_STRING; }

std::vector<std::string> vmlinux_pch_args() { return cc1_args("-emit-pch", kVmlinuxHeaderPath, {}, true); }

CompileResult build_vmlinux_pch(const std::string &header, const CompileOptions &opts) {
  ChildJob job;
  job.args = vmlinux_pch_args();
  job.main_name = kVmlinuxHeaderPath;
  job.files = {{kVmlinuxHeaderPath, &header}};
  job.pch = true;
  return compile_in_child(job, opts, "vmlinux.h");
}

namespace {

// `pch` false: vmlinux.h is read as text (the `#include <vmlinux.h>` finds it), not
// included precompiled.
ChildJob object_job(const std::string &c_source, const CompileOptions &opts, bool pch = true) {
  ChildJob job;
  job.args = cc1_args("-emit-obj", opts.virtual_name, opts.extra_args, opts.vmlinux != nullptr, pch);
  job.main_name = opts.virtual_name;
  job.main_text = &c_source;
  if (opts.vmlinux) job.files = {{kVmlinuxHeaderPath, &opts.vmlinux->header}};
  if (opts.vmlinux && pch) job.files.push_back({kVmlinuxPchPath, &opts.vmlinux->pch});
  return job;
}

bool has_error(const CompileResult &r) {
  for (const auto &d : r.diags)
    if (d.severity == Severity::Error) return true;
  return false;
}

std::string object_key(const ChildJob &job, const std::string &c_source, const CompileOptions &opts) {
  return object_cache_key(c_source, clang_version_string(), job.args, opts.virtual_name,
                          opts.vmlinux ? opts.vmlinux->key : "");
}

ObjectCache cache_of(const CompileOptions &opts) {
  return ObjectCache(opts.cache_dir.empty() ? default_cache_dir() : opts.cache_dir);
}

}  // namespace

CompileResult cached_compile(const std::string &c_source, const CompileOptions &opts) {
  CompileResult r;
  r.cache_key = object_key(object_job(c_source, opts), c_source, opts);
  if (!opts.use_cache) return r;
  CacheLookup hit = cache_of(opts).load(r.cache_key);
  if (hit.object) {
    r.ok = true;
    r.object = std::move(*hit.object);
    r.cached = true;
  }
  // A file that failed its check is a miss; the store replaces it. A folder we may not
  // use is a miss too, and store_compiled stores nothing in it.
  r.cache_repaired = hit.problem;
  r.cache_warning = hit.refused;
  return r;
}

CompileResult compile_uncached(const std::string &c_source, const CompileOptions &opts) {
  CompileResult r = compile_in_child(object_job(c_source, opts), opts, opts.virtual_name);
  if (r.ok || !opts.vmlinux || !r.error.empty() || !has_error(r)) return r;
  // clang does no typo correction in a compile that includes a precompiled header (the
  // same C says "no member named 'utme' in 'struct task_struct'" with -include-pch and
  // adds "; did you mean 'utime'?", its fix-it and a note without it; clang 19). So a
  // compile that failed is done again with vmlinux.h's text, for clang's whole
  // diagnostics. It costs the parse of vmlinux.h, on errors only: 0.76 s of CPU against
  // 0.12 s with the PCH (plain clang-19 on the same C here, 6.18's 5.5 MB of BTF).
  CompileResult again = compile_in_child(object_job(c_source, opts, /*pch=*/false), opts, opts.virtual_name);
  if (!again.ok && again.error.empty() && has_error(again)) r.diags = std::move(again.diags);
  return r;
}

void store_compiled(CompileResult &r, CompileResult &&probe, const CompileOptions &opts) {
  r.cache_key = std::move(probe.cache_key);
  r.cache_repaired = std::move(probe.cache_repaired);
  r.cache_warning = std::move(probe.cache_warning);
  // Only clean compiles are cached: a hit carries no diagnostics, so caching a compile
  // with warnings would make them vanish on the second run. A failed store costs only
  // time: the compile stands, the caller may warn.
  if (opts.use_cache && r.cache_warning.empty() && r.ok && !r.cached && r.diags.empty())
    r.cache_warning = cache_of(opts).store(r.cache_key, r.object);
}

CompileResult compile_bpf(const std::string &c_source, const CompileOptions &opts) {
  CompileResult probe = cached_compile(c_source, opts);
  if (probe.ok) return probe;
  CompileResult r = compile_uncached(c_source, opts);
  store_compiled(r, std::move(probe), opts);
  return r;
}

}  // namespace bpfbench
