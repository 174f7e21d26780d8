// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes: the text probes live in, as it comes and goes.
 *
 * Where a kprobe may go: its symbol and offset resolved to an address,
 * which must be kernel or module text that nobody else patches and that is
 * not on the blacklist.  A module's text may be probed once
 * kprobes_module_notify() has seen the module coming and added its
 * blacklist, and its init text only until the module is live; kernel init
 * text until kprobe_free_init_mem().
 *
 * Text that goes away (module unload, module and kernel init text):
 * kprobes_kill_range_locked() disarms its points while the text is still
 * there, then marks them and their kprobes gone.  A gone point stays hashed
 * for its kprobes to be found and unregistered; lookups for a hit or a
 * new registration skip it, as new text may come at the same address.
 *
 * Everything here runs under kprobe_mutex, but for the resolution of a
 * symbol (kprobe_lookup_name(), kprobe_on_func_entry()) and for the
 * allocation of a coming module's entry.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

/* Kernel init text may no longer be probed (kprobe_mutex) */
static bool kprobe_init_text_gone;

/**
 * kprobe_lookup_name() - resolve a symbol for a probe
 * @name: a symbol, optionally "module:symbol"
 * @offset: unused; kept for the callers of the 6.1 interface
 *
 * Context: process context.
 * Return: the symbol's address, or NULL.
 */
kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

/*
 * Turn what the caller gave (addr or symbol_name, plus offset) into an
 * address, and tell whether it is a function entry.
 */
int kprobe_resolve_addr(kprobe_opcode_t *addr, const char *symbol_name,
			unsigned long offset, kprobe_opcode_t **out,
			bool *on_func_entry)
{
	unsigned long sym_offset, func;

	if (!!addr == !!symbol_name)
		return -EINVAL;
	if (symbol_name) {
		addr = kprobe_lookup_name(symbol_name, 0);
		if (!addr)
			return -ENOENT;
	}
	addr = (kprobe_opcode_t *)((unsigned long)addr + offset);
	/* An address no symbol covers is not text we could decode. */
	if (!kallsyms_lookup_size_offset((unsigned long)addr, NULL, &sym_offset))
		return symbol_name ? -ENOENT : -EINVAL;
	func = (unsigned long)addr - sym_offset;
	*out = arch_adjust_kprobe_addr((unsigned long)addr, sym_offset);
	/* Where the arch moves the entry to (past ENDBR) is the entry too. */
	*on_func_entry = *out == arch_adjust_kprobe_addr(func, 0);
	return 0;
}

/**
 * kprobe_on_func_entry() - is the probe position a function entry?
 * @addr: an address, or NULL with @sym
 * @sym: a symbol, or NULL with @addr
 * @offset: offset from @addr or @sym
 *
 * A function entry is offset 0 of a function, or the address a probe
 * there moves to (past an ENDBR on x86); the registers hold the
 * function's arguments there, and a kretprobe may only go there.
 *
 * Context: process context.
 * Return: 0 if the position is a function entry; -ENOENT if @sym is
 * unknown; -EINVAL if the position is not an entry or the request is
 * malformed.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	bool on_func_entry = false;
	int ret;

	ret = kprobe_resolve_addr(addr, sym, offset, &addr, &on_func_entry);
	if (ret)
		return ret;
	return on_func_entry ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(kprobe_on_func_entry);

/*
 * Text that other subsystems patch: 0, -EBUSY, or -EILSEQ for a byte
 * inside an ftrace call site, behind its first, which is no instruction
 * boundary whatever ftrace made of the call (kprobe_events says so).  The
 * call site itself is a place for a probe where ftrace serves it.  (A
 * BUG()/WARN() site is a trapping instruction, which the arch refuses when
 * it decodes it.)
 */
static int kprobe_text_reserved(kprobe_opcode_t *addr)
{
	unsigned long at = (unsigned long)addr;

	if (ftrace_text_reserved(addr, addr)) {
		if (ftrace_location(at) != at)
			return -EILSEQ;
		if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
			return -EBUSY;
	}
	if (kprobe_jump_label_reserved(at, at) ||
	    static_call_text_reserved(addr, addr) ||
	    arch_kprobe_text_reserved(addr))
		return -EBUSY;
	return 0;
}

/**
 * struct kprobe_coming_module - a module kprobes_module_notify() saw coming
 * @node: entry in kprobe_coming_modules (kprobe_mutex)
 * @mod: the module, until it is live or going
 */
struct kprobe_coming_module {
	struct list_head node;
	struct module *mod;
};

static LIST_HEAD(kprobe_coming_modules);

static bool kprobe_module_seen_locked(struct module *mod)
{
	struct kprobe_coming_module *cm;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(cm, &kprobe_coming_modules, node) {
		if (cm->mod == mod)
			return true;
	}
	return false;
}

/*
 * @mod is coming: its blacklist is known, its text may be probed.  Without
 * memory for the entry, it may be once it is live.
 */
static void kprobe_module_coming(struct module *mod)
{
	struct kprobe_coming_module *cm = kmalloc(sizeof(*cm), GFP_KERNEL);

	kprobe_blacklist_add_module(mod);
	if (!cm)
		return;
	cm->mod = mod;
	mutex_lock(&kprobe_mutex);
	list_add(&cm->node, &kprobe_coming_modules);
	mutex_unlock(&kprobe_mutex);
}

/* @mod is live or going: forget it came */
static void kprobe_module_came_locked(struct module *mod)
{
	struct kprobe_coming_module *cm;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(cm, &kprobe_coming_modules, node) {
		if (cm->mod == mod) {
			list_del(&cm->node);
			kfree(cm);
			return;
		}
	}
}

