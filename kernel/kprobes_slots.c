// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes' executable pages: the instruction slot cache, and the pages
 * any arch takes for code of its own (arm64's detours of module text).
 *
 * An out-of-line copy of a probed instruction must be executable and, for
 * RIP-relative operands on x86, within a 32-bit displacement of the
 * original; module_alloc() memory is both.  Every such page is a
 * struct kprobe_code_page: mapped read-only and executable, written only
 * through the arch's text patching, and listed so that the unwinders
 * (kernel_text_address() -> is_kprobe_insn_slot()), /proc/kallsyms and
 * perf's symbol maps know it.  Slots of KPROBE_INSN_SLOT_SIZE bytes are
 * carved from such pages, and a page is returned when its last slot is.
 *
 * Locking: kprobe_code_mutex guards kprobe_code_pages, which is also
 * walked under RCU by is_kprobe_insn_slot() and kprobe_get_kallsym(): a
 * page is unlinked with list_del_rcu() and freed by a work item queued
 * for after a grace period (unregistering thousands of probes empties
 * pages by the hundred, and must not wait a grace period for each with a
 * mutex held).  kprobe_code_mutex is a leaf: the owners' locks
 * (kprobe_slot_mutex, which guards the slot pages and their bitmaps, and
 * the arch's) are taken outside it.  Callers free a slot only after no CPU
 * can be executing in it (see the retirement steps in kprobes.c).
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

/**
 * struct kprobe_code_page - a page of kprobes' executable code
 * @list: entry in kprobe_code_pages (kprobe_code_mutex; RCU)
 * @free_work: frees the page once unlinked, after a grace period
 * @base: the page (immutable)
 * @sym: its name in /proc/kallsyms and for perf (immutable)
 */
struct kprobe_code_page {
	struct list_head list;
	struct rcu_work free_work;
	void *base;
	const char *sym;
};

static DEFINE_MUTEX(kprobe_code_mutex);
static LIST_HEAD(kprobe_code_pages);

/**
 * kprobe_code_page_alloc() - a page for kprobes' executable code
 * @sym: its name in /proc/kallsyms and for perf, a string that stays
 * @fill: the byte it is filled with, one that traps when executed
 *
 * The page comes from module_alloc(), near kernel and module text (the
 * caller checks the reach it needs), mapped read-only and executable:
 * write it with the arch's text patching.  It is kernel text to the
 * unwinders from now on.
 *
 * Context: process context, may sleep.
 * Return: the page, or NULL.
 */
struct kprobe_code_page *kprobe_code_page_alloc(const char *sym, int fill)
{
	struct kprobe_code_page *page;

	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page)
		return NULL;
	page->sym = sym;
	page->base = module_alloc(PAGE_SIZE);
	if (!page->base)
		goto fail;
	memset(page->base, fill, PAGE_SIZE);
	/* vfree() must restore the direct map's permissions too. */
	set_vm_flush_reset_perms(page->base);
	if (set_memory_ro((unsigned long)page->base, 1) ||
	    set_memory_x((unsigned long)page->base, 1)) {
		module_memfree(page->base);
		goto fail;
	}
	mutex_lock(&kprobe_code_mutex);
	list_add_rcu(&page->list, &kprobe_code_pages);
	mutex_unlock(&kprobe_code_mutex);
	/* Out-of-line code, for perf's symbol maps, named as in kallsyms */
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
			   (unsigned long)page->base, PAGE_SIZE, false, sym);
	return page;
fail:
	kfree(page);
	return NULL;
}

static void kprobe_code_page_free_work(struct work_struct *work)
{
	struct kprobe_code_page *page =
		container_of(to_rcu_work(work), struct kprobe_code_page,
			     free_work);

	module_memfree(page->base);
	kfree(page);
}

/**
 * kprobe_code_page_free() - give back a page of kprobe_code_page_alloc()
 * @page: the page, which no CPU executes any more
 *
 * The page stops being text at once and is freed after a grace period,
 * when the RCU walks of is_kprobe_insn_slot() and kallsyms are done.
 *
 * Context: process context, may sleep.
 */
