// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_step_fault: a fault taken by an instruction that kprobes steps out
 * of line is handled as if the probed instruction itself had faulted: with
 * the interrupt mask of the probed context, and with its exception-table
 * fixup.  arm64 only.
 *
 * Writing to /sys/kernel/debug/kprobe_step_fault/run, from a user process:
 *
 *  1. probes every unprivileged store (STTR, STTRB, STTRH) of
 *     __arch_copy_to_user(), found by decoding the function, with kprobes
 *     that have a post_handler, so that each hit steps the store out of
 *     line; and handle_mm_fault(), to see the interrupt mask of the
 *     context that took each fault;
 *  2. copies a pattern with copy_to_user() into a fresh anonymous mapping
 *     of the writer, none of whose pages is there yet: the first store to
 *     each page faults inside a step;
 *  3. removes the probes and reads the mapping back.
 *
 * The write succeeds if the data is right, the stores were hit, some hits
 * ended in a fault (their post_handlers did not run), and every fault on
 * the mapping reached handle_mm_fault() with interrupts enabled, as
 * copy_to_user() runs.  Otherwise it fails with EIO and the kernel log
 * says why.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

/* STTR, STTRB, STTRH: size:111000:000:imm9:10:Rn:Rt */
#define STTR_MASK		0x3fe00c00
#define STTR_VAL		0x38000800

#define MAX_STORES		64
#define MAX_FUNC_INSNS		1024
#define COPY_PAGES		4

static struct kprobe store_kps[MAX_STORES];
static struct kprobe *store_kpp[MAX_STORES];
static int nr_stores;
static struct kprobe fault_kp;

/* The copy under test: the task that runs it and its destination */
static struct task_struct *tester;
static unsigned long buf_start, buf_end;

static atomic_t store_hits, store_posts, faults, masked_faults;

static DEFINE_MUTEX(run_lock);
static struct dentry *dir;

static bool is_tester(void)
{
	return READ_ONCE(tester) == current;
}

static int store_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (is_tester())
		atomic_inc(&store_hits);
	return 0;
}

static void store_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	if (is_tester())
		atomic_inc(&store_posts);
}

/* handle_mm_fault(vma, address, flags, regs) */
static int fault_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long addr = regs_get_kernel_argument(regs, 1);

	if (!is_tester() || addr < buf_start || addr >= buf_end)
		return 0;
	atomic_inc(&faults);
	if (!interrupts_enabled(regs))
		atomic_inc(&masked_faults);
	return 0;
}

/* Every unprivileged store of __arch_copy_to_user(), by decoding it. */
static int find_stores(void)
{
	u32 *start = (u32 *)__arch_copy_to_user;
	char name[KSYM_SYMBOL_LEN];
	int i;

	nr_stores = 0;
	for (i = 0; i < MAX_FUNC_INSNS; i++) {
		u32 insn = le32_to_cpu(*(__le32 *)(start + i));

		snprintf(name, sizeof(name), "%ps", start + i);
		if (strcmp(name, "__arch_copy_to_user"))
			break;
		if ((insn & STTR_MASK) != STTR_VAL)
			continue;
		if (nr_stores == MAX_STORES)
			return -E2BIG;
		memset(&store_kps[nr_stores], 0, sizeof(store_kps[0]));
		store_kps[nr_stores].addr = (kprobe_opcode_t *)(start + i);
		store_kps[nr_stores].pre_handler = store_pre;
		store_kps[nr_stores].post_handler = store_post;
		store_kpp[nr_stores] = &store_kps[nr_stores];
		nr_stores++;
	}
	return nr_stores ? 0 : -ENOENT;
}

static int probe(void)
{
	int ret;

	ret = find_stores();
	if (ret) {
		pr_err("no unprivileged stores found in __arch_copy_to_user: %d\n", ret);
		return ret;
	}
	ret = register_kprobes(store_kpp, nr_stores);
	if (ret) {
		pr_err("probing the stores failed: %d\n", ret);
		return ret;
	}
	memset(&fault_kp, 0, sizeof(fault_kp));
	fault_kp.symbol_name = "handle_mm_fault";
	fault_kp.pre_handler = fault_pre;
	ret = register_kprobe(&fault_kp);
	if (ret) {
		pr_err("probing handle_mm_fault failed: %d\n", ret);
		unregister_kprobes(store_kpp, nr_stores);
	}
	return ret;
}

static void unprobe(void)
{
	unregister_kprobe(&fault_kp);
	unregister_kprobes(store_kpp, nr_stores);
}

static int run(void)
{
	size_t len = COPY_PAGES * PAGE_SIZE;
	unsigned long ubuf, left;
	u8 *pattern, *back;
	bool data_ok;
	size_t i;
	int ret;

	pattern = kmalloc(len, GFP_KERNEL);
	back = kzalloc(len, GFP_KERNEL);
	ret = -ENOMEM;
	if (!pattern || !back)
		goto out_free;
	for (i = 0; i < len; i++)
		pattern[i] = i * 7 + i / PAGE_SIZE;

	ubuf = vm_mmap(NULL, 0, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(ubuf)) {
		ret = (int)ubuf;
		goto out_free;
	}

	atomic_set(&store_hits, 0);
	atomic_set(&store_posts, 0);
	atomic_set(&faults, 0);
	atomic_set(&masked_faults, 0);
	buf_start = ubuf;
	buf_end = ubuf + len;
	ret = probe();
	if (ret)
		goto out_unmap;
	WRITE_ONCE(tester, current);
	left = copy_to_user((void __user *)ubuf, pattern, len);
	WRITE_ONCE(tester, NULL);
	unprobe();

	data_ok = !left && !copy_from_user(back, (void __user *)ubuf, len) &&
		  !memcmp(pattern, back, len);
	pr_info("%d stores probed: %d hits, %d post_handlers; %d faults, %d with interrupts masked; %lu bytes not copied; data %s\n",
		nr_stores, atomic_read(&store_hits), atomic_read(&store_posts),
		atomic_read(&faults), atomic_read(&masked_faults), left,
		data_ok ? "right" : "WRONG");
	ret = -EIO;
	if (!data_ok)
		pr_err("the copy went wrong\n");
	else if (!atomic_read(&store_posts))
		pr_err("the probes on the stores did not fire\n");
	else if (atomic_read(&store_hits) == atomic_read(&store_posts))
		pr_err("no stepped store faulted\n");
	else if (!atomic_read(&faults))
		pr_err("handle_mm_fault() did not see the faults\n");
	else if (atomic_read(&masked_faults))
		pr_err("faults in stepped stores were handled with interrupts masked\n");
	else
		ret = 0;
out_unmap:
	vm_munmap(ubuf, len);
out_free:
	kfree(back);
	kfree(pattern);
	return ret;
}

static ssize_t run_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	int ret;

	if (!current->mm)
		return -EINVAL;
	mutex_lock(&run_lock);
	ret = run();
	mutex_unlock(&run_lock);
	return ret ? ret : count;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
	.llseek = noop_llseek,
};

static int __init kprobe_step_fault_init(void)
{
	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0200, dir, NULL, &run_fops);
	return 0;
}

static void __exit kprobe_step_fault_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(kprobe_step_fault_init);
module_exit(kprobe_step_fault_exit);
MODULE_DESCRIPTION("Check that faults in stepped instructions are handled as unprobed ones");
MODULE_LICENSE("GPL");
