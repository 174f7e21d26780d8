// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes blacklist: text that must never get a breakpoint.
 *
 * Sources: every NOKPROBE_SYMBOL() of the kernel and of loaded modules,
 * the .kprobes.text and .noinstr.text sections (kernel and modules), and
 * what the architecture adds (its entry code, for one).
 *
 * Locking: kprobe_blacklist_lock serializes writers; readers walk the list
 * under RCU, because within_kprobe_blacklist() is also called from the
 * hardware breakpoint and kgdb code, outside any kprobes lock.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

LIST_HEAD(kprobe_blacklist);
/* Serializes changes of kprobe_blacklist; readers use RCU */
DEFINE_MUTEX(kprobe_blacklist_lock);

/**
 * within_kprobe_blacklist() - may @addr not be probed?
 * @addr: a kernel address
 *
 * Context: any.
 * Return: true if @addr is in blacklisted text.
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	struct kprobe_blacklist_entry *ent;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(ent, &kprobe_blacklist, list) {
		if (addr >= ent->start_addr && addr < ent->end_addr) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

static int kprobe_blacklist_add_range(unsigned long start, unsigned long end)
{
	struct kprobe_blacklist_entry *ent;

	if (start >= end)
		return 0;
	ent = kmalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent)
		return -ENOMEM;
	ent->start_addr = start;
	ent->end_addr = end;
	mutex_lock(&kprobe_blacklist_lock);
	list_add_tail_rcu(&ent->list, &kprobe_blacklist);
	mutex_unlock(&kprobe_blacklist_lock);
	return 0;
}

/* Blacklist the whole function that contains @addr. */
static int kprobe_blacklist_add_symbol(unsigned long addr)
{
	unsigned long size, offset;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -ENOENT;
	return kprobe_blacklist_add_range(addr - offset, addr - offset + size);
}

static void kprobe_blacklist_add_symbols(unsigned long *start,
					 unsigned long *end)
{
	unsigned long *iter;

	for (iter = start; iter < end; iter++) {
		/* An entry the symbol table does not know is not fatal. */
		if (kprobe_blacklist_add_symbol(*iter) == -ENOMEM)
			pr_warn("out of memory for blacklist entry %ps\n",
				(void *)*iter);
	}
}

/**
 * kprobe_blacklist_add_module() - blacklist a loading module's unprobeable text
 * @mod: a module in MODULE_STATE_COMING
 *
 * Context: process context (module notifier).
 */
void kprobe_blacklist_add_module(struct module *mod)
{
	unsigned long start;

	kprobe_blacklist_add_symbols(mod->kprobe_blacklist,
				     mod->kprobe_blacklist +
				     mod->num_kprobe_blacklist);
	start = (unsigned long)mod->kprobes_text_start;
	kprobe_blacklist_add_range(start, start + mod->kprobes_text_size);
	start = (unsigned long)mod->noinstr_text_start;
	kprobe_blacklist_add_range(start, start + mod->noinstr_text_size);
}

/**
 * kprobe_blacklist_remove_module() - drop a going module's entries
 * @mod: a module in MODULE_STATE_GOING
 *
 * Context: process context (module notifier).
 */
void kprobe_blacklist_remove_module(struct module *mod)
{
	struct kprobe_blacklist_entry *ent, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&kprobe_blacklist_lock);
	list_for_each_entry_safe(ent, tmp, &kprobe_blacklist, list) {
		if (within_module(ent->start_addr, mod)) {
			list_del_rcu(&ent->list);
			list_add(&ent->list, &dead);
		}
	}
	mutex_unlock(&kprobe_blacklist_lock);
	if (list_empty(&dead))
		return;
	/* Pairs with the RCU walk in within_kprobe_blacklist(). */
	synchronize_rcu();
	list_for_each_entry_safe(ent, tmp, &dead, list)
		kfree(ent);
}

/**
 * kprobe_blacklist_init() - build the kernel's blacklist
 *
 * Context: boot, process context.
 * Return: 0 or -ENOMEM.
 */
int kprobe_blacklist_init(void)
{
	int ret;

	kprobe_blacklist_add_symbols(__start_kprobe_blacklist,
				     __stop_kprobe_blacklist);
	ret = kprobe_blacklist_add_range((unsigned long)__kprobes_text_start,
					 (unsigned long)__kprobes_text_end);
	if (!ret)
		ret = kprobe_blacklist_add_range((unsigned long)__noinstr_text_start,
						 (unsigned long)__noinstr_text_end);
	if (!ret)
		ret = arch_populate_kprobe_blacklist();
	return ret;
}

/**
 * kprobe_add_area_blacklist() - blacklist a range of text
 * @start: first byte
 * @end: one past the last byte
 *
 * For arch_populate_kprobe_blacklist().
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	return kprobe_blacklist_add_range(start, end);
}
