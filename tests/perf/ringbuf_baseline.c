/* Fidelity baseline for bpfbench's rb-custom / pb-custom back-to-back consumers: one
 * thread on CPU 0 triggers a batch (getpgid), waits with epoll, reads every record from
 * the mmap'ed ring and triggers the next; the main thread samples the count every second
 * and prints the kernel bench's summary line. Minimal and hand-written; our own code.
 *
 *   ringbuf_baseline OBJ rb|pb WARMUP_S DURATION_S */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RB_SIZE (512 * 1024)
#define PB_PAGES 128
#define MAX_CPUS 64

static atomic_bool stop;
static _Alignas(128) _Atomic unsigned long long consumed;
static int use_pb, epfd, map_fd, nr_cpus;
static size_t page;
static unsigned long *cons_pos, *prod_pos;
static char *rb_data;
static struct perf_event_mmap_page *pb_hdr[MAX_CPUS];

static void add(unsigned long long n)
{
	atomic_store_explicit(&consumed, atomic_load_explicit(&consumed, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static void rb_drain(void)
{
	unsigned long cons = __atomic_load_n(cons_pos, __ATOMIC_ACQUIRE), prod, n = 0;

	while ((prod = __atomic_load_n(prod_pos, __ATOMIC_ACQUIRE)) > cons) {
		while (cons < prod) {
			unsigned int len = __atomic_load_n((unsigned int *)(rb_data + (cons & (RB_SIZE - 1))),
							   __ATOMIC_ACQUIRE);
			if (len & (1u << 31))
				goto out;
			n++;
			cons += ((len & ~(3u << 30)) + 8 + 7) & ~7ul;
		}
		__atomic_store_n(cons_pos, cons, __ATOMIC_RELEASE);
	}
out:
	__atomic_store_n(cons_pos, cons, __ATOMIC_RELEASE);
	add(n);
}

static void pb_drain(int cpu)
{
	struct perf_event_mmap_page *h = pb_hdr[cpu];
	char *data = (char *)h + page;
	unsigned long long head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE), tail = h->data_tail, n = 0;

	while (tail != head) {
		struct perf_event_header *e = (void *)(data + (tail & (PB_PAGES * page - 1)));

		n += e->type == PERF_RECORD_SAMPLE;
		tail += e->size;
	}
	__atomic_store_n(&h->data_tail, tail, __ATOMIC_RELEASE);
	add(n);
}

static void *consumer(void *arg)
{
	struct epoll_event ev[MAX_CPUS];
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		syscall(__NR_getpgid);
		int n = epoll_wait(epfd, ev, MAX_CPUS, 100);
		for (int i = 0; i < n; i++) {
			if (use_pb)
				pb_drain((int)ev[i].data.u32);
			else
				rb_drain();
		}
	}
	return NULL;
}

static int setup_pb(void)
{
	for (int cpu = 0; cpu < nr_cpus && cpu < MAX_CPUS; cpu++) {
		struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
					    .config = PERF_COUNT_SW_BPF_OUTPUT,
					    .sample_type = PERF_SAMPLE_RAW, .sample_period = 1,
					    .wakeup_events = 1};
		int fd = syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -1;
		pb_hdr[cpu] = mmap(NULL, (PB_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (pb_hdr[cpu] == MAP_FAILED || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) ||
		    bpf_map_update_elem(map_fd, &cpu, &fd, BPF_ANY))
			return -1;
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (unsigned)cpu};
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev))
			return -1;
	}
	return 0;
}

static int setup_rb(void)
{
	cons_pos = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	prod_pos = mmap(NULL, page + 2 * RB_SIZE, PROT_READ, MAP_SHARED, map_fd, page);
	if (cons_pos == MAP_FAILED || prod_pos == MAP_FAILED)
		return -1;
	rb_data = (char *)prod_pos + page;
	struct epoll_event ev = {.events = EPOLLIN};
	return epoll_ctl(epfd, EPOLL_CTL_ADD, map_fd, &ev);
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
		fprintf(stderr, "usage: %s OBJ rb|pb WARMUP_S DURATION_S\n", argv[0]);
		return 2;
	}
	use_pb = !strcmp(argv[2], "pb");
	int warmup = atoi(argv[3]), duration = atoi(argv[4]);
	page = (size_t)sysconf(_SC_PAGESIZE);
	nr_cpus = libbpf_num_possible_cpus();

	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj)
		return 1;
	struct bpf_map *ro = bpf_object__find_map_by_name(obj, ".rodata");
	size_t sz;
	unsigned int *vals = (unsigned int *)bpf_map__initial_value(ro, &sz); /* my_tgid only */
	vals[0] = (unsigned)getpid();
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, use_pb ? "pb_prog" : "rb_prog");
	bpf_program__set_autoload(prog, true);
	if (bpf_object__load(obj) || !bpf_program__attach(prog))
		return 1;
	map_fd = bpf_map__fd(bpf_object__find_map_by_name(obj, use_pb ? "pb" : "rb"));
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if ((use_pb ? setup_pb() : setup_rb()) < 0) {
		perror("setup");
		return 1;
	}

	pthread_t t;
	pthread_create(&t, NULL, consumer, NULL);
	double rates[1000];
	int n = 0;
	long long t0 = now_ns(), prev = t0;
	unsigned long long last = atomic_load(&consumed);
	for (int it = 0; it < warmup + duration && n < 1000; it++) {
		long long deadline = t0 + (it + 1) * 1000000000LL;
		struct timespec ts = {deadline / 1000000000LL, deadline % 1000000000LL};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		long long now = now_ns();
		unsigned long long c = atomic_load(&consumed);
		if (it >= warmup)
			rates[n++] = (double)(c - last) / 1e6 / ((double)(now - prev) / 1e9);
		last = c;
		prev = now;
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	double mean = 0, var = 0;
	for (int i = 0; i < n; i++)
		mean += rates[i] / n;
	for (int i = 0; i < n; i++)
		var += (rates[i] - mean) * (rates[i] - mean);
	printf("Summary: hits %8.3lf \u00b1 %5.3lfM/s\n", mean, n > 1 ? sqrt(var / (n - 1)) : 0.0);
	bpf_object__close(obj);
	return 0;
}
