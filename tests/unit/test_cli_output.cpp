// What every command prints is checked (cli/text_output.hpp): stdout or stderr on a full
// device is exit 2 with a message, for every command that prints; a terminal gets no
// control characters from labels, family folders or results files.
#include <catch2/catch.hpp>

#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "fault_support.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "test_runtime_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench::test;

namespace {

const std::string kStdoutFull = "bpfbench: error: cannot write to standard output: No space left on device\n";

// bpfbench ARGS with stdout (or stderr, `fd` 2) on /dev/full.
ProcessResult run_into_full(const std::vector<std::string> &args, int fd = 1, int timeout_s = 120) {
  std::vector<std::string> argv{"/bin/sh", "-c", "exec \"$0\" \"$@\" " + std::to_string(fd) + ">/dev/full", kBin};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, timeout_s);
}

std::string describe_command(const std::vector<std::string> &args) {
  std::string s = "bpfbench";
  for (const auto &a : args) s += " " + a;
  return s;
}

// Each command: stdout on /dev/full is exit 2 and the one message, never exit 0, never an
// exception's text ("internal error: cannot write to file" was fmt's).
void check_all_into_full(const std::vector<std::vector<std::string>> &commands) {
  for (const auto &args : commands) {
    ProcessResult r = run_into_full(args);
    INFO(describe_command(args) << "\nstderr: " << r.err.substr(0, 2000));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(kStdoutFull) != std::string::npos);
    CHECK(r.err.find("internal error") == std::string::npos);
    CHECK_FALSE(has_exception_text(r.err));
  }
}

// bpfbench ARGS with stdin, stdout and stderr on a new pseudo-terminal: all the terminal got.
std::string run_on_terminal(const std::vector<std::string> &args, int &status) {
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<char *> argv{const_cast<char *>(kBin.c_str())};
    for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  std::string out;
  for (;;) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 60000) <= 0) {
      kill(pid, SIGKILL);
      break;
    }
    char buf[4096];
    ssize_t n = ::read(master, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EIO: the child's side is closed
    out.append(buf, size_t(n));
  }
  waitpid(pid, &status, 0);
  ::close(master);
  return out;
}

// What in `s` a terminal would act on, as "1b 07 c2-9b ...": C0 controls but the line ends
// the terminal itself writes (CR LF) and tabs, DEL, the C1 controls (U+0080-U+009F), and a
// byte >= 0x80 that starts no UTF-8 sequence (a lone 0x9b is the 8-bit CSI).
std::string terminal_controls(const std::string &s) {
  std::string found;
  auto hex = [](unsigned c) {
    static constexpr char kDigits[] = "0123456789abcdef";
    return std::string{kDigits[c >> 4], kDigits[c & 15]};
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0u;
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f) found += hex(c) + " ";
    if (c == 0xc2 && next >= 0x80 && next < 0xa0) found += "c2-" + hex(next) + " ";
    const bool continuation = c >= 0x80 && c < 0xc0;
    if (continuation && (i == 0 || static_cast<unsigned char>(s[i - 1]) < 0x80)) found += hex(c) + " ";
  }
  return found;
}

// The online CPUs as the kernel writes them ("0-1").
std::string online_cpus_text() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

TEST_CASE("stdout on a full device: every command that prints says so and exits 2, never 0", "[cli][output]") {
  TempDir d;
  const std::string f = d.write("t.bdsl", "bench trigger as \"{prog}\" < prog [base, rawtp]; warmup 0s; duration 1s >\n");
  const std::string results = kSrc + "/tests/fuzz/corpus_results/sweep.json";
  check_all_into_full({{"list"},
                       {"list", "--json"},
                       {"plan", f},
                       {"plan", "--json", f},
                       {"plan", "--dump=ast", f},
                       {"emit", f},
                       {"check", f},
                       {"check", "--compile", f},
                       {"compare", results, results},
                       {"compare", "--format", "json", results, results},
                       {"doctor", "--json", "--quick"},
                       {"bench", "--list"},
                       {"bench", "xdp-lb", "--list-scenarios"},
                       {"--help"},
                       {"run", "--help"},
                       {"--version"},
                       {"--generate", "man"}});
}

