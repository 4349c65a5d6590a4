// The uprobe targets are written in assembly on x86-64 so their first instruction is
// exactly what the benchmark name promises, whatever the compiler flags (-fcf-protection
// would otherwise put an endbr64 first, and -O2 decides frame setup on its own). They are
// global STT_FUNC symbols with a size, so libbpf finds them by name in .symtab/.dynsym.
// `push` is the kernel bench's uprobe_target_push as gcc -O2 builds it: a frame, a call to
// an empty function, return 1.
#include "runtime/uprobe_targets.hpp"

#if defined(__x86_64__)
#define BB_TARGET(name, body)                                                                                          \
  ".globl " name "\n"                                                                                                  \
  ".type " name ", @function\n"                                                                                        \
  ".p2align 4\n" name ":\n" body ".size " name ", .-" name "\n"

asm(".pushsection .text\n" BB_TARGET("bpfbench_uprobe_target_nop", "  nop\n  ret\n")
        BB_TARGET("bpfbench_uprobe_target_push",
                  "  push %rbp\n  mov %rsp, %rbp\n  call bpfbench_uprobe_callee\n  mov $1, %eax\n  pop %rbp\n  ret\n")
            BB_TARGET("bpfbench_uprobe_callee", "  ret\n")
                BB_TARGET("bpfbench_uprobe_target_ret", "  ret\n") ".popsection\n");
#else
// Elsewhere: noinline + an asm barrier keeps the calls and the functions alive.
extern "C" {
__attribute__((noinline, used)) void bpfbench_uprobe_target_nop(void) { asm volatile("nop"); }
__attribute__((noinline, used)) void bpfbench_uprobe_target_push(void) {
  volatile int frame = 0;
  (void)frame;
}
__attribute__((noinline, used)) void bpfbench_uprobe_target_ret(void) { asm volatile(""); }
}
#endif
