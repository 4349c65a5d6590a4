/* Fidelity baseline: a minimal libbpf tool running one trigger variant the way bpfbench
 * does (getpgid or uprobe-target loop on one producer thread, 1 s samples of per-CPU
 * counters), printing the kernel bench's summary line. Our own code.
 *
 *   baseline OBJ VARIANT WARMUP_S DURATION_S     VARIANT: base tp rawtp uprobe-nop */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NR_SLOTS 256
struct slot {
	unsigned long long value;
} __attribute__((aligned(128)));

/* A global function whose first instruction is a nop, for the uprobe variant. */
__asm__(".text\n.globl baseline_target_nop\n.type baseline_target_nop, @function\n"
	".p2align 4\nbaseline_target_nop:\n nop\n ret\n"
	".size baseline_target_nop, .-baseline_target_nop\n");
void baseline_target_nop(void);

static atomic_bool stop;
static _Alignas(128) _Atomic unsigned long long user_ops;
static int use_uprobe;

static void *producer(void *arg)
{
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (use_uprobe)
			baseline_target_nop();
		else
			syscall(__NR_getpgid);
		atomic_store_explicit(&user_ops,
				      atomic_load_explicit(&user_ops, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	}
	return NULL;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s OBJ base|tp|rawtp|uprobe-nop WARMUP_S DURATION_S\n", argv[0]);
		return 2;
	}
	const char *variant = argv[2];
	int warmup = atoi(argv[3]), duration = atoi(argv[4]);
	const char *fn = !strcmp(variant, "tp") ? "base_tp" : !strcmp(variant, "rawtp") ? "base_rawtp"
			 : !strcmp(variant, "uprobe-nop") ? "base_uprobe" : NULL;
	use_uprobe = fn && !strcmp(fn, "base_uprobe");

	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj)
		return 1;
	struct bpf_map *rodata = bpf_object__find_map_by_name(obj, ".rodata");
	size_t sz;
	unsigned int *tgid = (unsigned int *)bpf_map__initial_value(rodata, &sz); /* only my_tgid */
	*tgid = getpid();
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, fn && !strcmp(bpf_program__name(prog), fn));
	if (bpf_object__load(obj))
		return 1;
	struct bpf_link *link = NULL;
	if (fn) {
		prog = bpf_object__find_program_by_name(obj, fn);
		if (use_uprobe) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = "baseline_target_nop");
			link = bpf_program__attach_uprobe_opts(prog, -1, "/proc/self/exe", 0, &uo);
		} else {
			link = bpf_program__attach(prog);
		}
		if (!link)
			return 1;
	}
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	struct slot *slots = mmap(NULL, (bpf_map__value_size(bss) + 4095) & ~4095UL,
				  PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(bss), 0);
	if (slots == MAP_FAILED)
		return 1;

	pthread_t th;
	pthread_create(&th, NULL, producer, NULL);
	double rates[3600];
	int n = 0;
	unsigned long long last_user = 0;
	long long t0 = now_ns(), prev = t0;
	for (int i = 0; i < warmup + duration; i++) {
		struct timespec ts = {(t0 + (i + 1) * 1000000000LL) / 1000000000LL,
				      (t0 + (i + 1) * 1000000000LL) % 1000000000LL};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		long long t = now_ns();
		unsigned long long hits = 0;
		if (fn) {
			for (int s = 0; s < NR_SLOTS; s++)
				hits += __atomic_exchange_n(&slots[s].value, 0, __ATOMIC_RELAXED);
		} else {
			unsigned long long u = atomic_load(&user_ops);
			hits = u - last_user;
			last_user = u;
		}
		if (i >= warmup)
			rates[n++] = hits / 1e6 / ((t - prev) / 1e9);
		prev = t;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	double mean = 0, sd = 0;
	for (int i = 0; i < n; i++)
		mean += rates[i] / n;
	for (int i = 0; n > 1 && i < n; i++)
		sd += (rates[i] - mean) * (rates[i] - mean) / (n - 1);
	printf("Summary: hits %8.3lf \u00b1 %5.3lfM/s (%7.3lfM/prod)\n", mean, sqrt(sd), mean);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return 0;
}