TEST_CASE("stderr on a full device: a command that succeeds exits 2, its stdout whole", "[cli][output]") {
  // `check` of a file with a warning: the warning is the text that cannot be written.
  ProcessResult r = run_into_full({"check", kSrc + "/tests/cases/ok_ringbuf_where.bdsl"}, 2);
  CHECK(r.exit_code == 2);
  CHECK(r.out == kSrc + "/tests/cases/ok_ringbuf_where.bdsl: ok, 6 points\n");
}

TEST_CASE("stdout on a full device: the commands that load or run say so and exit 2", "[runtime][cli][output]") {
  BB_REQUIRE_ROOT();
  TempDir d;
  const std::string f = d.write("t.bdsl", "bench trigger as \"{prog}\" < prog [base, rawtp]; warmup 0s; duration 1s >\n");
  const std::string one = d.write("one.bdsl", "bench trigger as \"t\" < prog rawtp; warmup 0s; duration 1s >\n");
  check_all_into_full({{"probe"},
                       {"probe", "--json"},
                       {"plan", "--facts", "--json", one},
                       {"emit", "--dump=xlated", one},
                       {"run", "-q", "--calibration", "off", f},
                       {"ab", one, "--a", "prog=tp", "--b", "prog=rawtp", "--max-pairs", "3", "--format", "json"}});

  // The results file is still written whole; only the text was lost.
  const std::string json = (d.path / "r.json").string();
  ProcessResult r = run_into_full({"run", "--calibration", "off", f, "--json", json});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(kStdoutFull) != std::string::npos);
  CHECK(read_text(json).find("\"complete\": true") != std::string::npos);

  // stderr full (the progress lines): exit 2, the report on stdout whole.
  r = run_into_full({"run", "--calibration", "off", f}, 2);
  CHECK(r.exit_code == 2);
  const size_t first = r.out.find("Summary: hits"), last = r.out.rfind("Summary: hits");
  CHECK(first != std::string::npos);
  CHECK(r.out.find("Summary: hits", first + 1) == last);  // two summaries, one per point
  CHECK(last != first);
}

TEST_CASE("a terminal gets no control characters from labels, family folders or results files",
          "[cli][output][terminal]") {
  TempDir d;
  // A family folder from someone else: ESC, BEL and the C1 CSI in its description (list)
  // and in a comment of its template (emit prints the C).
  const std::string fixture = kSrc + "/tests/fixtures/families/tplparam/";
  std::string manifest = read_text(fixture + "family.json");
  manifest.replace(manifest.find("\"tplparam\""), 10, "\"escfam\"");
  const std::string desc = "\"description\": \"";
  manifest.replace(manifest.find(desc) + desc.size(), 0, "esc \\u001b]0;pwned\\u0007 csi \\u009b2J ");
  d.write("fam/escfam/family.json", manifest);
  d.write("fam/escfam/prog.bpf.c", "/* \x1b[2J\x1b]0;pwned\x07 */\n" + read_text(fixture + "prog.bpf.c"));
  // A label with the C1 CSI (U+009B) and a lone 0x9b byte, which the .bdsl reader lets through.
  const std::string f = d.write("f.bdsl", "bench escfam as \"x\xc2\x9b"
                                          "31m\x9b-{slots}\" < slots 8 >\n");
  const std::string fam = (d.path / "fam").string();
  for (const std::vector<std::string> &args : {std::vector<std::string>{"list", "--templates", fam},
                                               {"emit", "--templates", fam, f},
                                               {"plan", "--templates", fam, f}}) {
    int status = 0;
    std::string seen = run_on_terminal(args, status);
    INFO(describe_command(args) << "\n" << seen.substr(0, 3000));
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(seen.find("escfam") != std::string::npos);
    CHECK(terminal_controls(seen).empty());
  }
  // Not a terminal: the text is passed as it is (a file or a pipe keeps the bytes).
  ProcessResult r = run_process({kBin, "list", "--templates", fam});
  CHECK(r.out.find("esc \x1b]0;pwned\x07") != std::string::npos);
}

