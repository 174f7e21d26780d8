// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes blacklist: text that must never get a breakpoint.
 *
 * Sources: every NOKPROBE_SYMBOL() of the kernel and of loaded modules,
 * the .kprobes.text and .noinstr.text sections (kernel and modules), what
 * the architecture adds (its entry code, for one), the functions of other
 * subsystems the breakpoint path calls (kprobe_blacklist_callees), the
 * copies the compiler made of all these, and static call trampolines.
 *
 * Static call trampolines (x86: __SCT__<name>, a jmp or a ret, in the
 * kernel and in modules that define static calls, such as their
 * tracepoints) belong to static_call_update(), which rewrites them and
 * BUG()s on what it does not recognize there: a breakpoint.  The same
 * scan of the symbol table finds them.
 *
 * Compiler-made copies
 * --------------------
 * GCC moves code of a function foo into other symbols: "foo.cold" (its
 * unlikely paths), "foo.part.0" (an outlined part), "foo.isra.0",
 * "foo.constprop.0" (specialized clones), "foo.lto_priv.0".  They run as
 * part of foo, so when foo is blacklisted they are too.  The symbol table
 * is scanned twice, matching names by a 64-bit hash of what precedes the
 * first '.': first every copy is collected, then every blacklisted
 * function whose name a copy carries marks those copies, which are then
 * added.  Two static functions of the same name, one blacklisted, make the
 * copies of both refused: erring on the safe side.
 *
 * Locking: kprobe_blacklist_lock serializes writers; readers walk the list
 * under RCU, because within_kprobe_blacklist() is also called from the
 * hardware breakpoint and kgdb code, outside any kprobes lock.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bsearch.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call_types.h>
#include <linux/string.h>
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
 * struct kprobe_copy - a compiler-made copy of a function
 * @hash: hash of the name of the function it was made from
 * @addr: where the copy is
 * @blacklisted: the function it was made from is blacklisted
 */
struct kprobe_copy {
	u64 hash;
	unsigned long addr;
	bool blacklisted;
};

/**
 * struct kprobe_copies - a growing array of copies
 * @copies: the array
 * @nr: entries used
 * @max: entries allocated
 */
struct kprobe_copies {
	struct kprobe_copy *copies;
	unsigned int nr;
	unsigned int max;
};

/**
 * struct kprobe_copy_scan - the state of a scan for copies
 * @mod: the module scanned, or NULL for the kernel
 * @found: the copies found, sorted by hash after the first pass
 * @cold: the kernel's cold parts, by the hash of their function's name
 * @tramps: static call trampolines (only @addr is used)
 * @err: -ENOMEM if the first pass ran out of memory
 */
struct kprobe_copy_scan {
	struct module *mod;
	struct kprobe_copies found;
	struct kprobe_copies cold;
	struct kprobe_copies tramps;
	int err;
};

/* The kernel's cold parts, for the jump optimizer; sorted, immutable */
static struct kprobe_copies kprobe_cold_parts;

#define FNV64_OFFSET	0xcbf29ce484222325ULL
#define FNV64_PRIME	0x100000001b3ULL

/* FNV-1a of @name up to its first '.'; *@copy tells whether there was one */
static u64 kprobe_base_name_hash(const char *name, bool *copy)
{
	u64 hash = FNV64_OFFSET;

	for (; *name && *name != '.'; name++)
		hash = (hash ^ (u8)*name) * FNV64_PRIME;
	*copy = *name == '.';
	return hash;
}

/* FNV-1a of the first @len characters of @name */
static u64 kprobe_name_hash(const char *name, size_t len)
{
	u64 hash = FNV64_OFFSET;

	while (len--)
		hash = (hash ^ (u8)*name++) * FNV64_PRIME;
	return hash;
}

static int kprobe_copies_add(struct kprobe_copies *c, u64 hash,
			     unsigned long addr)
{
	struct kprobe_copy *more;

	if (c->nr == c->max) {
		c->max = max(64U, 2 * c->max);
		more = krealloc_array(c->copies, c->max, sizeof(*more),
				      GFP_KERNEL);
		if (!more)
			return -ENOMEM;
		c->copies = more;
	}
	c->copies[c->nr++] = (struct kprobe_copy){ hash, addr, false };
	return 0;
}

static bool kprobe_scan_wants(struct kprobe_copy_scan *scan,
			      struct module *mod, unsigned long addr)
{
	if (mod != scan->mod)
		return false;
	return mod ? is_module_text_address(addr) : core_kernel_text(addr);
}

