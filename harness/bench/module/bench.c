// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_bench - what a probe hit and a registration cost.
 *
 * Built out of tree against every benchmark kernel (ours and stock) and
 * driven by harness/bench/guest-bench.sh through debugfs, so it uses only
 * the public kprobes API.  Under QEMU with -icount shift=0 the guest clock
 * advances one nanosecond per instruction, so the times printed here are
 * instruction counts (plus the virtual time spent idle, waiting for RCU).
 *
 * /sys/kernel/debug/kprobes_bench/addrs takes the addresses of the other
 * probes' functions, one hex address a line (the guest script picks them
 * from /proc/kallsyms).  /sys/kernel/debug/kprobes_bench/ctl takes one
 * command a write:
 *
 *   load			parse what was written to addrs
 *   filter			register each address once, drop those that
 *				fail (counting them), unregister the rest
 *   setup LABEL KIND		time the unprobed loop on a fresh target, then
 *				probe it; KIND: stepped (pre+post), pre, ret
 *				(kretprobe), both (kprobe and kretprobe),
 *				adr (arm64: pre on an ADR, simulated)
 *   measure			time the probed loop, print the cost of a hit
 *   teardown			unregister what setup registered
 *   reg_batch LABEL N		register_kprobes() on the first N addresses
 *   unreg_batch LABEL		unregister_kprobes() of them
 *   reg_each LABEL N		register_kprobe() on each, one by one
 *   unreg_each LABEL		unregister_kprobe() of each, one by one
 *
 * Results are lines "kpbench LABEL VALUE" on the console: nanoseconds of
 * guest time for the register commands, per hit for measure.  The one by
 * one commands stop after each_budget_ms of guest time and then print
 * LABEL.done, how many they did (the rest is unregistered untimed).
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "targets.h"

static unsigned long hits = 100000;
module_param(hits, ulong, 0644);
MODULE_PARM_DESC(hits, "calls of the probed function per measurement");

static unsigned int each_budget_ms = 600000;
module_param(each_budget_ms, uint, 0644);
MODULE_PARM_DESC(each_budget_ms,
		 "guest time after which reg_each/unreg_each stop (ms)");

typedef int (*kpb_fn_t)(int x);

/*
 * Each setup takes a target never probed before, so that nothing a kernel
 * left behind on an earlier probe (a detour buffer, a pending
 * unoptimization) weighs on the next measurement.
 */
static const kpb_fn_t kpb_targets[] = {
	kpb_target0, kpb_target1, kpb_target2, kpb_target3,
	kpb_target4, kpb_target5, kpb_target6, kpb_target7,
	kpb_target8, kpb_target9, kpb_target10, kpb_target11,
	kpb_target12, kpb_target13, kpb_target14, kpb_target15,
};

#ifdef CONFIG_ARM64
/* Functions with an ADR, and the ADR, the probed instruction */
static const struct {
	kpb_fn_t fn;
	const u32 *adr;
} kpb_adr_targets[] = {
	{ kpb_target_adr0, kpb_target_adr0_adr },
	{ kpb_target_adr1, kpb_target_adr1_adr },
};
#endif

/* Everything below is serialized by kpb_lock (one ctl write at a time). */
static DEFINE_MUTEX(kpb_lock);

/* The hit measurement in progress (setup .. teardown) */
static struct {
	char label[48];
	kpb_fn_t fn;
	u64 base_ns;
	bool has_kp, has_rp;
	struct kprobe kp;
	struct kretprobe rp;
} kpb_hit;
static unsigned int kpb_next_target, kpb_next_adr_target;
static unsigned long kpb_nr_pre, kpb_nr_post, kpb_nr_ret;

/* The other probes: their addresses and their struct kprobe */
#define KPB_ADDRS_BUF_SIZE	SZ_1M
static char *kpb_addrs_buf;
static size_t kpb_addrs_len;
static unsigned long *kpb_addrs;
static unsigned int kpb_nr_addrs;
static struct kprobe *kpb_many;
static struct kprobe **kpb_many_ptrs;
static unsigned int kpb_nr_registered;	/* kpb_many[0 .. this) are live */

static int kpb_sink;

static int kpb_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpb_nr_pre++;
	return 0;
}

static void kpb_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	kpb_nr_post++;
}

static int kpb_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpb_nr_ret++;
	return 0;
}

