// The uprobe targets are written in assembly on x86-64 so their first instruction is
// exactly what the benchmark name promises, whatever the compiler flags (-fcf-protection
// would otherwise put an endbr64 first, and -O2 decides frame setup on its own). They are
// global STT_FUNC symbols with a size, so libbpf finds them by name in .symtab/.dynsym.
// `nop5` starts with the 5-byte nop `nopl 0x0(%rax,%rax,1)` (0f 1f 44 00 00), the one
// instruction x86-64 kernels with uprobe optimization (6.18+) replace by a call into a
// uprobe trampoline instead of a breakpoint; elsewhere it is a plain nop target.
// `push` is the kernel bench's uprobe_target_push as gcc -O2 builds it: a frame, a call to
// an empty function, return 1.
#include "runtime/uprobe_targets.hpp"

#include <cstring>

#if defined(__x86_64__)
#define BB_TARGET(name, body)                                                                                          \
  ".globl " name "\n"                                                                                                  \
  ".type " name ", @function\n"                                                                                        \
  ".p2align 4\n" name ":\n" body ".size " name ", .-" name "\n"

asm(".pushsection .text\n" BB_TARGET("bpfbench_uprobe_target_nop", "  nop\n  ret\n")
        BB_TARGET("bpfbench_uprobe_target_push",
                  "  push %rbp\n  mov %rsp, %rbp\n  call bpfbench_uprobe_callee\n  mov $1, %eax\n  pop %rbp\n  ret\n")
            BB_TARGET("bpfbench_uprobe_callee", "  ret\n") BB_TARGET("bpfbench_uprobe_target_ret", "  ret\n")
                BB_TARGET("bpfbench_uprobe_target_nop5",
                          "  .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n  ret\n") ".popsection\n");
#else
// Elsewhere: noinline + an asm barrier keeps the calls and the functions alive.
extern "C" {
__attribute__((noinline, used)) void bpfbench_uprobe_target_nop(void) { asm volatile("nop"); }
__attribute__((noinline, used)) void bpfbench_uprobe_target_push(void) {
  volatile int frame = 0;
  (void)frame;
}
__attribute__((noinline, used)) void bpfbench_uprobe_target_ret(void) { asm volatile(""); }
__attribute__((noinline, used)) void bpfbench_uprobe_target_nop5(void) { asm volatile("nop"); }
}
#endif

namespace bpfbench {

void *uprobe_target_address(const char *name) {
  struct Entry {
    const char *name;
    void (*fn)();
  };
  static constexpr Entry kTargets[] = {
      {"bpfbench_uprobe_target_nop", bpfbench_uprobe_target_nop},
      {"bpfbench_uprobe_target_push", bpfbench_uprobe_target_push},
      {"bpfbench_uprobe_target_ret", bpfbench_uprobe_target_ret},
      {"bpfbench_uprobe_target_nop5", bpfbench_uprobe_target_nop5},
  };
  for (const auto &t : kTargets)
    if (std::strcmp(name, t.name) == 0) return reinterpret_cast<void *>(t.fn);
  return nullptr;
}

}  // namespace bpfbench
