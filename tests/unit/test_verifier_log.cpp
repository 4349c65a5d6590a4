// Reading a refused program's verifier log (runtime/verifier_log.hpp): the complaint, its
// instruction and source line; how a refusal is printed (runtime/verify_point.hpp); the
// folder whole logs are kept in, and the one-line note ab's table gets. No kernel needed.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/verifier_log.hpp"
#include "runtime/verify_point.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using bpfbench::test::TempDir;

namespace {

// A log_level 1 log as this kernel (6.18) wrote it for inline C that dereferences a
// random number (kernel addresses shortened).
const char *kScalarLog = "arg#0 reference type('UNKNOWN ') size cannot be determined: -22\n"
                         "0: R1=ctx() R10=fp0\n"
                         "; return !pid_filter || (__u32)(bpf_get_current_pid_tgid() >> 32) == bb_tgid; @ "
                         "prog.bpf.c:33\n"
                         "0: (18) r1 = 0xffffc900       ; R1=map_value(map=bb_trigg.rodata,ks=4,vs=12,off=4)\n"
                         "2: (61) r1 = *(u32 *)(r1 +0)          ; R1=1\n"
                         "; if (bb_ours()) @ prog.bpf.c:41\n"
                         "9: (5e) if w1 != w0 goto pc+12        ; R0=2872 R1=2872\n"
                         "; if (*(volatile int *)(unsigned long)bpf_get_prandom_u32()) return; @ bad.bdsl:6\n"
                         "10: (85) call bpf_get_prandom_u32#7   ; R0=scalar()\n"
                         "11: (bc) w1 = w0                      ; R0=scalar() R1=scalar(smin=0)\n"
                         "12: (61) r1 = *(u32 *)(r1 +0)\n"
                         "R1 invalid mem access 'scalar'\n"
                         "processed 11 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 "
                         "mark_read 0\n";

std::string file_text(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("verifier log: the complaint, its instruction and its source line", "[verify]") {
  VerifierComplaint c = read_verifier_complaint(kScalarLog);
  CHECK(c.error == "R1 invalid mem access 'scalar'");
  CHECK(c.insn == "12: (61) r1 = *(u32 *)(r1 +0)");
  CHECK(c.source_file == "bad.bdsl");
  CHECK(c.source_line == 6);
  CHECK(c.source_text == "if (*(volatile int *)(unsigned long)bpf_get_prandom_u32()) return;");
}

TEST_CASE("verifier log: register state after the last instruction is not the complaint", "[verify]") {
  // An unrolled loop's pending branches (strncmp with a patched loop, cmp_str_len 4095).
  const std::string log = "; if (str[i] != target[i]) return; @ jumps.bdsl:11\n"
                          "8225: (71) r2 = *(u8 *)(r4 +0)        ; R2=97 R4=map_value(off=2056)\n"
                          "8226: (5e) if w3 != w2 goto pc+8193\n"
                          "The sequence of 8193 jumps is too complex.\n"
                          "processed 61470 insns (limit 1000000) max_states_per_insn 4 total_states 2668\n";
  VerifierComplaint c = read_verifier_complaint(log);
  CHECK(c.error == "The sequence of 8193 jumps is too complex.");
  CHECK(c.insn == "8226: (5e) if w3 != w2 goto pc+8193");
  CHECK(c.source_file == "jumps.bdsl");
  CHECK(c.source_line == 11);

  // State lines between the instruction and the complaint (a call's frames, a branch).
  const std::string calls = "7: (85) call pc+3\n"
                            "caller:\n"
                            " R10=fp0\n"
                            "callee:\n"
                            " frame1: R1=ctx() R10=fp0\n"
                            "from 7 to 11: frame1: R1=ctx()\n"
                            "frame pointer is read only\n";
  CHECK(read_verifier_complaint(calls).error == "frame pointer is read only");
  CHECK(read_verifier_complaint(calls).source_line == 0);  // no line info: no source line
}

TEST_CASE("verifier log: a refusal before any instruction is the last line that is not statistics", "[verify]") {
  VerifierComplaint c = read_verifier_complaint("func#0 @0\nback-edge from insn 5 to 3\nverification time 12 usec\n");
  CHECK(c.error == "back-edge from insn 5 to 3");
  CHECK(c.insn.empty());
  CHECK(read_verifier_complaint("").error.empty());
}

TEST_CASE("a refused point is printed at its .bdsl place, its source line and its log's file", "[verify]") {
  PointCheck c;
  c.status = PointCheck::Status::Refused;
  c.program = "bench_tp";
  c.log = kScalarLog;
  c.complaint = read_verifier_complaint(c.log);
  RefusalPlace where{"/tmp/x/bad.bdsl:4:3", "two", "B", "/tmp/x/bad.bdsl"};
  CHECK(format_refusal(where, c, {"bpfbench-verifier-logs/two.B.bench_tp.log", ""}) ==
        "/tmp/x/bad.bdsl:4:3: error: bench 'two' in B: the verifier refused program 'bench_tp': R1 invalid mem "
        "access 'scalar'\n"
        "/tmp/x/bad.bdsl:6: note: at instruction 12: (61) r1 = *(u32 *)(r1 +0)\n"
        "    if (*(volatile int *)(unsigned long)bpf_get_prandom_u32()) return;\n"
        "note: the verifier's whole log (13 lines): bpfbench-verifier-logs/two.B.bench_tp.log\n");
  where.side = "";
  CHECK(format_refusal(where, c, {"", "cannot write x: No space left on device"})
            .find("bench 'two': the verifier refused") != std::string::npos);
  CHECK(format_refusal(where, c, {"", "cannot write x: No space left on device"})
            .ends_with("note: the verifier's whole log was not kept: cannot write x: No space left on device\n"));

  // A load that failed outside the verifier (a map): one line, as `run` says it.
  PointCheck map;
  map.status = PointCheck::Status::Refused;
  map.reason = "load: cannot create map 'huge' (max_entries 1073741824): Cannot allocate memory (ENOMEM)";
  CHECK(format_refusal(where, map, {}) == "/tmp/x/bad.bdsl:4:3: error: bench 'two' failed: load: cannot create map "
                                          "'huge' (max_entries 1073741824): Cannot allocate memory (ENOMEM)\n");

  // Text from the .bdsl is escaped for the terminal.
  c.complaint.source_text = "x\x1b[2Jy";
  CHECK(format_refusal(where, c, {"p", ""}).find('\x1b') == std::string::npos);
}

TEST_CASE("ab's note for a refused load is one line naming the log's file", "[verify][ab]") {
  TempDir dir;
  VerifierLogFolder logs(dir.path.string());
  BpfError e(BpfPhase::Load, 13, "libbpf: prog 'bench_tp': BPF program load failed", "12: (61) ...\nR1 invalid");
  e.verifier_log = kScalarLog;
  const Error err(e);
  REQUIRE(err.message.find('\n') != std::string::npos);  // the message carries the log tail
  const std::string note = one_line_failure(err.message, err.bpf, "no-helper-4095", {"B"}, &logs);
  const fs::path file = dir.path / "bpfbench-verifier-logs" / "no-helper-4095.B.bench_tp.log";
  CHECK(note == "load: libbpf: prog 'bench_tp': BPF program load failed: Permission denied (EACCES) (verifier log: " +
                    file.string() + ")");
  CHECK(file_text(file) == kScalarLog);
  struct stat st {};
  REQUIRE(stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);  // the log shows kernel addresses
  // Without a folder, or without a verifier log: the first line alone.
  CHECK(one_line_failure(err.message, err.bpf, "x", {}, nullptr) ==
        "load: libbpf: prog 'bench_tp': BPF program load failed: Permission denied (EACCES)");
  CHECK(one_line_failure("setup: a\nb", std::nullopt, "x", {}, &logs) == "setup: a");
}

TEST_CASE("the verifier log folder replaces a planted symlink instead of writing through it", "[verify]") {
  TempDir dir;
  const fs::path folder = dir.path / "bpfbench-verifier-logs";
  fs::create_directories(folder);
  fs::permissions(folder, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  const std::string victim = dir.write("victim", "keep me\n");
  fs::create_symlink(victim, folder / "p.log");
  VerifierLogFolder logs(dir.path.string());
  Result<std::string> kept = logs.keep("p", "the log\n");
  REQUIRE(kept);
  CHECK(*kept == (folder / "p.log").string());
  CHECK(file_text(victim) == "keep me\n");
  CHECK_FALSE(fs::is_symlink(folder / "p.log"));
  CHECK(file_text(folder / "p.log") == "the log\n");
  // A log's stem is a file name, whatever the label holds.
  CHECK(log_file_stem("../x y/z", {"B", "bench_tp"}) == "_._x_y_z.B.bench_tp");
}

TEST_CASE("the verifier log folder is refused when another user may write it", "[verify]") {
  if (geteuid() != 0) {
    WARN("skipped: needs root (chown to another user)");
    return;
  }
  TempDir dir;
  const fs::path folder = dir.path / "bpfbench-verifier-logs";
  fs::create_directories(folder);
  REQUIRE(chown(folder.c_str(), 65534, 65534) == 0);
  VerifierLogFolder logs(dir.path.string());
  Result<std::string> kept = logs.keep("p", "the log\n");
  REQUIRE_FALSE(kept);
  CHECK(kept.error().message.find("owned by uid 65534") != std::string::npos);
  CHECK(fs::is_empty(folder));
}