/* The handler of the other probes: they only have to be there. */
static int kpb_nop(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static void kpb_result(const char *label, const char *suffix, u64 value)
{
	pr_info("kpbench %s%s %llu\n", label, suffix, value);
}

/* Guest time of @hits calls of @fn, with interrupts as they are. */
static noinline u64 kpb_loop(kpb_fn_t fn)
{
	unsigned long i;
	int acc = 0;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < hits; i++) {
		OPTIMIZER_HIDE_VAR(fn);
		acc = fn(acc);
	}
	t0 = ktime_get_ns() - t0;
	WRITE_ONCE(kpb_sink, acc);
	return t0;
}

static void kpb_teardown(void)
{
	if (kpb_hit.has_kp)
		unregister_kprobe(&kpb_hit.kp);
	if (kpb_hit.has_rp)
		unregister_kretprobe(&kpb_hit.rp);
	kpb_hit.has_kp = false;
	kpb_hit.has_rp = false;
	kpb_hit.fn = NULL;
}

/*
 * A fresh target for @kind, or an ERR_PTR(); *@addr is where to probe it:
 * its entry, or its ADR.
 */
static kpb_fn_t kpb_fresh_target(const char *kind, kprobe_opcode_t **addr)
{
	kpb_fn_t fn;

	if (!strcmp(kind, "adr")) {
#ifdef CONFIG_ARM64
		if (kpb_next_adr_target >= ARRAY_SIZE(kpb_adr_targets))
			return ERR_PTR(-ENOSPC);
		fn = kpb_adr_targets[kpb_next_adr_target].fn;
		*addr = (kprobe_opcode_t *)kpb_adr_targets[kpb_next_adr_target++].adr;
		return fn;
#else
		return ERR_PTR(-EOPNOTSUPP);
#endif
	}
	if (kpb_next_target >= ARRAY_SIZE(kpb_targets))
		return ERR_PTR(-ENOSPC);
	fn = kpb_targets[kpb_next_target++];
	*addr = (kprobe_opcode_t *)fn;
	return fn;
}

static int kpb_setup(const char *label, const char *kind)
{
	bool want_kp, want_rp, want_post;
	kprobe_opcode_t *addr;
	kpb_fn_t fn;
	int ret;

	want_post = !strcmp(kind, "stepped");
	want_kp = want_post || !strcmp(kind, "pre") || !strcmp(kind, "both") ||
		  !strcmp(kind, "adr");
	want_rp = !strcmp(kind, "ret") || !strcmp(kind, "both");
	if (!want_kp && !want_rp)
		return -EINVAL;
	if (kpb_hit.fn)
		return -EBUSY;
	fn = kpb_fresh_target(kind, &addr);
	if (IS_ERR(fn))
		return PTR_ERR(fn);

	memset(&kpb_hit, 0, sizeof(kpb_hit));
	strscpy(kpb_hit.label, label, sizeof(kpb_hit.label));
	kpb_hit.base_ns = kpb_loop(fn);

	if (want_kp) {
		kpb_hit.kp.addr = addr;
		kpb_hit.kp.pre_handler = kpb_pre;
		if (want_post)
			kpb_hit.kp.post_handler = kpb_post;
		ret = register_kprobe(&kpb_hit.kp);
		if (ret)
			return ret;
		kpb_hit.has_kp = true;
	}
	if (want_rp) {
		kpb_hit.rp.kp.addr = addr;
		kpb_hit.rp.handler = kpb_ret;
		ret = register_kretprobe(&kpb_hit.rp);
		if (ret) {
			kpb_teardown();
			return ret;
		}
		kpb_hit.has_rp = true;
	}
	kpb_hit.fn = fn;
	pr_info("kpbench-info %s probes %pS\n", label, addr);
	return 0;
}

static int kpb_measure(void)
{
	const char *label = kpb_hit.label;
	u64 ns;

	if (!kpb_hit.fn)
		return -EINVAL;
	kpb_nr_pre = 0;
	kpb_nr_post = 0;
	kpb_nr_ret = 0;
	ns = kpb_loop(kpb_hit.fn);
	/* Per hit; a probe that costs nothing (or less) prints 0. */
	kpb_result(label, "", ns > kpb_hit.base_ns ?
		   div64_u64(ns - kpb_hit.base_ns, hits) : 0);
	kpb_result(label, ".base_ns", kpb_hit.base_ns);
	kpb_result(label, ".probed_ns", ns);
	/* Every call must have run every handler: anything else is a miss. */
	if (kpb_hit.has_kp && kpb_nr_pre != hits)
		kpb_result(label, ".missed", hits - kpb_nr_pre);
	if (kpb_hit.kp.post_handler && kpb_nr_post != hits)
		kpb_result(label, ".missed_post", hits - kpb_nr_post);
	if (kpb_hit.has_rp && kpb_nr_ret != hits)
		kpb_result(label, ".missed_ret", hits - kpb_nr_ret);
	return 0;
}

