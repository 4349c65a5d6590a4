// What bpfbench reads and writes at paths it did not choose: the one input opener, the one
// output opener, RLIMIT_FSIZE; then the real binary on each of those (no root needed
// except for mknod, and for the run under RLIMIT_FSIZE).
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <tuple>

#include "test_paths.hpp"
#include "util/input_file.hpp"
#include "fault_support.hpp"
#include "run_process.hpp"
#include "util/atomic_file.hpp"
#include "test_runtime_support.hpp"
#include "result_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using bpfbench::test::run_process;
using bpfbench::test::TempDir;

namespace {

using bpfbench::test::kBin;
using bpfbench::test::kSrc;

std::string read_error(const fs::path &p, uint64_t limit = kMaxTextInputBytes) {
  auto in = read_input_file(p.string(), limit);
  return in ? "read " + std::to_string(in->data.size()) + " bytes" : in.error().message;
}

// A character device node like /dev/null (1,3) inside `dir`; false when not root.
bool make_null_device(const fs::path &p) { return ::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0; }

bool is_char_device(const fs::path &p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

std::vector<std::string> tmp_files(const fs::path &dir) {
  std::vector<std::string> out;
  for (const auto &e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

}  // namespace

TEST_CASE("read_input_file: regular files only, each refusal says what the path is", "[io]") {
  TempDir d;
  CHECK(read_error(d.write("a.bdsl", "let x = 1;\n")) == "read 11 bytes");
  CHECK(read_error(d.path) == "is a directory");
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  auto start = std::chrono::steady_clock::now();
  CHECK(read_error(d.path / "fifo") == "is a FIFO, not a regular file");  // and no wait for a writer
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK(read_error("/dev/zero") == "is a character device, not a regular file");  // never opened
  CHECK(read_error(d.path / "missing") == "No such file or directory");
  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string sock = (d.path / "sock").string();
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  REQUIRE(::bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
  CHECK(read_error(sock) == "is a socket, not a regular file");
  ::close(s);
  fs::create_symlink("/dev/null", d.path / "link");  // followed, like an open would
  CHECK(read_error(d.path / "link") == "is a character device, not a regular file");
}

TEST_CASE("read_input_file: sizes are bounded per kind, also for files of unknown size", "[io]") {
  TempDir d;
  fs::path big = d.write("big", "");
  fs::resize_file(big, kMaxTextInputBytes + 1);  // sparse
  CHECK(read_error(big) == "is larger than the 16 MiB limit");
  CHECK(read_error(big, kMaxObjectInputBytes) == "read 16777217 bytes");
  // /proc files say size 0: read up to the limit, refused past it.
  CHECK(read_error("/proc/self/status").rfind("read ", 0) == 0);
  CHECK(read_error("/proc/self/status", 16) == "is larger than the 16 bytes limit");
  CHECK(format_byte_limit(kMaxKernelImageBytes) == "1 GiB");
}

TEST_CASE("check_output_paths: no device, FIFO, directory, input or duplicate target", "[io]") {
  TempDir d;
  fs::path input = d.write("in.bdsl", "x");
  std::vector<std::string> inputs = {input.string()};
  auto check = [&](std::vector<OutputRequest> outs) { return test::error_text(check_output_paths(outs, inputs)); };
  CHECK(check({{"--json", (d.path / "new.json").string()}}) == "");
  CHECK(check({{"--json", ""}}) == "--json '': empty file name");
  CHECK(check({{"--json", d.path.string()}}) == "--json '" + d.path.string() + "': is a directory");
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  CHECK(check({{"--csv", (d.path / "fifo").string()}}) ==
        "--csv '" + (d.path / "fifo").string() +
            "': is a FIFO; bpfbench writes only regular files and will not replace it");
  CHECK_THAT(check({{"--json", (d.path / "no/x.json").string()}}), Catch::EndsWith("/no' does not exist"));
  // An input, however it is spelled: another path to it, a symlink to it.
  std::string other_spelling = (d.path / "." / "in.bdsl").string();
  CHECK(check({{"--json", other_spelling}}) == "--json '" + other_spelling + "': is an input of this command ('" +
                                                   input.string() + "'); refusing to overwrite it");
  fs::create_symlink(input, d.path / "link.json");
  CHECK_THAT(check({{"--json", (d.path / "link.json").string()}}), Catch::Contains("is an input of this command"));
  // Two outputs naming one file, existing or not yet.
  std::string a = (d.path / "r.out").string(), b = (d.path / "sub/../r.out").string();
  fs::create_directories(d.path / "sub");
  CHECK(check({{"--json", a}, {"--csv", b}}) ==
        "--json '" + a + "' and --csv '" + b + "' are the same file: each output needs its own");
  d.write("r.out", "old");
  CHECK_THAT(check({{"--json", a}, {"--markdown", b}}), Catch::Contains("are the same file"));
  CHECK(check({{"--json", a}, {"--csv", (d.path / "r.csv").string()}}) == "");
}

TEST_CASE("write_file_atomic: a device at the target is never replaced", "[io]") {
  TempDir d;
  fs::path dev = d.path / "null";
  if (!make_null_device(dev)) {
    WARN("skipped: mknod needs root");
    return;
  }
  CHECK(test::expect_error(write_file_atomic(dev.string(), "data")) ==
        "cannot write " + dev.string() +
            ": is a character device; bpfbench writes only regular files and will not replace it");
  CHECK(is_char_device(dev));
  CHECK(tmp_files(d.path).empty());
}

TEST_CASE("write_file_atomic under RLIMIT_FSIZE: File too large, no temporary file left", "[io]") {
  TempDir d;
  std::string path = (d.path / "r.json").string();
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // as cli/main.cpp does
    rlimit lim{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    std::string why = test::error_text(write_file_atomic(path, std::string(1 << 20, 'x')));
    ::_exit(why == "cannot write " + path + ": File too large" ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_FALSE(fs::exists(path));
  CHECK(tmp_files(d.path).empty());
}

// --- the binary ------------------------------------------------------------------------

TEST_CASE("bpfbench on non-regular and oversized inputs: what the path is, exit 2, no hang", "[io][cli]") {
  TempDir d;
  const std::string ok = kSrc + "/tests/cases/ok_units.bdsl";
  auto r = run_process({kBin, "check", "--templates", "/etc/passwd", ok}, 30);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: template dir '/etc/passwd' is not a directory (it is a regular file)\n");

  fs::create_directories(d.path / "tpl/fam/family.json");
  r = run_process({kBin, "check", "--templates", (d.path / "tpl").string(), ok}, 30);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "error: " + (d.path / "tpl/fam/family.json").string() + ": cannot read the manifest: is a directory\n");

  REQUIRE(::mkfifo((d.path / "f.bdsl").c_str(), 0600) == 0);
  r = run_process({kBin, "check", (d.path / "f.bdsl").string()}, 10);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: cannot open '" + (d.path / "f.bdsl").string() + "': is a FIFO, not a regular file\n");

  r = run_process({kBin, "compare", (d.path / "f.bdsl").string(), ok}, 10);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: cannot read " + (d.path / "f.bdsl").string() + ": is a FIFO, not a regular file\n");
  r = run_process({kBin, "plot", d.path.string(), "-o", (d.path / "x.svg").string()}, 10);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: cannot read " + d.path.string() + ": is a directory\n");

  fs::path dev = d.path / "zero.bdsl";
  if (make_null_device(dev)) {
    r = run_process({kBin, "check", dev.string()}, 10);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "error: cannot open '" + dev.string() + "': is a character device, not a regular file\n");
  }
}

TEST_CASE("bpfbench refuses outputs that are devices, FIFOs, inputs or one file twice, before running", "[io][cli]") {
  TempDir d;
  fs::path bdsl = d.write("t.bdsl", "bench trigger < prog base; warmup 0s; duration 1s >\n");
  const std::string before = "bench trigger < prog base; warmup 0s; duration 1s >\n";
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {kBin, "run", "-q", bdsl.string()});
    return run_process(args, 30);
  };
  auto r = run({"--json", bdsl.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: --json '" + bdsl.string() + "': is an input of this command ('" + bdsl.string() +
                     "'); refusing to overwrite it\n");
  CHECK(test::read_text(bdsl) == before);
  CHECK(r.out.empty());  // nothing ran

  std::string same = (d.path / "same.out").string(), same2 = (d.path / "./same.out").string();
  r = run({"--json", same, "--csv", same2});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: --json '" + same + "' and --csv '" + same2 +
                     "' are the same file: each output needs its own\n");

  REQUIRE(::mkfifo((d.path / "out.fifo").c_str(), 0600) == 0);
  r = run({"--csv", (d.path / "out.fifo").string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("out.fifo': is a FIFO; bpfbench writes only regular files"));
  CHECK(fs::is_fifo(d.path / "out.fifo"));

  fs::path dev = d.path / "null";
  if (make_null_device(dev)) {
    r = run({"--json", dev.string()});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("null': is a character device; bpfbench writes only regular files"));
    CHECK(is_char_device(dev));
    fs::path svg = d.path / "null.svg";
    fs::rename(dev, svg);
    r = run_process({kBin, "plot", (d.path / "r.json").string(), "-o", svg.string()}, 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bpfbench: error: -o '" + svg.string() +
                       "': is a character device; bpfbench writes only regular files and will not replace it\n");
    CHECK(is_char_device(svg));
  }
  CHECK(tmp_files(d.path).empty());
}

TEST_CASE("run under RLIMIT_FSIZE: File too large like a full disk, exit 1, no temporary files", "[runtime][io][cli]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  fs::path bdsl = d.write("t.bdsl", "bench trigger < prog base; warmup 0s; duration 1s >\n");
  std::string json = (d.path / "r.json").string();
  // 1 KiB: smaller than the results JSON and the compiled object; a fresh cache dir so
  // the object is stored (and fails to be) in this run.
  auto r = run_process({"/bin/sh", "-c", "ulimit -f 2 && exec env XDG_CACHE_HOME=\"$0/cache\" \"$@\"", d.path.string(),
                        kBin, "run", "-q", bdsl.string(), "--json", json},
                       60);
  INFO(r.out << r.err);
  CHECK(r.signal == 0);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("bpfbench: error: cannot write " + json + ": File too large"));
  CHECK_THAT(r.err, Catch::Contains("File too large); every run compiles again"));
  CHECK_THAT(r.out, Catch::Contains("Summary: hits"));
  CHECK_FALSE(test::has_exception_text(r.err));
  CHECK(tmp_files(d.path).empty());
}

TEST_CASE("inline C may #include regular .h files only: no FIFO wait, no line of /etc/passwd", "[io][cli][compile]") {
  TempDir d;
  REQUIRE(::mkfifo((d.path / "fifo.h").c_str(), 0600) == 0);
  fs::create_symlink("/etc/passwd", d.path / "passwd.h");
  // Section names stay the same on every run of the test (the temp dir's name does not).
  for (const auto &[name, header, why] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"fifo", (d.path / "fifo.h").string(), "' is a FIFO, not a regular file"},
           {"passwd", "/etc/passwd", "' is not a .h file"},
           {"symlink", (d.path / "passwd.h").string(), "' resolves to '/etc/passwd', not a .h file"}}) {
    DYNAMIC_SECTION(name) {
      fs::path bdsl = d.write("c.bdsl", "bench trigger < prog rawtp; code globals { #include \"" + header + "\" } >\n");
      auto r = run_process({kBin, "check", "--compile", bdsl.string()}, 30);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::Contains("error: a compile may read regular .h files only: '" + header + why));
      CHECK(r.err.find("root") == std::string::npos);
    }
  }
}
