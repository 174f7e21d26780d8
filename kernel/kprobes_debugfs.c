// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes debugfs interface: /sys/kernel/debug/kprobes/
 *
 *   list       every registered probe, one line each: "<address>  <k|r>
 *              <symbol>+0x<offset>  [<module>]  [GONE][DISABLED]..."
 *              (k: kprobe, r: the entry probe of a kretprobe)
 *   enabled    "1" while registered probes are armed; write a boolean
 *              (0/1, n/y, off/on) to disarm or rearm them all
 *   blacklist  "0x<start>-0x<end>\t<symbol>" for each refused range
 *   stats      every registered probe, as in list but without the marks
 *              in brackets, then "hits=N missed=N"
 *              (handlers run; hits that found the CPU inside a probe),
 *              "no_instance=N" for a kretprobe (calls with no free
 *              instance), and how its point's hits were served:
 *              "point: emulated=N boosted=N stepped=N optimized=N
 *              ftrace=N nested=N", and "not_optimized=<why>" where the
 *              jump optimizer refused the point (CONFIG_OPTPROBES)
 *
 * Addresses are printed as zeros to readers who may not see kernel
 * addresses, as /proc/kallsyms does.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "kprobes_internal.h"

static unsigned long kprobe_address_for(struct seq_file *m, const void *addr)
{
	return kallsyms_show_value(m->file->f_cred) ? (unsigned long)addr : 0;
}

/**
 * kprobe_sprint_where() - "symbol+0xoffset" and "  [module]" of an address
 * @addr: a text address
 * @gfp: for the string
 *
 * What kprobes/list and kprobes/stats show of a point, kept for the time
 * kallsyms no longer knows it: a point whose text is freed (a module, init
 * text) still shows where it was.
 *
 * Context: may sleep if @gfp does.
 * Return: a string to kfree(), or NULL if kallsyms does not know @addr or
 * there is no memory for it.
 */
char *kprobe_sprint_where(const void *addr, gfp_t gfp)
{
	char namebuf[KSYM_NAME_LEN];
	unsigned long offset = 0;
	const char *sym;
	char *modname;

	sym = kallsyms_lookup((unsigned long)addr, NULL, &offset, &modname,
			      namebuf);
	if (!sym)
		return NULL;
	if (modname)
		return kasprintf(gfp, "%s+0x%lx  [%s]", sym, offset, modname);
	return kasprintf(gfp, "%s+0x%lx", sym, offset);
}

/* "<address>  <k|r>  <symbol>+<offset>  [<module>]", as in both files */
static void kprobe_show_where(struct seq_file *m, struct kprobe_point *kpp,
			      struct kprobe *p)
{
	char namebuf[KSYM_NAME_LEN];
	unsigned long offset = 0;
	const char *sym = NULL;
	char *modname;

	seq_printf(m, "%016lx  %c  ", kprobe_address_for(m, p->addr),
		   kprobe_is_kretprobe(p) ? 'r' : 'k');
	/* The text of a gone point may hold another module's by now. */
	if (kpp->gone) {
		seq_puts(m, kpp->gone_where ?: "(unknown)");
		return;
	}
	sym = kallsyms_lookup((unsigned long)p->addr, NULL, &offset, &modname,
			      namebuf);
	if (!sym) {
		seq_puts(m, "(unknown)");
		return;
	}
	seq_printf(m, "%s+0x%lx", sym, offset);
	if (modname)
		seq_printf(m, "  [%s]", modname);
}

static void kprobe_list_show_probe(struct seq_file *m,
				   struct kprobe_point *kpp, struct kprobe *p)
{
	kprobe_show_where(m, kpp, p);
	if (p->flags & (KPROBE_FLAG_GONE | KPROBE_FLAG_DISABLED |
			KPROBE_FLAG_OPTIMIZED | KPROBE_FLAG_FTRACE))
		seq_printf(m, "  %s%s%s%s",
			   kprobe_gone(p) ? "[GONE]" : "",
			   (p->flags & KPROBE_FLAG_DISABLED) ? "[DISABLED]" : "",
			   kprobe_optimized(p) ? "[OPTIMIZED]" : "",
			   kprobe_ftrace(p) ? "[FTRACE]" : "");
	seq_putc(m, '\n');
}

static void *kprobe_list_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return seq_list_start(&kprobe_points, *pos);
}

static void *kprobe_list_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &kprobe_points, pos);
}

static void kprobe_list_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobe_mutex);
}

static int kprobe_list_show(struct seq_file *m, void *v)
{
	struct kprobe_point *kpp = list_entry(v, struct kprobe_point, node);
	struct kprobe *p;

	list_for_each_entry(p, &kpp->probes, list)
		kprobe_list_show_probe(m, kpp, p);
	return 0;
}

static const struct seq_operations kprobe_list_sops = {
	.start = kprobe_list_start,
	.next = kprobe_list_next,
	.stop = kprobe_list_stop,
	.show = kprobe_list_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobe_list);

static unsigned long kprobe_sum_percpu(unsigned long __percpu *counter)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(counter, cpu);
	return sum;
}

