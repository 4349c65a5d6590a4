// The one program an interleaved ab point attaches to the measured hook: it tail-calls the
// active load through a one-slot program array, so an event costs one extra call however
// many loads wait (an attached but idle copy cost ~23 ns per event here: docs/ab.md).
#pragma once

#include <string>

#include "compiler/family/manifest.hpp"
#include "util/error.hpp"
#include "runtime/bpf_object.hpp"

namespace bpfbench {

// Whether `section` is spelled with the characters a SEC name in C may hold unescaped
// (letters, digits, _ . / : + - ?).
bool plain_section(const std::string &section);
// The dispatcher's BPF C for a program in `section` (plain_section; "?" allowed).
std::string dispatcher_source(const std::string &section);

class Dispatcher {
 public:
  // Compiles, loads and attaches the dispatcher on `prog`'s hook (as run_point attaches
  // the program itself); the slot starts empty: events then run nothing.
  Result<> attach(const ProgramSpec &prog, const std::string &uprobe_binary, bool verbose);
  // Makes `prog_fd` the program every event tail-calls; the kernel refuses a program of
  // another type or hook (the message says so).
  Result<> activate(int prog_fd);
  // Empties the slot (before the loads it points at go).
  void clear();
  int fd() const { return fd_; }  // the dispatcher program (its run-time stats cover the callee)

 private:
  BpfObject obj_;
  int map_fd_ = -1, fd_ = -1;
};

}  // namespace bpfbench
