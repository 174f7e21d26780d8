// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes instruction slot cache.
 *
 * An out-of-line copy of a probed instruction must be executable and, for
 * RIP-relative operands on x86, within a 32-bit displacement of the
 * original; module_alloc() memory is both.  Slots of KPROBE_INSN_SLOT_SIZE
 * bytes are carved from read-only executable pages, written only through
 * the arch's text patching, and a page is returned when its last slot is.
 *
 * Locking: kprobe_slot_mutex guards the page list and each page's bitmap.
 * The list is also walked under RCU by is_kprobe_insn_slot() and
 * kprobe_get_kallsym(), which the unwinder and /proc/kallsyms call, so a
 * page is unlinked with list_del_rcu() and freed by a work item queued
 * for after a grace period: unregistering thousands of probes empties
 * pages by the hundred, and must not wait a grace period for each with
 * the mutex held.
 * Callers free a slot only after no CPU can be executing in it (see the
 * retirement steps in kprobes.c).
 */

#include <linux/bitmap.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/moduleloader.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/set_memory.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#define SLOTS_PER_PAGE	(PAGE_SIZE / KPROBE_INSN_SLOT_SIZE)

/* The name of a page of slots, in /proc/kallsyms and perf */
#define KPROBE_INSN_PAGE_SYM	"kprobe_insn_page"

/**
 * struct kprobe_insn_page - one page of instruction slots
 * @list: entry in kprobe_insn_pages (kprobe_slot_mutex; RCU)
 * @free_work: frees the page once unlinked, after a grace period
 * @base: the page (immutable); slots are KPROBE_INSN_SLOT_SIZE bytes
 * @nused: slots in use (kprobe_slot_mutex)
 * @used: which slots are in use (kprobe_slot_mutex)
 */
struct kprobe_insn_page {
	struct list_head list;
	struct rcu_work free_work;
	void *base;
	unsigned int nused;
	DECLARE_BITMAP(used, SLOTS_PER_PAGE);
};

static DEFINE_MUTEX(kprobe_slot_mutex);
static LIST_HEAD(kprobe_insn_pages);

/* A fresh page full of traps, mapped read-only and executable. */
static void *kprobe_alloc_insn_page(void)
{
	void *page = module_alloc(PAGE_SIZE);

	if (!page)
		return NULL;
	memset(page, KPROBE_INSN_PAGE_FILL, PAGE_SIZE);
	/* vfree() must restore the direct map's permissions too. */
	set_vm_flush_reset_perms(page);
	set_memory_ro((unsigned long)page, 1);
	set_memory_x((unsigned long)page, 1);
	return page;
}

static void kprobe_free_insn_page(struct work_struct *work)
{
	struct kprobe_insn_page *kip =
		container_of(to_rcu_work(work), struct kprobe_insn_page,
			     free_work);

	module_memfree(kip->base);
	kfree(kip);
}

/**
 * get_insn_slot() - allocate an instruction slot
 *
 * Context: process context, may sleep.
 * Return: a slot of KPROBE_INSN_SLOT_SIZE executable bytes, or NULL.
 */
kprobe_opcode_t *get_insn_slot(void)
{
	struct kprobe_insn_page *kip;
	kprobe_opcode_t *slot = NULL;
	unsigned int idx;

	mutex_lock(&kprobe_slot_mutex);
	list_for_each_entry(kip, &kprobe_insn_pages, list) {
		if (kip->nused < SLOTS_PER_PAGE)
			goto found;
	}
	kip = kzalloc(sizeof(*kip), GFP_KERNEL);
	if (!kip)
		goto out;
	kip->base = kprobe_alloc_insn_page();
	if (!kip->base) {
		kfree(kip);
		goto out;
	}
	list_add_rcu(&kip->list, &kprobe_insn_pages);
	/* Out-of-line code, for perf's symbol maps, named as in kallsyms */
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
			   (unsigned long)kip->base, PAGE_SIZE, false,
			   KPROBE_INSN_PAGE_SYM);