TEST_CASE("a CPU this machine does not have is an error before anything runs", "[cli][cpus]") {
  const std::string online = online_cpus_text();
  REQUIRE_FALSE(online.empty());
  if (online.find("4095") != std::string::npos) return;  // a 4096-CPU machine has it
  TempDir d;
  const std::string f = d.write("a.bdsl", "bench trigger < prog rawtp; prod_affinity \"4095\"; warmup 0s; duration 1s >\n");
  const std::string located = f + ":1:43-48: error: prod_affinity \"4095\": CPU 4095 is not online on this machine "
                                  "(online: " + online + ")\n";
  for (const char *cmd : {"check", "plan", "run"}) {
    ProcessResult r = run_process({kBin, cmd, f});
    INFO(cmd << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(located) == 0);
    CHECK(r.out.empty());  // run: nothing set up, loaded or measured
  }
  // On the command line: refused as the options are read, for every command that takes one.
  const std::string g = d.write("g.bdsl", "bench trigger < prog rawtp; warmup 0s; duration 1s >\n");
  const std::string refused = "bpfbench: error: --prod-affinity: CPU 4095 is not online on this machine (online: " +
                              online + ")\n";
  for (const std::vector<std::string> &args :
       {std::vector<std::string>{"run", g, "--prod-affinity", "4095"},
        {"check", g, "--prod-affinity", "4095"},
        {"bench", "trig-base", "--prod-affinity", "4095"},
        {"ab", g, "--a", "prog=tp", "--b", "prog=rawtp", "--prod-affinity", "4095"}}) {
    ProcessResult r = run_process([&] {
      std::vector<std::string> argv{kBin};
      argv.insert(argv.end(), args.begin(), args.end());
      return argv;
    }());
    INFO(describe_command(args));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(refused) == 0);
    CHECK(r.out.empty());
  }
  ProcessResult r = run_process({kBin, "check", g, "--cons-affinity", "0,4094-4095"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bpfbench: error: --cons-affinity: CPUs 4094-4095 are not online on this machine") == 0);
}

TEST_CASE("ab: the same setting twice in --a or --b is an error naming both", "[cli][ab]") {
  TempDir d;
  const std::string f = d.write("a.bdsl", "bench trigger as \"{prog}\" < prog rawtp >\n");
  ProcessResult r = run_process({kBin, "ab", f, "--a", "prog=tp", "--a", "prog=rawtp", "--b", "prog=base"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: --a prog=tp and --a prog=rawtp both set 'prog': give each setting once\n");
  r = run_process({kBin, "ab", f, "--a", "prog=tp", "--b", " producers = 2", "--b", "producers=3"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "bpfbench: error: --b  producers = 2 and --b producers=3 both set 'producers': give each setting once\n");
}

TEST_CASE("emit of a file without a bench says so", "[cli]") {
  TempDir d;
  for (const std::string text : {"", "# only a comment\nlet x = 1;\n"}) {
    const std::string f = d.write("e.bdsl", text);
    ProcessResult r = run_process({kBin, "emit", f});
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bpfbench: error: " + f + ": the file has no bench\n");
  }
  const std::string f = d.write("b.bdsl", "bench trigger < prog rawtp >\n");
  ProcessResult r = run_process({kBin, "emit", f, "--bench", "nosuch"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "bpfbench: error: no bench matches --bench nosuch\n");
}

TEST_CASE("plan and emit print a label's control characters as spaces, not only on a terminal", "[cli]") {
  TempDir d;
  // `\n` is a .bdsl string escape; U+009B (the C1 CSI) the reader lets through as it is.
  const std::string f = d.write("l.bdsl", "bench trigger as \"a\\nb\xc2\x9b"
                                          "c-{prog}\" < prog rawtp >\n");
  ProcessResult r = run_process({kBin, "plan", f});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("] a b c-rawtp ") != std::string::npos);
  r = run_process({kBin, "emit", f});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("// ==== trigger-0.bpf.c: point 0 'a b c-rawtp' of bench 0 trigger (" + f + ":1:1): prog=rawtp ") !=
        std::string::npos);
}
