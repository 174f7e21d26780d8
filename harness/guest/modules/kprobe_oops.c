// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_oops: a task that dies of an oops inside a probe hit does not
 * leave kprobes stuck on its CPU (harness/check-oops.sh).
 *
 * Writing a CPU number to /sys/kernel/debug/kprobe_oops/run starts a
 * kernel thread on that CPU that dies inside an optimized probe hit: a
 * pre_handler that stores through NULL, in the detour.  The write succeeds
 * once the thread has died, fails with EIO if the thread came back, with
 * ETIMEDOUT if neither happened within ten seconds, and with EAGAIN if the
 * point was not optimized in that time (debug.kprobes-optimization).  The
 * kernel log has the oops.
 *
 * On arm64, writing a CPU number to .../undef does the same with a stepped
 * copy instead: a kprobe with a post_handler on an instruction undefined
 * at EL1 (an MRS of SCR_EL3), which dies in its copy; the kernel log names
 * the probed instruction first ("undef: probe on ..."), and the oops must
 * report that instruction, not the copy's.  With pointer authentication
 * and FEAT_FPAC, .../fpac does it with the FPAC exception of a stepped
 * AUTIASP whose signed return address a pre_handler changed ("fpac: probe
 * on ..."); the file is there only where the CPU has FEAT_FPAC.
 *
 * Hits in exception context are not tried: on x86 an oops in the int3
 * handler panics (it runs as an NMI), and on arm64 one in the BRK handler
 * dies inside the debug exception, as BUG() does: its entry code never
 * leaves its context-tracking state (the next idle warns), and with
 * pseudo-NMIs PSTATE.I stays set, so that the CPU takes no interrupt again
 * (the test boot hung), kprobes or not.
 *
 * Writing anything to .../verify then calls a probed function on every
 * online CPU, through its breakpoint: the write fails with EIO unless each
 * call ran the probe's handlers, none counted as missed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/task.h>
#include <linux/workqueue.h>
#ifdef CONFIG_ARM64_PTR_AUTH_KERNEL
#include <asm/cpufeature.h>
#include <asm/sysreg.h>
#endif

#define KPO_DEADLINE	(10 * HZ)

static int kpo_sink;
static int *kpo_null;

/* The function the oopsing probe sits on, long enough for a jump */
static noinline void kpo_target(void)
{
	WRITE_ONCE(kpo_sink, READ_ONCE(kpo_sink) * 3 + 1);
	WRITE_ONCE(kpo_sink, READ_ONCE(kpo_sink) ^ 0x55);
}

/* The function verify probes */
static noinline void kpo_count_target(void)
{
	WRITE_ONCE(kpo_sink, READ_ONCE(kpo_sink) + 7);
}

/* A bug in a handler; through a pointer the compiler cannot see is NULL */
static int kpo_oops_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(*READ_ONCE(kpo_null), 1);
	return 0;
}

static void kpo_nop_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
}

static atomic_t kpo_hits;

static int kpo_count_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpo_hits);
	return 0;
}

static DEFINE_MUTEX(kpo_lock);
static struct kprobe kpo_kp;
static bool kpo_returned;

static int kpo_thread(void *arg)
{
	void (*call)(void) = arg;

	call();
	WRITE_ONCE(kpo_returned, true);
	/* Before do_exit() sets PF_EXITING; pairs with kpo_run()'s smp_rmb() */
	smp_wmb();
	return 0;
}

/* kpo_kp on kpo_target, optimized; 0 or an error */
static int kpo_setup_optimized(void)
{
	unsigned long deadline = jiffies + KPO_DEADLINE;
	int ret;

	memset(&kpo_kp, 0, sizeof(kpo_kp));
	kpo_kp.addr = (kprobe_opcode_t *)kpo_target;
	kpo_kp.pre_handler = kpo_oops_pre;
	ret = register_kprobe(&kpo_kp);
	if (ret) {
		pr_err("register_kprobe(): %d\n", ret);
		return ret;
	}
	while (!kprobe_optimized(&kpo_kp) && time_before(jiffies, deadline))
		msleep(20);
	if (!kprobe_optimized(&kpo_kp)) {
		pr_err("the probe is not optimized\n");
		unregister_kprobe(&kpo_kp);
		return -EAGAIN;
	}
	return 0;
}

/*
 * Call @call on @cpu in a thread, and wait for it to die; kpo_kp is
 * registered, and is unregistered before returning.
 */