void kprobe_code_page_free(struct kprobe_code_page *page)
{
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
			   (unsigned long)page->base, PAGE_SIZE, true,
			   page->sym);
	mutex_lock(&kprobe_code_mutex);
	list_del_rcu(&page->list);
	mutex_unlock(&kprobe_code_mutex);
	INIT_RCU_WORK(&page->free_work, kprobe_code_page_free_work);
	queue_rcu_work(system_wq, &page->free_work);
}

/**
 * kprobe_code_page_addr() - where a page of kprobe_code_page_alloc() is
 * @page: the page
 *
 * Context: any.
 * Return: its address.
 */
void *kprobe_code_page_addr(const struct kprobe_code_page *page)
{
	return page->base;
}

/**
 * is_kprobe_insn_slot() - is @addr in one of kprobes' code pages?
 * @addr: any address
 *
 * Lets the unwinder and kernel_text_address() accept an instruction
 * pointer that is inside an out-of-line copy or a detour.
 *
 * Context: any, with RCU watching (kernel_text_address() sees to it).
 * Return: true if @addr is in a page of kprobe_code_page_alloc().
 */
bool is_kprobe_insn_slot(unsigned long addr)
{
	struct kprobe_code_page *page;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(page, &kprobe_code_pages, list) {
		if (addr >= (unsigned long)page->base &&
		    addr < (unsigned long)page->base + PAGE_SIZE) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

NOKPROBE_SYMBOL(is_kprobe_insn_slot);

/**
 * kprobe_get_kallsym() - describe kprobes' code pages to /proc/kallsyms
 * @symnum: index of the page
 * @value: its address
 * @type: its symbol type
 * @sym: its name
 *
 * Context: process context.
 * Return: 0, or -ERANGE past the last page.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	struct kprobe_code_page *page;
	int ret = -ERANGE;

	rcu_read_lock();
	list_for_each_entry_rcu(page, &kprobe_code_pages, list) {
		if (symnum--)
			continue;
		*value = (unsigned long)page->base;
		*type = 't';
		strscpy(sym, page->sym, KSYM_NAME_LEN);
		ret = 0;
		break;
	}
	rcu_read_unlock();
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The instruction slot cache                                              */
/* ---------------------------------------------------------------------- */

#define SLOTS_PER_PAGE	(PAGE_SIZE / KPROBE_INSN_SLOT_SIZE)

/**
 * struct kprobe_insn_page - one page of instruction slots
 * @list: entry in kprobe_insn_pages (kprobe_slot_mutex)
 * @code: the page (immutable); slots are KPROBE_INSN_SLOT_SIZE bytes
 * @nused: slots in use (kprobe_slot_mutex)
 * @used: which slots are in use (kprobe_slot_mutex)
 */
struct kprobe_insn_page {
	struct list_head list;
	struct kprobe_code_page *code;
	unsigned int nused;
	DECLARE_BITMAP(used, SLOTS_PER_PAGE);
};

static DEFINE_MUTEX(kprobe_slot_mutex);
static LIST_HEAD(kprobe_insn_pages);

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
	kip->code = kprobe_code_page_alloc("kprobe_insn_page",
					   KPROBE_INSN_PAGE_FILL);
	if (!kip->code) {
		kfree(kip);
		goto out;
	}
	list_add(&kip->list, &kprobe_insn_pages);
found:
	idx = find_first_zero_bit(kip->used, SLOTS_PER_PAGE);
	__set_bit(idx, kip->used);
	kip->nused++;
	slot = kip->code->base + idx * KPROBE_INSN_SLOT_SIZE;
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
		if ((void *)slot >= kip->code->base &&
		    (void *)slot < kip->code->base + PAGE_SIZE)
			goto found;
	}
	WARN_ONCE(1, "kprobes: freeing unknown slot %p\n", slot);
	goto out;
found:
	idx = ((void *)slot - kip->code->base) / KPROBE_INSN_SLOT_SIZE;
	if (WARN_ON_ONCE(!__test_and_clear_bit(idx, kip->used)))
		goto out;
	if (--kip->nused)
		goto out;
	list_del(&kip->list);
	kprobe_code_page_free(kip->code);
	kfree(kip);
out:
	mutex_unlock(&kprobe_slot_mutex);
}
