// USDT probe sites in the bpfbench binary (SystemTap's sys/sdt.h, Debian package
// systemtap-sdt-dev): each function holds one probe, provider "bpfbench". sys/sdt.h puts
// a 1-byte nop at the probe address; the second site is the 5-byte nop instead, which
// x86-64 kernels with uprobe optimization turn into a trampoline call (the kernel bench's
// usdt-nop and usdt-nop5). Without sys/sdt.h the functions exist but hold no probe, and
// attaching says so.
#include "runtime/uprobe_targets.hpp"

#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#define BB_HAVE_SDT 1
#else
#define BB_HAVE_SDT 0
#endif

extern "C" {
__attribute__((noinline, used)) void bpfbench_usdt_target_nop(void) {
#if BB_HAVE_SDT
  STAP_PROBE(bpfbench, usdt_nop);
#endif
  asm volatile("");
}

#if BB_HAVE_SDT && defined(__x86_64__)
// sys/sdt.h expands _SDT_NOP where a probe is used, so this one probe gets the 5-byte nop.
#undef _SDT_NOP
// The bytes of `nopl 0x0(%rax,%rax,1)` (the assembler would shorten the mnemonic to 4
// bytes), one `.byte` each: the macro argument may hold no comma.
#define _SDT_NOP                                                                                                       \
  .byte 0x0f;                                                                                                          \
  .byte 0x1f;                                                                                                          \
  .byte 0x44;                                                                                                          \
  .byte 0x00;                                                                                                          \
  .byte 0x00
#endif
__attribute__((noinline, used)) void bpfbench_usdt_target_nop5(void) {
#if BB_HAVE_SDT
  STAP_PROBE(bpfbench, usdt_nop5);
#endif
  asm volatile("");
}
}

namespace bpfbench {

bool usdt_targets_built() { return BB_HAVE_SDT != 0; }

}  // namespace bpfbench
