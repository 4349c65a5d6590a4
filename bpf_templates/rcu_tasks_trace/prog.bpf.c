/* RCU Tasks Trace under task local storage churn, after the kernel's
 * local-storage-tasks-trace bench. Setup forks nr_procs sleeping tasks; every getpgid()
 * of any task creates and deletes that task's local storage, which queues
 * call_rcu_tasks_trace work. The runtime samples the rcu_tasks_trace kthread's CPU ticks
 * (`kthread_stime:` metric). Program gp-latency runs the same churn and times each grace
 * period with fentry on the RCU functions (skipped where trampolines are missing); one
 * kthread runs both hooks, so a plain global carries the start time. Emitted around this
 * text (docs/families.md): the shared header and bb_tgid. */

char _license[] SEC("license") = "GPL";

struct task_struct;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, int);
} task_storage SEC(".maps");

struct bb_counter bb_hits[BB_MAX_CPUS] = {};
struct bb_counter bb_gp[BB_MAX_CPUS] = {};
struct bb_counter bb_gp_us[BB_MAX_CPUS] = {};
struct bb_counter bb_gp_ns[BB_MAX_CPUS] = {};

__u64 gp_start_ns = 0;
/* `latency_hist`: each grace period, pregp_step to postgp, in a log2 histogram (ns). */
{{#latency_hist}}
struct bb_hist bb_lat_hist[BB_MAX_CPUS] = {};
#define BB_LAT_HIST bb_lat_hist
{{/latency_hist}}
{{^latency_hist}}
#define BB_LAT_HIST BB_NO_HIST
{{/latency_hist}}

SEC("?tp/syscalls/sys_enter_getpgid")
int bench_churn(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	int init = 0;

	bpf_task_storage_get(&task_storage, task, &init, BPF_LOCAL_STORAGE_GET_F_CREATE);
	bpf_task_storage_delete(&task_storage, task);
	bb_inc(bb_hits);
	return 0;
}

SEC("?fentry/rcu_tasks_trace_pregp_step")
int bench_pregp(void *ctx)
{
	gp_start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("?fentry/rcu_tasks_trace_postgp")
int bench_postgp(void *ctx)
{
	__u64 start = gp_start_ns, ns;

	if (!start)
		return 0;
	/* BB_TIME_BEGIN ran in bench_pregp (one kthread runs both): the end half here. */
	ns = BB_TIME_END(start);
	bb_add(bb_gp_ns, ns);
	bb_add(bb_gp_us, ns / 1000);
	bb_inc(bb_gp);
	gp_start_ns = 0;
	return 0;
}
