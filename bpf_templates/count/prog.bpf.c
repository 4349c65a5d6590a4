/* No BPF program runs in this family: its producers only count in user space (the
 * harness's floor, the kernel bench's count-global and count-local). The manifest needs
 * a template; this one is never loaded (no program, no counter). */

char _license[] SEC("license") = "GPL";