static int kpo_run(unsigned int cpu, void (*call)(void))
{
	unsigned long deadline;
	struct task_struct *t;
	int ret;

	WRITE_ONCE(kpo_returned, false);
	t = kthread_create(kpo_thread, call, "kprobe_oops/%u", cpu);
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto out;
	}
	kthread_bind(t, cpu);
	get_task_struct(t);
	wake_up_process(t);
	deadline = jiffies + KPO_DEADLINE;
	/* Dead, or came back: both end in do_exit() */
	while (!(READ_ONCE(t->flags) & PF_EXITING) && time_before(jiffies, deadline))
		msleep(20);
	/* Pairs with the smp_wmb() in kpo_thread() */
	smp_rmb();
	if (READ_ONCE(kpo_returned)) {
		pr_err("the thread came back\n");
		ret = -EIO;
	} else if (!(READ_ONCE(t->flags) & PF_EXITING)) {
		pr_err("the thread is still running\n");
		/* It runs our text: stay loaded */
		__module_get(THIS_MODULE);
		ret = -ETIMEDOUT;
	} else {
		pr_info("the thread died on CPU %u\n", cpu);
		ret = 0;
	}
	put_task_struct(t);
out:
	/* Still called if the thread hangs; its hits are then only missed */
	unregister_kprobe(&kpo_kp);
	return ret;
}

#ifdef CONFIG_ARM64
/* Reads SCR_EL3, which is undefined below EL3; kpo_undef_insn is the MRS */
extern const u32 kpo_undef_insn[];

static noinline void kpo_undef(void)
{
	unsigned long v;

	asm volatile("kpo_undef_insn:\n\tmrs %0, s3_6_c1_c1_0" : "=r" (v));
	WRITE_ONCE(kpo_sink, v);
}

static int kpo_nop_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/* kpo_kp on the MRS of kpo_undef(), stepped; 0 or an error */
static int kpo_setup_undef(void)
{
	int ret;

	memset(&kpo_kp, 0, sizeof(kpo_kp));
	kpo_kp.addr = (kprobe_opcode_t *)kpo_undef_insn;
	kpo_kp.pre_handler = kpo_nop_pre;
	/* So that the MRS is stepped, not boosted */
	kpo_kp.post_handler = kpo_nop_post;
	ret = register_kprobe(&kpo_kp);
	if (ret) {
		pr_err("register_kprobe(): %d\n", ret);
		return ret;
	}
	pr_info("undef: probe on %pS\n", kpo_kp.addr);
	return 0;
}
#endif

#ifdef CONFIG_ARM64_PTR_AUTH_KERNEL
#define KPO_AUTIASP	0xd50323bf
#define KPO_RET		0xd65f03c0
#define KPO_MAX_INSNS	64
/* A bit of the authentication code of a kernel address (VA_BITS <= 48) */
#define KPO_PAC_BIT	BIT_ULL(50)

static noinline void kpo_leaf(void)
{
	WRITE_ONCE(kpo_sink, READ_ONCE(kpo_sink) + 3);
}

/* Not a leaf, so that it signs its return address under any option */
static noinline void kpo_fpac_target(void)
{
	kpo_leaf();
	WRITE_ONCE(kpo_sink, READ_ONCE(kpo_sink) ^ 0xa);
}

static struct task_struct *kpo_tester;

/* Spoil the signed return address that the AUTIASP checks */
static int kpo_fpac_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current == READ_ONCE(kpo_tester))
		regs->regs[30] ^= KPO_PAC_BIT;
	return 0;
}

static void kpo_fpac_call(void)
{
	WRITE_ONCE(kpo_tester, current);
	kpo_fpac_target();
}

static bool kpo_has_fpac(void)
{
	u64 isar1 = read_sysreg_s(SYS_ID_AA64ISAR1_EL1);
	u64 isar2 = read_sysreg_s(SYS_ID_AA64ISAR2_EL1);

	if (!system_supports_address_auth())
		return false;
	return cpuid_feature_extract_unsigned_field(isar1, ID_AA64ISAR1_EL1_APA_SHIFT) >=
	       ID_AA64ISAR1_EL1_APA_FPAC ||
	       cpuid_feature_extract_unsigned_field(isar1, ID_AA64ISAR1_EL1_API_SHIFT) >=
	       ID_AA64ISAR1_EL1_API_FPAC ||
	       cpuid_feature_extract_unsigned_field(isar2, ID_AA64ISAR2_EL1_APA3_SHIFT) >=
	       ID_AA64ISAR2_EL1_APA3_FPAC;
}