static int kprobe_collect_copy(void *data, const char *name,
			       struct module *mod, unsigned long addr)
{
	struct kprobe_copy_scan *scan = data;
	size_t len = strlen(name);
	bool copy;
	u64 hash;

	if (str_has_prefix(name, STATIC_CALL_TRAMP_PREFIX_STR) &&
	    kprobe_scan_wants(scan, mod, addr) &&
	    kprobe_copies_add(&scan->tramps, 0, addr))
		scan->err = -ENOMEM;
	hash = kprobe_base_name_hash(name, &copy);
	if (!copy || !kprobe_scan_wants(scan, mod, addr))
		return 0;
	if (!scan->mod && len > 5 && !strcmp(name + len - 5, ".cold") &&
	    kprobe_copies_add(&scan->cold, kprobe_name_hash(name, len - 5), addr))
		scan->err = -ENOMEM;
	if (kprobe_copies_add(&scan->found, hash, addr))
		scan->err = -ENOMEM;
	return scan->err;
}

static int kprobe_copy_cmp(const void *a, const void *b)
{
	u64 x = ((const struct kprobe_copy *)a)->hash;
	u64 y = ((const struct kprobe_copy *)b)->hash;

	return x < y ? -1 : x > y;
}

/* Second pass: a blacklisted function marks the copies of its name. */
static int kprobe_mark_copies(void *data, const char *name,
			      struct module *mod, unsigned long addr)
{
	struct kprobe_copy_scan *scan = data;
	struct kprobe_copies *found = &scan->found;
	struct kprobe_copy key, *c, *end = found->copies + found->nr;
	bool copy;

	key.hash = kprobe_base_name_hash(name, &copy);
	if (copy || !kprobe_scan_wants(scan, mod, addr))
		return 0;
	c = bsearch(&key, found->copies, found->nr, sizeof(key),
		    kprobe_copy_cmp);
	if (!c || !within_kprobe_blacklist(addr))
		return 0;
	/* bsearch() found one of a run of equal hashes: mark the whole run. */
	while (c > found->copies && c[-1].hash == key.hash)
		c--;
	for (; c < end && c->hash == key.hash; c++)
		c->blacklisted = true;
	return 0;
}

/*
 * Blacklist the copies of blacklisted functions, and the static call
 * trampolines, in @mod (NULL: the kernel).
 */
static void kprobe_blacklist_add_copies(struct module *mod)
{
	struct kprobe_copy_scan scan = { .mod = mod };
	unsigned int i;

	if (mod)
		module_kallsyms_on_each_symbol(kprobe_collect_copy, &scan);
	else
		kallsyms_on_each_symbol(kprobe_collect_copy, &scan);
	if (scan.err)
		pr_warn("out of memory: copies of blacklisted functions stay probeable\n");
	for (i = 0; i < scan.tramps.nr; i++) {
		if (kprobe_blacklist_add_symbol(scan.tramps.copies[i].addr) == -ENOMEM)
			pr_warn("out of memory for blacklist entry %ps\n",
				(void *)scan.tramps.copies[i].addr);
	}
	kfree(scan.tramps.copies);
	if (!mod && !scan.err) {
		sort(scan.cold.copies, scan.cold.nr, sizeof(*scan.cold.copies),
		     kprobe_copy_cmp, NULL);
		kprobe_cold_parts = scan.cold;
	} else {
		kfree(scan.cold.copies);
	}
	if (!scan.found.nr)
		goto out;
	sort(scan.found.copies, scan.found.nr, sizeof(*scan.found.copies),
	     kprobe_copy_cmp, NULL);
	if (mod)
		module_kallsyms_on_each_symbol(kprobe_mark_copies, &scan);
	else
		kallsyms_on_each_symbol(kprobe_mark_copies, &scan);
	for (i = 0; i < scan.found.nr; i++) {
		if (scan.found.copies[i].blacklisted &&
		    kprobe_blacklist_add_symbol(scan.found.copies[i].addr) == -ENOMEM)
			pr_warn("out of memory for blacklist entry %ps\n",
				(void *)scan.found.copies[i].addr);
	}
out:
	kfree(scan.found.copies);
}

/**
 * kprobe_cold_part() - where the cold part of a kernel function is
 * @func: the start of a function of the kernel (not of a module)
 *
 * GCC moves the unlikely paths of a function "foo" into "foo.cold", which
 * jumps back into foo: the jump optimizer must look at both.
 *
 * Context: process context.
 * Return: the address of the cold part, or 0 if there is none.
 */