/* Parse the "addrs" file: one hex address a line. */
static int kpb_load(void)
{
	unsigned int n = 0, max = 0;
	char *s, *line;

	if (kpb_nr_registered)
		return -EBUSY;
	for (s = kpb_addrs_buf; s < kpb_addrs_buf + kpb_addrs_len; s++)
		max += *s == '\n';
	kvfree(kpb_addrs);
	kvfree(kpb_many);
	kvfree(kpb_many_ptrs);
	kpb_addrs = kvcalloc(max, sizeof(*kpb_addrs), GFP_KERNEL);
	kpb_many = kvcalloc(max, sizeof(*kpb_many), GFP_KERNEL);
	kpb_many_ptrs = kvcalloc(max, sizeof(*kpb_many_ptrs), GFP_KERNEL);
	kpb_nr_addrs = 0;
	if (!kpb_addrs || !kpb_many || !kpb_many_ptrs)
		return -ENOMEM;

	kpb_addrs_buf[kpb_addrs_len] = '\0';
	s = kpb_addrs_buf;
	while ((line = strsep(&s, "\n")) && n < max) {
		if (!*line)
			continue;
		if (kstrtoul(line, 16, &kpb_addrs[n]))
			return -EINVAL;
		n++;
	}
	kpb_nr_addrs = n;
	kpb_addrs_len = 0;
	kpb_result("addrs.loaded", "", n);
	return 0;
}

/* Fresh struct kprobes on the first @n addresses (kprobes writes to them). */
static void kpb_many_init(unsigned int n)
{
	unsigned int i;

	memset(kpb_many, 0, n * sizeof(*kpb_many));
	for (i = 0; i < n; i++) {
		kpb_many[i].addr = (kprobe_opcode_t *)kpb_addrs[i];
		kpb_many[i].pre_handler = kpb_nop;
		kpb_many_ptrs[i] = &kpb_many[i];
	}
}

/* Keep only the addresses that take a probe; count and name the others. */
static int kpb_filter(void)
{
	unsigned int i, good = 0, failed = 0;
	int ret;

	if (kpb_nr_registered)
		return -EBUSY;
	kpb_many_init(kpb_nr_addrs);
	for (i = 0; i < kpb_nr_addrs; i++) {
		ret = register_kprobe(&kpb_many[i]);
		if (ret) {
			if (failed++ < 20)
				pr_info("kpbench-info skip %ps: %d\n",
					(void *)kpb_addrs[i], ret);
			continue;
		}
		kpb_many_ptrs[good] = &kpb_many[i];
		kpb_addrs[good++] = kpb_addrs[i];
		cond_resched();
	}
	unregister_kprobes(kpb_many_ptrs, good);
	kpb_nr_addrs = good;
	kpb_result("addrs.failed", "", failed);
	kpb_result("addrs.usable", "", good);
	return 0;
}

static int kpb_reg_batch(const char *label, unsigned int n)
{
	u64 t0;
	int ret;

	if (kpb_nr_registered)
		return -EBUSY;
	if (n > kpb_nr_addrs)
		return -ERANGE;
	kpb_many_init(n);
	t0 = ktime_get_ns();
	ret = register_kprobes(kpb_many_ptrs, n);
	t0 = ktime_get_ns() - t0;
	if (ret)
		return ret;
	kpb_nr_registered = n;
	kpb_result(label, "", t0);
	return 0;
}

static int kpb_unreg_batch(const char *label)
{
	u64 t0;

	t0 = ktime_get_ns();
	unregister_kprobes(kpb_many_ptrs, kpb_nr_registered);
	t0 = ktime_get_ns() - t0;
	kpb_nr_registered = 0;
	kpb_result(label, "", t0);
	return 0;
}

static int kpb_reg_each(const char *label, unsigned int n)
{
	u64 budget = (u64)each_budget_ms * NSEC_PER_MSEC;
	u64 t0, t;
	unsigned int i;
	int ret;

	if (kpb_nr_registered)
		return -EBUSY;
	if (n > kpb_nr_addrs)
		return -ERANGE;
	kpb_many_init(n);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		ret = register_kprobe(&kpb_many[i]);
		if (ret) {
			unregister_kprobes(kpb_many_ptrs, i);
			kpb_nr_registered = 0;
			return ret;
		}
		kpb_nr_registered = i + 1;
		t = ktime_get_ns() - t0;
		if (t >= budget)
			break;
	}
	t = ktime_get_ns() - t0;
	kpb_result(label, "", t);
	kpb_result(label, ".done", kpb_nr_registered);
	kpb_result(label, ".of", n);
	return 0;
}