found:
	idx = find_first_zero_bit(kip->used, SLOTS_PER_PAGE);
	__set_bit(idx, kip->used);
	kip->nused++;
	slot = kip->base + idx * KPROBE_INSN_SLOT_SIZE;
out:
	mutex_unlock(&kprobe_slot_mutex);
	return slot;
}

/**
 * free_insn_slot() - return a slot to the cache
 * @slot: a slot from get_insn_slot(), no longer executed by any CPU
 *
 * Context: process context, may sleep.
 */
void free_insn_slot(kprobe_opcode_t *slot)
{
	struct kprobe_insn_page *kip;
	unsigned int idx;

	if (!slot)
		return;
	mutex_lock(&kprobe_slot_mutex);
	list_for_each_entry(kip, &kprobe_insn_pages, list) {
		if ((void *)slot >= kip->base &&
		    (void *)slot < kip->base + PAGE_SIZE)
			goto found;
	}
	WARN_ONCE(1, "kprobes: freeing unknown slot %p\n", slot);
	goto out;
found:
	idx = ((void *)slot - kip->base) / KPROBE_INSN_SLOT_SIZE;
	if (WARN_ON_ONCE(!__test_and_clear_bit(idx, kip->used)))
		goto out;
	if (--kip->nused)
		goto out;
	list_del_rcu(&kip->list);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
			   (unsigned long)kip->base, PAGE_SIZE, true,
			   KPROBE_INSN_PAGE_SYM);
	/* After the RCU walks of is_kprobe_insn_slot() and friends */
	INIT_RCU_WORK(&kip->free_work, kprobe_free_insn_page);
	queue_rcu_work(system_wq, &kip->free_work);
out:
	mutex_unlock(&kprobe_slot_mutex);
}

/**
 * is_kprobe_insn_slot() - is @addr inside the slot cache?
 * @addr: any address
 *
 * Lets the unwinder and kernel_text_address() accept an instruction
 * pointer that is inside an out-of-line copy.
 *
 * Context: any.
 * Return: true if @addr is in a slot page.
 */
bool is_kprobe_insn_slot(unsigned long addr)
{
	struct kprobe_insn_page *kip;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(kip, &kprobe_insn_pages, list) {
		if (addr >= (unsigned long)kip->base &&
		    addr < (unsigned long)kip->base + PAGE_SIZE) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

NOKPROBE_SYMBOL(is_kprobe_insn_slot);

/**
 * is_kprobe_optinsn_slot() - is @addr in the arch's pages of detours?
 * @addr: any address
 *
 * For kernel_text_address(), as is_kprobe_insn_slot().  The default is for
 * an arch whose detours are in slot pages, or that has none.
 *
 * Context: any.
 * Return: true if @addr is in a page of detours outside the kernel image.
 */
bool __weak is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

NOKPROBE_SYMBOL(is_kprobe_optinsn_slot);

/**
 * arch_kprobe_get_kallsym() - describe the arch's pages of detours
 * @symnum: index of the page, counted from the arch's first
 * @value: its address
 * @type: its symbol type
 * @sym: its name
 *
 * Context: process context.
 * Return: 0, or -ERANGE past the last page.
 */
int __weak arch_kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				   char *type, char *sym)
{
	return -ERANGE;
}

/**
 * kprobe_get_kallsym() - describe slot pages to /proc/kallsyms
 * @symnum: index of the page
 * @value: its address
 * @type: its symbol type
 * @sym: its name
 *
 * The slot pages come first, then those of the arch
 * (arch_kprobe_get_kallsym()).
 *
 * Context: process context.
 * Return: 0, or -ERANGE past the last page.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	struct kprobe_insn_page *kip;

	rcu_read_lock();
	list_for_each_entry_rcu(kip, &kprobe_insn_pages, list) {
		if (symnum--)
			continue;
		*value = (unsigned long)kip->base;
		*type = 't';
		strscpy(sym, KPROBE_INSN_PAGE_SYM, KSYM_NAME_LEN);
		rcu_read_unlock();
		return 0;
	}
	rcu_read_unlock();
	return arch_kprobe_get_kallsym(symnum, value, type, sym);
}