unsigned long kprobe_cold_part(unsigned long func)
{
	struct kprobe_copy key, *c;
	char name[KSYM_NAME_LEN];

	if (!kprobe_cold_parts.nr || lookup_symbol_name(func, name))
		return 0;
	key.hash = kprobe_name_hash(name, strlen(name));
	c = bsearch(&key, kprobe_cold_parts.copies, kprobe_cold_parts.nr,
		    sizeof(key), kprobe_copy_cmp);
	return c ? c->addr : 0;
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
	kprobe_blacklist_add_copies(mod);
}

typedef bool (*kprobe_blacklist_match_t)(unsigned long addr,
					 struct module *mod);

static void kprobe_blacklist_remove(kprobe_blacklist_match_t match,
				    struct module *mod)
{
	struct kprobe_blacklist_entry *ent, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&kprobe_blacklist_lock);
	list_for_each_entry_safe(ent, tmp, &kprobe_blacklist, list) {
		if (match(ent->start_addr, mod)) {
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

static bool kprobe_blacklist_in_module(unsigned long addr, struct module *mod)
{
	return within_module(addr, mod);
}

static bool kprobe_blacklist_in_module_init(unsigned long addr,
					    struct module *mod)
{
	return within_module_init(addr, mod);
}

/**
 * kprobe_blacklist_remove_module_init() - drop a module's init text entries
 * @mod: a module in MODULE_STATE_LIVE, whose init text is about to be freed
 *
 * Context: process context (module notifier).
 */
void kprobe_blacklist_remove_module_init(struct module *mod)
{
	kprobe_blacklist_remove(kprobe_blacklist_in_module_init, mod);
}

/**
 * kprobe_blacklist_remove_module() - drop a going module's entries
 * @mod: a module in MODULE_STATE_GOING
 *
 * Context: process context (module notifier).
 */
void kprobe_blacklist_remove_module(struct module *mod)
{
	kprobe_blacklist_remove(kprobe_blacklist_in_module, mod);
}

/*
 * Functions of other subsystems that the way into kprobes' hit handling
 * calls before kprobes knows it is handling a hit, or the way out after
 * it no longer does: a probe there would recurse.  With CONFIG_PROVE_RCU,
 * RCU's lockdep checks run in every RCU list walk, the arm64 break-hook
 * walk among them.
 */
static const char * const kprobe_blacklist_callees[] = {
	/*
	 * RCU's own checks call it on the way into a hit, before the hit
	 * is marked (rcu_read_lock_held_common() with PROVE_RCU), and so
	 * may RCU code a handler runs before its own recursion guard: a
	 * probe on it, reached from a hit without a trap, entered the hit
	 * again until the stack overflowed.
	 */
	"rcu_is_watching",
#ifdef CONFIG_PROVE_LOCKING
	/*
	 * The exit of a breakpoint exception (irqentry_nmi_exit() on x86,
	 * the debug exception's on arm64) calls it when lockdep's interrupt
	 * state was on at the entry.  The entry turns that state off only
	 * while lockdep runs: once debug_locks is off (after any lockdep
	 * report), and on arm64 inside lockdep's recursion guard
	 * (lock_acquire() and the like, around __lock_acquire()), it stays
	 * on, and a probe here is hit again on the way out of its own hit,
	 * and again, until the stack overflows.
	 */
	"lockdep_hardirqs_on_prepare",
#endif
#ifdef CONFIG_PROVE_RCU
	"debug_lockdep_rcu_enabled",
	"rcu_read_lock_held_common",
	"rcu_read_lock_held",
	"rcu_read_lock_any_held",
	"rcu_read_lock_sched_held",
	"rcu_read_lock_bh_held",
	"rcu_lockdep_current_cpu_online",
#endif
};

/**
 * struct kprobe_named_scan - the state of a scan for functions by name
 * @names: the names
 * @nr: how many
 * @err: -ENOMEM once an entry could not be added
 */
struct kprobe_named_scan {
	const char * const *names;
	unsigned int nr;
	int err;
};

static int kprobe_blacklist_named(void *data, const char *name,
				  struct module *mod, unsigned long addr)
{
	struct kprobe_named_scan *scan = data;
	unsigned int i;

	if (mod || !core_kernel_text(addr))
		return 0;
	for (i = 0; i < scan->nr; i++) {
		if (strcmp(name, scan->names[i]))
			continue;
		if (kprobe_blacklist_add_symbol(addr) == -ENOMEM)
			scan->err = -ENOMEM;
		break;
	}
	return 0;
}

/**
 * kprobe_blacklist_add_functions() - blacklist every function of a name
 * @names: names of functions of the kernel (not of modules)
 * @nr: how many
 *
 * Every function with one of these names is blacklisted, not only the
 * first the symbol table finds: a static inline function the compiler
 * did not inline has a local copy in each object file that calls it, all
 * with the same name.  For arch_populate_kprobe_blacklist().
 *
 * Context: boot, process context.
 * Return: 0 or -ENOMEM.
 */
int kprobe_blacklist_add_functions(const char * const *names, unsigned int nr)
{
	struct kprobe_named_scan scan = { .names = names, .nr = nr };

	kallsyms_on_each_symbol(kprobe_blacklist_named, &scan);
	return scan.err;
}

static void kprobe_blacklist_add_callees(void)
{
	if (kprobe_blacklist_add_functions(kprobe_blacklist_callees,
					   ARRAY_SIZE(kprobe_blacklist_callees)))
		pr_warn("out of memory for blacklist entries\n");
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
	if (!ret) {
		kprobe_blacklist_add_callees();
		kprobe_blacklist_add_copies(NULL);
	}
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

/*
 * Jump label sites, by address.  jump_label_text_reserved() decodes the
 * instruction of every entry of the kernel's table below the address (the
 * table is sorted by key, not by address): on a distribution's kernel,
 * tens of thousands of decodes for each probe registered.  The kernel's
 * own sites never move, so the first check makes an index of them sorted
 * by address; a module's sites, which are few, are left to
 * jump_label_text_reserved().
 */
#ifdef CONFIG_JUMP_LABEL
/* No jump label instruction is longer */
#define KPROBE_JUMP_SITE_MAX	16

/* Indices into __start___jump_table, by address (kprobe_mutex) */
static u32 *kprobe_jump_index;
static unsigned int kprobe_nr_jumps;
static bool kprobe_jump_index_failed;

static unsigned long kprobe_jump_code(u32 i)
{
	return jump_entry_code(__start___jump_table + i);
}

static int kprobe_jump_cmp(const void *a, const void *b)
{
	unsigned long x = kprobe_jump_code(*(const u32 *)a);
	unsigned long y = kprobe_jump_code(*(const u32 *)b);

	return x < y ? -1 : x > y;
}

static bool kprobe_jump_index_build_locked(void)
{
	unsigned int n = __stop___jump_table - __start___jump_table, i;
	u32 *index;

	if (kprobe_jump_index || kprobe_jump_index_failed)
		return kprobe_jump_index;
	index = kvmalloc_array(n ?: 1, sizeof(*index), GFP_KERNEL);
	if (!index) {
		kprobe_jump_index_failed = true;
		return false;
	}
	for (i = 0; i < n; i++)
		index[i] = i;
	sort(index, n, sizeof(*index), kprobe_jump_cmp, NULL);
	kprobe_nr_jumps = n;
	kprobe_jump_index = index;
	return true;
}

/**
 * kprobe_jump_label_reserved() - does a jump label site overlap a range?
 * @start: first byte of the range
 * @end: last byte of the range
 *
 * jump_label_text_reserved(), in logarithmic time for the kernel's text.
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: true if a jump label instruction overlaps [@start, @end].
 */
bool kprobe_jump_label_reserved(unsigned long start, unsigned long end)
{
	unsigned int lo = 0, hi, mid;
	struct jump_entry *entry;
	bool reserved;

	lockdep_assert_held(&kprobe_mutex);
	if (is_module_text_address(start) || !kprobe_jump_index_build_locked()) {
		jump_label_lock();
		reserved = jump_label_text_reserved((void *)start, (void *)end);
		jump_label_unlock();
		return reserved;
	}
	/* The first site that could reach @start */
	hi = kprobe_nr_jumps;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (kprobe_jump_code(kprobe_jump_index[mid]) <
		    start - KPROBE_JUMP_SITE_MAX + 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < kprobe_nr_jumps; lo++) {
		entry = __start___jump_table + kprobe_jump_index[lo];
		if (jump_entry_code(entry) > end)
			break;
		/* As jump_label_text_reserved(): init text is gone at run time */
		if (jump_entry_is_init(entry) && system_state >= SYSTEM_RUNNING)
			continue;
		if (jump_entry_code(entry) + jump_entry_size(entry) > start)
			return true;
	}
	return false;
}
#else
bool kprobe_jump_label_reserved(unsigned long start, unsigned long end)
{
	return false;
}
#endif