static int kpb_unreg_each(const char *label)
{
	u64 budget = (u64)each_budget_ms * NSEC_PER_MSEC;
	unsigned int i, n = kpb_nr_registered;
	u64 t0, t;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		unregister_kprobe(&kpb_many[i]);
		t = ktime_get_ns() - t0;
		if (t >= budget) {
			i++;
			break;
		}
	}
	t = ktime_get_ns() - t0;
	kpb_result(label, "", t);
	kpb_result(label, ".done", i);
	kpb_result(label, ".of", n);
	/* Over budget: the rest goes at once, untimed. */
	if (i < n)
		unregister_kprobes(kpb_many_ptrs + i, n - i);
	kpb_nr_registered = 0;
	return 0;
}

static int kpb_command(char *cmd)
{
	char verb[16], label[48], arg[16];
	unsigned int n;
	int argc;

	argc = sscanf(cmd, "%15s %47s %15s", verb, label, arg);
	if (argc < 1)
		return -EINVAL;
	if (!strcmp(verb, "load"))
		return kpb_load();
	if (!strcmp(verb, "filter"))
		return kpb_filter();
	if (!strcmp(verb, "measure"))
		return kpb_measure();
	if (!strcmp(verb, "teardown")) {
		kpb_teardown();
		return 0;
	}
	if (argc < 2)
		return -EINVAL;
	if (!strcmp(verb, "unreg_batch"))
		return kpb_unreg_batch(label);
	if (!strcmp(verb, "unreg_each"))
		return kpb_unreg_each(label);
	if (argc < 3)
		return -EINVAL;
	if (!strcmp(verb, "setup"))
		return kpb_setup(label, arg);
	if (kstrtouint(arg, 10, &n))
		return -EINVAL;
	if (!strcmp(verb, "reg_batch"))
		return kpb_reg_batch(label, n);
	if (!strcmp(verb, "reg_each"))
		return kpb_reg_each(label, n);
	return -EINVAL;
}

static ssize_t kpb_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[96];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	mutex_lock(&kpb_lock);
	ret = kpb_command(buf);
	mutex_unlock(&kpb_lock);
	if (ret)
		pr_info("kpbench-info command '%s' failed: %d\n", strim(buf),
			ret);
	return ret ? ret : count;
}

static const struct file_operations kpb_ctl_fops = {
	.owner = THIS_MODULE,
	.write = kpb_ctl_write,
};

/* Appends: the writer may split lines across writes as it likes. */
static ssize_t kpb_addrs_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	ssize_t ret = -ENOSPC;

	mutex_lock(&kpb_lock);
	if (count < KPB_ADDRS_BUF_SIZE - kpb_addrs_len) {
		ret = count;
		if (copy_from_user(kpb_addrs_buf + kpb_addrs_len, ubuf, count))
			ret = -EFAULT;
		else
			kpb_addrs_len += count;
	}
	mutex_unlock(&kpb_lock);
	return ret;
}

static const struct file_operations kpb_addrs_fops = {
	.owner = THIS_MODULE,
	.write = kpb_addrs_write,
};

static struct dentry *kpb_dir;

static int __init kpb_init(void)
{
	kpb_addrs_buf = vmalloc(KPB_ADDRS_BUF_SIZE);
	if (!kpb_addrs_buf)
		return -ENOMEM;
	kpb_dir = debugfs_create_dir("kprobes_bench", NULL);
	debugfs_create_file("ctl", 0200, kpb_dir, NULL, &kpb_ctl_fops);
	debugfs_create_file("addrs", 0200, kpb_dir, NULL, &kpb_addrs_fops);
	kpb_result("sizeof.kprobe", "", sizeof(struct kprobe));
	kpb_result("sizeof.kretprobe", "", sizeof(struct kretprobe));
	return 0;
}

static void __exit kpb_exit(void)
{
	debugfs_remove_recursive(kpb_dir);
	mutex_lock(&kpb_lock);
	kpb_teardown();
	if (kpb_nr_registered)
		unregister_kprobes(kpb_many_ptrs, kpb_nr_registered);
	kpb_nr_registered = 0;
	mutex_unlock(&kpb_lock);
	kvfree(kpb_addrs);
	kvfree(kpb_many);
	kvfree(kpb_many_ptrs);
	vfree(kpb_addrs_buf);
}

module_init(kpb_init);
module_exit(kpb_exit);
MODULE_DESCRIPTION("kprobes benchmark: cost of hits and registrations");
MODULE_LICENSE("GPL");