/*
 * Check that @addr may be probed, and pin the module it is in, if any, so
 * that it cannot go away before the probe is armed.  kprobe_mutex held.
 */
int kprobe_check_addr(kprobe_opcode_t *addr, struct module **modp)
{
	unsigned long a = (unsigned long)addr;
	struct module *mod = NULL;
	int ret = 0;

	*modp = NULL;
	if (within_kprobe_blacklist(a))
		return -EINVAL;
	if (kprobe_init_text_gone && is_kernel_inittext(a))
		return -EINVAL;
	ret = kprobe_text_reserved(addr);
	if (ret)
		return ret;

	preempt_disable();
	if (!core_kernel_text(a)) {
		mod = __module_text_address(a);
		if (!mod) {
			ret = -EINVAL;
		} else if (!try_module_get(mod)) {
			ret = -ENOENT;
		} else if (mod->state == MODULE_STATE_COMING &&
			   !kprobe_module_seen_locked(mod)) {
			/* Its blacklist is not known yet. */
			module_put(mod);
			ret = -ENOENT;
		} else if (within_module_init(a, mod) &&
			   mod->state != MODULE_STATE_COMING) {
			/* The init text is about to be, or has been, freed. */
			module_put(mod);
			ret = -ENOENT;
		}
	}
	preempt_enable();
	if (!ret)
		*modp = mod;
	return ret;
}

/*
 * The text under @kpp is about to be freed: disarm it while it is still
 * there (it may still run: async module init, the end of kernel init),
 * then never touch it again.  An optimized point is left on @jumps: the
 * caller's kprobe_points_drop_jumps_locked() disarms it.
 */
static void kprobe_point_kill_locked(struct kprobe_point *kpp,
				     struct list_head *jumps)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kpp->text_going)
		return;
	/* For kprobes/list: kallsyms forgets the symbol with the text. */
	kpp->gone_where = kprobe_sprint_where(kpp->addr,
					      GFP_KERNEL | __GFP_NOWARN);
	kpp->text_going = true;
	__kprobe_point_update_locked(kpp, jumps);
}

/*
 * Hide a killed point from lookups, once its breakpoint is gone from every
 * CPU's view: a CPU that trapped on it before must still find the point,
 * or it would take the trap for someone else's (see "Retirement" in
 * kprobes.c).
 */
static void kprobe_point_bury_locked(struct kprobe_point *kpp)
{
	struct kprobe *p;

	lockdep_assert_held(&kprobe_mutex);
	WRITE_ONCE(kpp->gone, true);
	list_for_each_entry(p, &kpp->probes, list)
		WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_GONE);
}

static void kprobes_kill_range_locked(bool (*match)(unsigned long addr,
						    void *arg), void *arg)
{
	struct kprobe_point *kpp;
	LIST_HEAD(jumps);

	lockdep_assert_held(&kprobe_mutex);
	/* 1. Disarm: jumps first, then every breakpoint, at one commit */
	list_for_each_entry(kpp, &kprobe_points, node) {
		if (match((unsigned long)kpp->addr, arg))
			kprobe_point_kill_locked(kpp, &jumps);
	}
	kprobe_points_drop_jumps_locked(&jumps);
	kprobes_commit_locked();
	/* 2. Before the text goes, and after no CPU can trap on it */
	list_for_each_entry(kpp, &kprobe_points, node) {
		if (kpp->text_going && !kpp->gone)
			kprobe_point_bury_locked(kpp);
	}
}

static bool kprobe_in_module(unsigned long addr, void *mod)
{
	return within_module(addr, mod);
}

static bool kprobe_in_module_init(unsigned long addr, void *mod)
{
	return within_module_init(addr, mod);
}

static int kprobes_module_notify(struct notifier_block *nb,
				 unsigned long val, void *data)
{
	struct module *mod = data;

	switch (val) {
	case MODULE_STATE_COMING:
		kprobe_module_coming(mod);
		break;
	case MODULE_STATE_LIVE:
		/* do_init_module() frees the init text right after this. */
		mutex_lock(&kprobe_mutex);
		kprobe_module_came_locked(mod);
		kprobes_kill_range_locked(kprobe_in_module_init, mod);
		mutex_unlock(&kprobe_mutex);
		kprobe_blacklist_remove_module_init(mod);
		break;
	case MODULE_STATE_GOING:
		mutex_lock(&kprobe_mutex);
		kprobe_module_came_locked(mod);
		kprobes_kill_range_locked(kprobe_in_module, mod);
		mutex_unlock(&kprobe_mutex);
		kprobe_blacklist_remove_module(mod);
		break;
	}
	return NOTIFY_DONE;
}

/*
 * Before trace_kprobe's notifier (priority 2), which registers the probes
 * that waited for a coming module: the module's blacklist must be known.
 */
static struct notifier_block kprobes_module_nb = {
	.notifier_call = kprobes_module_notify,
	.priority = 3,
};

/* From init_kprobes(): follow modules as they come and go. */
int __init kprobes_watch_modules(void)
{
	return register_module_notifier(&kprobes_module_nb);
}

static bool kprobe_in_kernel_init(unsigned long addr, void *unused)
{
	return is_kernel_inittext(addr);
}

/**
 * kprobe_free_init_mem() - retire the probes on kernel init text
 *
 * Called by the init code before it frees the init sections, while the
 * init text can still be patched: the probes there are disarmed and
 * marked gone, and the init text can no longer be probed.
 *
 * Context: process context, may sleep.
 */
void kprobe_free_init_mem(void)
{
	mutex_lock(&kprobe_mutex);
	kprobe_init_text_gone = true;
	kprobes_kill_range_locked(kprobe_in_kernel_init, NULL);
	mutex_unlock(&kprobe_mutex);
}