static const char * const kprobe_hit_kind_names[NR_KPROBE_HIT_KINDS] = {
	[KPROBE_HIT_EMULATED]	= "emulated",
	[KPROBE_HIT_BOOSTED]	= "boosted",
	[KPROBE_HIT_STEPPED]	= "stepped",
	[KPROBE_HIT_OPTIMIZED]	= "optimized",
	[KPROBE_HIT_FTRACE]	= "ftrace",
	[KPROBE_HIT_MISSED]	= "nested",
};

#ifdef CONFIG_OPTPROBES
static const char * const kprobe_opt_refusal_names[] = {
	[KPROBE_OPT_CROSSES_FUNCTION]	= "crosses_function",
	[KPROBE_OPT_UNRELOCATABLE]	= "unrelocatable",
	[KPROBE_OPT_EXTABLE]		= "extable",
	[KPROBE_OPT_JUMP_INTO]		= "jump_into",
	[KPROBE_OPT_INDIRECT_JUMP]	= "indirect_jump",
	[KPROBE_OPT_RESERVED]		= "reserved",
	[KPROBE_OPT_NO_DETOUR]		= "no_detour",
	[KPROBE_OPT_IDLE]		= "idle",
};

/* Why the optimizer left @kpp on its breakpoint, if it looked and refused */
static void kprobe_stats_show_refusal(struct seq_file *m,
				      struct kprobe_point *kpp)
{
	const char *why = NULL;

	if (kpp->opt_refused < ARRAY_SIZE(kprobe_opt_refusal_names))
		why = kprobe_opt_refusal_names[kpp->opt_refused];
	if (why)
		seq_printf(m, " not_optimized=%s", why);
}
#else
static void kprobe_stats_show_refusal(struct seq_file *m,
				      struct kprobe_point *kpp)
{
}
#endif

static int kprobe_stats_show(struct seq_file *m, void *v)
{
	struct kprobe_point *kpp = list_entry(v, struct kprobe_point, node);
	unsigned long kinds[NR_KPROBE_HIT_KINDS] = {};
	struct kprobe *p;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		for (i = 0; i < NR_KPROBE_HIT_KINDS; i++)
			kinds[i] += per_cpu_ptr(kpp->counts, cpu)->n[i];
	}
	list_for_each_entry(p, &kpp->probes, list) {
		kprobe_show_where(m, kpp, p);
		seq_printf(m, "  hits=%lu missed=%lu",
			   kprobe_sum_percpu(p->hits), READ_ONCE(p->nmissed));
		if (kprobe_is_kretprobe(p))
			seq_printf(m, " no_instance=%d", kretprobe_nmissed(p));
		/* How the point's hits were served, all its kprobes together */
		seq_puts(m, "  point:");
		for (i = 0; i < NR_KPROBE_HIT_KINDS; i++)
			seq_printf(m, " %s=%lu", kprobe_hit_kind_names[i], kinds[i]);
		kprobe_stats_show_refusal(m, kpp);
		seq_putc(m, '\n');
	}
	return 0;
}

static const struct seq_operations kprobe_stats_sops = {
	.start = kprobe_list_start,
	.next = kprobe_list_next,
	.stop = kprobe_list_stop,
	.show = kprobe_stats_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobe_stats);

static void *kprobe_blacklist_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_blacklist_lock);
	return seq_list_start(&kprobe_blacklist, *pos);
}

static void *kprobe_blacklist_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &kprobe_blacklist, pos);
}

static void kprobe_blacklist_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobe_blacklist_lock);
}

static int kprobe_blacklist_show(struct seq_file *m, void *v)
{
	struct kprobe_blacklist_entry *ent =
		list_entry(v, struct kprobe_blacklist_entry, list);

	seq_printf(m, "0x%016lx-0x%016lx\t%ps\n",
		   kprobe_address_for(m, (void *)ent->start_addr),
		   kprobe_address_for(m, (void *)ent->end_addr),
		   (void *)ent->start_addr);
	return 0;
}

static const struct seq_operations kprobe_blacklist_sops = {
	.start = kprobe_blacklist_start,
	.next = kprobe_blacklist_next,
	.stop = kprobe_blacklist_stop,
	.show = kprobe_blacklist_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobe_blacklist);

static ssize_t kprobe_enabled_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char buf[2] = { READ_ONCE(kprobes_all_disarmed) ? '0' : '1', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static ssize_t kprobe_enabled_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	bool armed;
	int ret;

	/* What kstrtobool() takes: 0/1, y/n, on/off, ... */
	ret = kstrtobool_from_user(ubuf, count, &armed);
	if (ret)
		return ret;
	/* A point served by ftrace may fail to be armed: say so. */
	ret = kprobes_set_armed(armed);
	return ret ? ret : count;
}

static const struct file_operations kprobe_enabled_fops = {
	.read = kprobe_enabled_read,
	.write = kprobe_enabled_write,
	.llseek = default_llseek,
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &kprobe_list_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &kprobe_stats_fops);
	debugfs_create_file("enabled", 0600, dir, NULL, &kprobe_enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL,
			    &kprobe_blacklist_fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);