/* kpo_kp on the AUTIASP of kpo_fpac_target(), stepped; 0 or an error */
static int kpo_setup_fpac(void)
{
	__le32 *insn = (__le32 *)kpo_fpac_target;
	int i, ret;

	memset(&kpo_kp, 0, sizeof(kpo_kp));
	for (i = 0; i < KPO_MAX_INSNS && le32_to_cpu(insn[i]) != KPO_RET; i++) {
		if (le32_to_cpu(insn[i]) == KPO_AUTIASP)
			kpo_kp.addr = (kprobe_opcode_t *)&insn[i];
	}
	if (!kpo_kp.addr) {
		pr_err("no AUTIASP in kpo_fpac_target()\n");
		return -ENOENT;
	}
	kpo_kp.pre_handler = kpo_fpac_pre;
	/* So that the AUTIASP is stepped, not boosted */
	kpo_kp.post_handler = kpo_nop_post;
	WRITE_ONCE(kpo_tester, NULL);
	ret = register_kprobe(&kpo_kp);
	if (ret) {
		pr_err("register_kprobe(): %d\n", ret);
		return ret;
	}
	pr_info("fpac: probe on %pS\n", kpo_kp.addr);
	return 0;
}
#endif

static long kpo_call_count_target(void *unused)
{
	kpo_count_target();
	return 0;
}

/* Does a probe hit run its handlers on every online CPU? */
static int kpo_verify(void)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpo_count_target,
		.pre_handler = kpo_count_pre,
		/* So that it is never optimized */
		.post_handler = kpo_nop_post,
	};
	unsigned int cpu, calls = 0;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	atomic_set(&kpo_hits, 0);
	for_each_online_cpu(cpu) {
		if (!work_on_cpu_safe(cpu, kpo_call_count_target, NULL))
			calls++;
	}
	unregister_kprobe(&kp);
	pr_info("verify: %u calls, %d hits, %lu missed\n", calls,
		atomic_read(&kpo_hits), kp.nmissed);
	if (atomic_read(&kpo_hits) != calls || kp.nmissed)
		return -EIO;
	return 0;
}

/* A way to die inside a hit: @setup registers kpo_kp, then @call dies */
struct kpo_case {
	int (*setup)(void);
	void (*call)(void);
};

static struct kpo_case kpo_case_optimized = {
	.setup = kpo_setup_optimized,
	.call = kpo_target,
};

#ifdef CONFIG_ARM64
static struct kpo_case kpo_case_undef = {
	.setup = kpo_setup_undef,
	.call = kpo_undef,
};
#endif

#ifdef CONFIG_ARM64_PTR_AUTH_KERNEL
static struct kpo_case kpo_case_fpac = {
	.setup = kpo_setup_fpac,
	.call = kpo_fpac_call,
};
#endif

/* The file's case, on the CPU written */
static ssize_t kpo_case_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const struct kpo_case *c = file->private_data;
	unsigned int cpu;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &cpu);
	if (ret)
		return ret;
	mutex_lock(&kpo_lock);
	ret = -EINVAL;
	if (cpu < nr_cpu_ids && cpu_online(cpu))
		ret = c->setup();
	if (!ret)
		ret = kpo_run(cpu, c->call);
	mutex_unlock(&kpo_lock);
	return ret ? ret : count;
}

static ssize_t kpo_verify_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	int ret;

	mutex_lock(&kpo_lock);
	ret = kpo_verify();
	mutex_unlock(&kpo_lock);
	return ret ? ret : count;
}

static const struct file_operations kpo_case_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kpo_case_write,
	.llseek = noop_llseek,
};

static const struct file_operations kpo_verify_fops = {
	.owner = THIS_MODULE,
	.write = kpo_verify_write,
	.llseek = noop_llseek,
};

static struct dentry *kpo_dir;

static int __init kpo_init(void)
{
	kpo_dir = debugfs_create_dir("kprobe_oops", NULL);
	debugfs_create_file("run", 0200, kpo_dir, &kpo_case_optimized,
			    &kpo_case_fops);
	debugfs_create_file("verify", 0200, kpo_dir, NULL, &kpo_verify_fops);
#ifdef CONFIG_ARM64
	debugfs_create_file("undef", 0200, kpo_dir, &kpo_case_undef,
			    &kpo_case_fops);
#endif
#ifdef CONFIG_ARM64_PTR_AUTH_KERNEL
	if (kpo_has_fpac())
		debugfs_create_file("fpac", 0200, kpo_dir, &kpo_case_fpac,
				    &kpo_case_fops);
#endif
	return 0;
}

static void __exit kpo_exit(void)
{
	debugfs_remove(kpo_dir);
}

module_init(kpo_init);
module_exit(kpo_exit);
MODULE_DESCRIPTION("An oops inside a kprobe hit leaves kprobes working");
MODULE_LICENSE("GPL");
