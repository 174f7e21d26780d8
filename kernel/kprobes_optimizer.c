// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes jump optimization: the optimizer.
 *
 * A probe point whose kprobes need no post_handler can be hit without an
 * exception: the arch replaces the instruction(s) at the point, the
 * "region", with a jump to a detour that saves the registers, runs the
 * pre_handlers, runs copies of the replaced instructions and jumps back
 * behind the region.  The breakpoint stays the way in until the jump is
 * written, and comes back before the jump goes.
 *
 * States of a point (enum kprobe_opt_state), and every transition; each
 * goes through kprobe_opt_set_state():
 *
 *   NONE --(wanted: kprobe_opt_update_locked)--> QUEUED
 *	The point is armed, is not served by ftrace, none of its enabled
 *	kprobes has a post_handler, no other point lies in its region or has
 *	it in its region, the sysctl is on, it is not in the idle loop's text
 *	(KPROBE_OPT_IDLE), and the arch has not refused it.
 *	The optimizer work runs after a short delay, so that the points
 *	registered together are optimized together.
 *
 *   QUEUED --(optimizer, step 1)--> DIVERTING
 *	The arch checks that the region may be replaced and builds the
 *	detour (arch_prepare_optimized_kprobe_point()); from now on a
 *	breakpoint hit resumes in the detour, after the handlers, so no CPU
 *	enters the region behind its first byte any more.  A refused point
 *	goes back to NONE and records why (opt_refused); it is not queued
 *	again.
 *
 *   DIVERTING --(optimizer, steps 2 and 3)--> OPTIMIZED
 *	2. synchronize_rcu(), and with preemption synchronize_rcu_tasks():
 *	   every CPU and task that was inside the region, or in a copy of an
 *	   instruction that returns into it, has left it.
 *	3. The arch writes the jumps of the whole batch at once
 *	   (arch_optimize_kprobe_points()).
 *
 *   QUEUED, DIVERTING --(no longer wanted)--> NONE
 *	Dequeued; a DIVERTING point's hits go back to the normal replay.
 *
 *   OPTIMIZED --(no longer wanted)--> NONE
 *	At once, before the caller returns: the arch puts the breakpoint
 *	back in front of the jump, then the rest of the original text
 *	(arch_unoptimize_kprobe_points()), for all the points that go
 *	together in one batch (kprobe_opt_gather_locked(),
 *	kprobe_opt_cancel_batch_locked()).  Tasks still in the detour leave
 *	it by its jump back; the detour is freed with the point, after an
 *	RCU-tasks grace period.
 *
 * A point that leaves DIVERTING or OPTIMIZED is marked opt_vacating: tasks
 * may still be in its detour, where they run the pre_handlers they find
 * and no post_handler.  Before a kprobe with a post_handler can be found
 * there, they must have left: register_kprobes() and enable_kprobe() wait
 * for them without kprobe_mutex, under a hold on the addresses that keeps
 * any point there from being optimized again meanwhile
 * (kprobe_opt_hold_begin_many()); kprobe_opt_prepare_locked(), with the
 * mutex held, is what is left where the hold found no memory.
 *
 * Everything here runs under kprobe_mutex, but the grace periods of step
 * 2, which the optimizer waits for with the mutex dropped: its batch is on
 * its own stack, and a point dequeued meanwhile is simply taken off it.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bsearch.h>
#include <linux/cpu.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/rcupdate_trace.h>
#include <linux/sort.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "kprobes_internal.h"

/* How long the optimizer waits to gather a batch */
#define KPROBE_OPT_DELAY	(HZ / 20)

/* debug.kprobes-optimization (kprobe_mutex) */
int sysctl_kprobes_optimization = 1;

/*
 * Batches of jumps step 3 has written, and batches of jumps removed, for
 * the tests (kprobe_mutex)
 */
static unsigned long kprobe_opt_nr_batches[2];

/* Points in QUEUED state, in queueing order (kprobe_mutex) */
static LIST_HEAD(kprobe_opt_queue);

/* &struct kprobe_opt_hold of the registrations waiting (kprobe_mutex) */
static LIST_HEAD(kprobe_opt_holds);

static void kprobe_optimizer(struct work_struct *work);
static DECLARE_DELAYED_WORK(kprobe_opt_work, kprobe_optimizer);

/* The one place a point changes state; its kprobes' flags follow. */
static void kprobe_opt_set_state(struct kprobe_point *kpp,
				 enum kprobe_opt_state state)
{
	struct kprobe *p;

	lockdep_assert_held(&kprobe_mutex);
	if (kpp->opt_state >= KPROBE_OPT_DIVERTING &&
	    state < KPROBE_OPT_DIVERTING)
		kpp->opt_vacating = true;
	WRITE_ONCE(kpp->opt_state, state);
	list_for_each_entry(p, &kpp->probes, list) {
		if (state == KPROBE_OPT_OPTIMIZED)
			WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_OPTIMIZED);
		else
			WRITE_ONCE(p->flags, p->flags & ~KPROBE_FLAG_OPTIMIZED);
	}
}

/*
 * The address @off bytes from @addr: regions are measured in bytes, and a
 * kprobe_opcode_t is not one byte everywhere (arm64: an instruction).
 */
static kprobe_opcode_t *kprobe_opt_byte(kprobe_opcode_t *addr, long off)
{
	return (kprobe_opcode_t *)((unsigned long)addr + off);
}

/*
 * Is another point inside @kpp's region, or @kpp inside another's?  Then
 * neither may be optimized: a jump would cover a breakpoint, or resume
 * the replay of one in the middle of the jump.
 */
static bool kprobe_opt_blocked(struct kprobe_point *kpp)
{
	struct kprobe_point *other;
	unsigned int i;

	if (!kpp->opt_near)
		return false;
	for (i = 1; i < kpp->opt_len; i++) {
		if (kprobe_point_lookup(kprobe_opt_byte(kpp->addr, i)))
			return true;
	}
	for (i = 1; i <= kpp->opt_back; i++) {
		other = kprobe_point_lookup(kprobe_opt_byte(kpp->addr, -(long)i));
		if (other && other->opt_len > i)
			return true;
	}
	return false;
}

static int kprobe_opt_addr_cmp(const void *a, const void *b)
{
	kprobe_opcode_t *x = *(kprobe_opcode_t * const *)a;
	kprobe_opcode_t *y = *(kprobe_opcode_t * const *)b;

	return x < y ? -1 : x > y;
}

/* Is a kprobe with a post_handler on its way to @addr? */
static bool kprobe_opt_held(kprobe_opcode_t *addr)
{
	struct kprobe_opt_hold *hold;

	list_for_each_entry(hold, &kprobe_opt_holds, node) {
		if (bsearch(&addr, hold->addrs, hold->nr, sizeof(addr),
			    kprobe_opt_addr_cmp))
			return true;
	}
	return false;
}

static bool kprobe_opt_wanted(struct kprobe_point *kpp)
{
	struct kprobe *p;

	if (!sysctl_kprobes_optimization || !kpp->armed || kpp->ftrace ||
	    kpp->text_going || kpp->opt_refused || !kpp->opt_len)
		return false;
	list_for_each_entry(p, &kpp->probes, list) {
		if (!kprobe_disabled(p) && p->post_handler)
			return false;
	}
	return !kprobe_opt_blocked(kpp) && !kprobe_opt_held(kpp->addr);
}

/**
 * kprobe_opt_gather_locked() - put an optimized point on a batch to cancel
 * @kpp: any point; only an OPTIMIZED one is taken
 * @batch: a list for kprobe_opt_cancel_batch_locked()
 *
 * Points that lose their jumps together (unregister_kprobes(), the sysctl,
 * debugfs kprobes/enabled, text going away) lose them in one batch of text
 * changes, with two syncs of every CPU in all rather than two per point.
 * Nothing else may cancel a gathered point before the batch is.
 *
 * Context: kprobe_mutex held.
 * Return: true if @kpp is on @batch (now or already).
 */
bool kprobe_opt_gather_locked(struct kprobe_point *kpp,
			      struct list_head *batch)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kpp->opt_state != KPROBE_OPT_OPTIMIZED)
		return false;
	/* An OPTIMIZED point is on no list, unless gathered already. */
	if (list_empty(&kpp->opt_node))
		list_add_tail(&kpp->opt_node, batch);
	return true;
}

/**
 * kprobe_opt_cancel_batch_locked() - OPTIMIZED -> NONE for a batch
 * @batch: points gathered by kprobe_opt_gather_locked()
 * @then: NULL, or called on each point of @batch once all their jumps
 *	are gone and the point is off @batch
 *
 * When this returns the jumps are gone and @batch is empty.  A point that
 * is still wanted optimized is queued again by the next
 * kprobe_opt_update_locked(), which @then may be.
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_opt_cancel_batch_locked(struct list_head *batch,
				    void (*then)(struct kprobe_point *kpp))
{
	struct kprobe_point *kpp, *tmp;

	lockdep_assert_held(&kprobe_mutex);
	if (list_empty(batch))
		return;
	arch_unoptimize_kprobe_points(batch);
	kprobe_opt_nr_batches[1]++;
	list_for_each_entry_safe(kpp, tmp, batch, opt_node) {
		list_del_init(&kpp->opt_node);
		kprobe_opt_set_state(kpp, KPROBE_OPT_NONE);
		if (then)
			then(kpp);
	}
}

/**
 * kprobe_opt_cancel_locked() - bring a point back to its breakpoint
 * @kpp: a point
 *
 * When this returns the jump, if there was one, is gone.
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_opt_cancel_locked(struct kprobe_point *kpp)
{
	LIST_HEAD(one);

	lockdep_assert_held(&kprobe_mutex);
	switch (kpp->opt_state) {
	case KPROBE_OPT_NONE:
		return;
	case KPROBE_OPT_QUEUED:
	case KPROBE_OPT_DIVERTING:
		list_del_init(&kpp->opt_node);
		kprobe_opt_set_state(kpp, KPROBE_OPT_NONE);
		return;
	case KPROBE_OPT_OPTIMIZED:
		kprobe_opt_gather_locked(kpp, &one);
		kprobe_opt_cancel_batch_locked(&one, NULL);
		return;
	}
}

/*
 * Every task that was, when this was called, inside a region or a copy of
 * an instruction that returns into one, or between a jump and the end of
 * its detour's handlers (where interrupts may be on, and with preemption
 * the task preempted), has left it.
 */
static void kprobe_opt_wait_for_tasks(void)
{
	synchronize_rcu();
	if (IS_ENABLED(CONFIG_PREEMPTION))
		synchronize_rcu_tasks();
}

/**
 * kprobe_opt_prepare_locked() - make way for a kprobe with a post_handler
 * @kpp: the point @p is about to join, or be enabled on
 * @p: the kprobe, not on @kpp's list yet, or still disabled
 *
 * A hit through a detour runs the pre_handlers of the kprobes it finds on
 * the point's list, and no post_handler.  So before @p can be found there,
 * the jump goes, and every task that took it, now or before an earlier
 * unoptimization (opt_vacating), has left the detour: from then on @p's
 * pre_handler runs only where its post_handler does.  kprobe_mutex stays
 * held across the wait here, which may take seconds: register_kprobes()
 * and enable_kprobe() wait before, without it (kprobe_opt_hold_begin_many()),
 * and leave nothing to wait for here, unless register_kprobes() had no
 * memory for the addresses of the hold.
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_opt_prepare_locked(struct kprobe_point *kpp, struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	if (!p->post_handler)
		return;
	if (kpp->opt_state >= KPROBE_OPT_DIVERTING)
		kprobe_opt_cancel_locked(kpp);
	if (kpp->opt_vacating) {
		kprobe_opt_wait_for_tasks();
		kpp->opt_vacating = false;
	}
}

/**
 * kprobe_opt_hold_begin_many() - make way for kprobes with a post_handler
 * @hold: the caller's, until kprobe_opt_hold_end_locked()
 * @addrs: where the kprobes are about to be registered, or enabled;
 *	the caller's too, until then (sorted here)
 * @nr: how many
 *
 * What kprobe_opt_prepare_locked() does, with the wait for the tasks in a
 * detour done without kprobe_mutex, so that other registrations and the
 * module notifier go on meanwhile:
 *
 *   1. under the mutex, @hold is listed: no point at any of @addrs is
 *      optimized from then on (kprobe_opt_wanted()), whichever point lives
 *      there (the one there may retire and another take its place: the
 *      hold is on the address, and pins nothing); the jumps of the points
 *      there, if any, go, in one batch;
 *   2. if one of the points was marked opt_vacating, one wait, without
 *      the mutex;
 *   3. under the mutex again, the marks of the points at @addrs are
 *      cleared: the tasks of every detour they had are gone, and they had
 *      none since step 1.
 *
 * The caller then registers or enables the kprobes, and ends the hold
 * under the same holding of the mutex, so that no jump comes back in
 * between; kprobe_opt_prepare_locked() then finds nothing to wait for.
 *
 * Context: process context, kprobe_mutex not held, may sleep.
 */
void kprobe_opt_hold_begin_many(struct kprobe_opt_hold *hold,
				kprobe_opcode_t **addrs, unsigned int nr)
{
	struct kprobe_point *kpp;
	LIST_HEAD(batch);
	bool wait = false;
	unsigned int i;

	sort(addrs, nr, sizeof(*addrs), kprobe_opt_addr_cmp, NULL);
	hold->addrs = addrs;
	hold->nr = nr;
	/* 1. */
	mutex_lock(&kprobe_mutex);
	list_add(&hold->node, &kprobe_opt_holds);
	for (i = 0; i < nr; i++) {
		kpp = kprobe_point_lookup(addrs[i]);
		if (kpp && !kprobe_opt_gather_locked(kpp, &batch))
			kprobe_opt_cancel_locked(kpp);
	}
	kprobe_opt_cancel_batch_locked(&batch, NULL);
	for (i = 0; i < nr && !wait; i++) {
		kpp = kprobe_point_lookup(addrs[i]);
		wait = kpp && kpp->opt_vacating;
	}
	kprobes_commit_locked();
	mutex_unlock(&kprobe_mutex);
	if (!wait)
		return;
	/* 2. */
	kprobe_opt_wait_for_tasks();
	/* 3. */
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < nr; i++) {
		kpp = kprobe_point_lookup(addrs[i]);
		if (kpp)
			kpp->opt_vacating = false;
	}
	mutex_unlock(&kprobe_mutex);
}

/**
 * kprobe_opt_hold_begin() - make way for a kprobe with a post_handler
 * @hold: the caller's, until kprobe_opt_hold_end_locked()
 * @addr: where the kprobe is about to be registered, or enabled
 *
 * kprobe_opt_hold_begin_many() for one address.
 *
 * Context: process context, kprobe_mutex not held, may sleep.
 */
void kprobe_opt_hold_begin(struct kprobe_opt_hold *hold,
			   kprobe_opcode_t *addr)
{
	hold->addr = addr;
	kprobe_opt_hold_begin_many(hold, &hold->addr, 1);
}

/**
 * kprobe_opt_hold_end_locked() - end a kprobe_opt_hold_begin_many()
 * @hold: the hold
 *
 * The points at its addresses may be optimized again, if their kprobes
 * allow (one the hold was for failed to register, or is disabled).
 *
 * Context: kprobe_mutex held.
 */
void kprobe_opt_hold_end_locked(struct kprobe_opt_hold *hold)
{
	struct kprobe_point *kpp;
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);
	list_del(&hold->node);
	for (i = 0; i < hold->nr; i++) {
		kpp = kprobe_point_lookup(hold->addrs[i]);
		if (kpp)
			kprobe_opt_update_locked(kpp);
	}
}

/**
 * kprobe_opt_update_locked() - queue or cancel a point's optimization
 * @kpp: a point whose kprobes, arming or neighbours changed
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_opt_update_locked(struct kprobe_point *kpp)
{
	bool wanted = kprobe_opt_wanted(kpp);

	lockdep_assert_held(&kprobe_mutex);
	if (!wanted) {
		kprobe_opt_cancel_locked(kpp);
	} else if (kpp->opt_state == KPROBE_OPT_NONE) {
		list_add_tail(&kpp->opt_node, &kprobe_opt_queue);
		kprobe_opt_set_state(kpp, KPROBE_OPT_QUEUED);
		schedule_delayed_work(&kprobe_opt_work, KPROBE_OPT_DELAY);
	} else {
		/* A kprobe that joined an optimized point gets its flag. */
		kprobe_opt_set_state(kpp, kpp->opt_state);
	}
}

/**
 * kprobe_opt_neighbours_locked() - a point was hashed or unhashed
 * @kpp: the point
 * @added: it was hashed (else it is gone from the hash)
 *
 * The points whose region could cover @kpp's address (those less than
 * KPROBE_OPT_MAX_LEN bytes before it in its function), or that @kpp's
 * region covers, are looked at again; a new point and those it finds are
 * marked opt_near.  A point that goes without ever having been near
 * another needs no look.
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_opt_neighbours_locked(struct kprobe_point *kpp, bool added)
{
	struct kprobe_point *other;
	int i;

	lockdep_assert_held(&kprobe_mutex);
	if (!added && !kpp->opt_near)
		return;
	for (i = -(int)kpp->opt_back; i < kpp->opt_len; i++) {
		other = i ? kprobe_point_lookup(kprobe_opt_byte(kpp->addr, i)) :
			    NULL;
		if (!other)
			continue;
		if (added) {
			kpp->opt_near = true;
			other->opt_near = true;
		}
		kprobe_opt_update_locked(other);
	}
}

/**
 * kprobe_opt_init_point() - what a new point needs for optimization
 * @kpp: a new point, prepared by the arch
 *
 * Context: kprobe_mutex held.
 */
void kprobe_opt_init_point(struct kprobe_point *kpp)
{
	unsigned long offset;
	int len;

	INIT_LIST_HEAD(&kpp->opt_node);
	/*
	 * No region crosses into the next function (the arch refuses it), so
	 * only the bytes of @kpp's function before it can be another's region.
	 */
	if (!kallsyms_lookup_size_offset((unsigned long)kpp->addr, NULL,
					 &offset))
		offset = KPROBE_OPT_MAX_LEN - 1;
	kpp->opt_back = min_t(unsigned long, offset, KPROBE_OPT_MAX_LEN - 1);
	if (kpp->ftrace)
		return;
	if (cpu_in_idle((unsigned long)kpp->addr)) {
		kpp->opt_refused = KPROBE_OPT_IDLE;
		return;
	}
	len = arch_kprobe_opt_region_len(kpp);
	if (len > 0 && len <= KPROBE_OPT_MAX_LEN)
		kpp->opt_len = len;
	else
		kpp->opt_refused = KPROBE_OPT_UNRELOCATABLE;
}

/**
 * kprobe_opt_release_point() - free what optimization took for a point
 * @kpp: a point being freed, long out of every list
 *
 * Context: process context, after an RCU-tasks grace period.
 */
void kprobe_opt_release_point(struct kprobe_point *kpp)
{
	if (!kpp->ftrace)
		arch_remove_optimized_kprobe_point(kpp);
}

static void kprobe_optimizer(struct work_struct *work)
{
	struct kprobe_point *kpp, *tmp;
	LIST_HEAD(batch);
	int ret;

	/* Step 1: detours; breakpoint hits start resuming in them. */
	mutex_lock(&kprobe_mutex);
	list_for_each_entry_safe(kpp, tmp, &kprobe_opt_queue, opt_node) {
		ret = arch_prepare_optimized_kprobe_point(kpp);
		if (ret) {
			kpp->opt_refused = ret;
			list_del_init(&kpp->opt_node);
			kprobe_opt_set_state(kpp, KPROBE_OPT_NONE);
			continue;
		}
		list_move_tail(&kpp->opt_node, &batch);
		kprobe_opt_set_state(kpp, KPROBE_OPT_DIVERTING);
	}
	mutex_unlock(&kprobe_mutex);
	if (list_empty(&batch))
		return;

	/* Step 2: nobody is left in a region, once for the whole batch. */
	kprobe_opt_wait_for_tasks();

	/* Step 3: the jumps of every point still in the batch. */
	mutex_lock(&kprobe_mutex);
	if (!list_empty(&batch)) {
		arch_optimize_kprobe_points(&batch);
		kprobe_opt_nr_batches[0]++;
		list_for_each_entry_safe(kpp, tmp, &batch, opt_node) {
			list_del_init(&kpp->opt_node);
			kprobe_opt_set_state(kpp, KPROBE_OPT_OPTIMIZED);
		}
	}
	mutex_unlock(&kprobe_mutex);
}

/**
 * wait_for_kprobe_optimizer() - wait until queued optimizations are done
 *
 * Context: process context, may sleep; not under kprobe_mutex.
 */
void wait_for_kprobe_optimizer(void)
{
	mutex_lock(&kprobe_mutex);
	while (!list_empty(&kprobe_opt_queue) ||
	       delayed_work_pending(&kprobe_opt_work)) {
		mutex_unlock(&kprobe_mutex);
		flush_delayed_work(&kprobe_opt_work);
		mutex_lock(&kprobe_mutex);
	}
	mutex_unlock(&kprobe_mutex);
	/* An optimizer run that started before the queue emptied */
	flush_delayed_work(&kprobe_opt_work);
}
EXPORT_SYMBOL_GPL(wait_for_kprobe_optimizer);

/**
 * kprobe_opt_batches() - how many batches of jumps have been written or removed
 * @removed: count the batches of kprobe_opt_cancel_batch_locked() instead
 *
 * A batch written is one run of steps 2 and 3: one wait for the grace
 * periods and one text-patching batch, whatever the number of points in
 * it; a batch removed is one call of arch_unoptimize_kprobe_points().  For
 * the tests, which check that points registered together are optimized
 * together, and unregistered together lose their jumps together.
 *
 * Context: process context, may sleep; not under kprobe_mutex.
 * Return: the number of batches since boot.
 */
unsigned long kprobe_opt_batches(bool removed)
{
	unsigned long nr;

	mutex_lock(&kprobe_mutex);
	nr = kprobe_opt_nr_batches[removed];
	mutex_unlock(&kprobe_mutex);
	return nr;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_opt_batches);

/**
 * kprobe_opt_hold_seen() - is kprobe_mutex free while @addr is held?
 * @addr: an address
 *
 * For the tests, which check that the wait of kprobe_opt_hold_begin_many()
 * leaves kprobe_mutex free (they are modules where the function tracer
 * is built, and kprobe_mutex is not exported).
 *
 * Context: process context, any RCU read-side critical section included:
 * it only tries the mutex.
 * Return: true if kprobe_mutex could be taken at once and a hold is on
 * @addr.
 */
bool kprobe_opt_hold_seen(kprobe_opcode_t *addr)
{
	bool held;

	if (!mutex_trylock(&kprobe_mutex))
		return false;
	held = kprobe_opt_held(addr);
	mutex_unlock(&kprobe_mutex);
	return held;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_opt_hold_seen);

/**
 * kprobe_opt_hit_slow() - kprobe_opt_hit() where RCU is not watching or
 *	this CPU is inside another hit already
 * @kpp: the point
 * @regs: as for kprobe_opt_hit()
 *
 * Context: as kprobe_opt_hit().
 * Return: as kprobe_opt_hit().
 */
bool kprobe_opt_hit_slow(struct kprobe_point *kpp, struct pt_regs *regs)
{
	bool redirect = false;
	unsigned long flags;
	bool rcu = kprobe_rcu_enter(&flags);

	if (kprobe_running())
		kprobe_point_missed(kpp);
	else
		redirect = __kprobe_opt_hit(kpp, regs);
	kprobe_rcu_exit(rcu, flags);
	return redirect;
}

NOKPROBE_SYMBOL(kprobe_opt_hit_slow);

/* Every point on or off at once, for the sysctl. */
static void kprobe_opt_update_all_locked(void)
{
	struct kprobe_point *kpp;
	LIST_HEAD(optimized);

	lockdep_assert_held(&kprobe_mutex);
	if (!sysctl_kprobes_optimization) {
		list_for_each_entry(kpp, &kprobe_points, node)
			kprobe_opt_gather_locked(kpp, &optimized);
		kprobe_opt_cancel_batch_locked(&optimized, NULL);
	}
	list_for_each_entry(kpp, &kprobe_points, node)
		kprobe_opt_update_locked(kpp);
}

static int kprobe_opt_sysctl_handler(struct ctl_table *table, int write,
				     void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret;

	if (write && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&kprobe_mutex);
	ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);
	if (!ret && write)
		kprobe_opt_update_all_locked();
	mutex_unlock(&kprobe_mutex);
	return ret;
}

static struct ctl_table kprobe_opt_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.data		= &sysctl_kprobes_optimization,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= kprobe_opt_sysctl_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{}
};

static int __init kprobe_opt_sysctl_init(void)
{
	register_sysctl("debug", kprobe_opt_sysctls);
	return 0;
}
late_initcall(kprobe_opt_sysctl_init);
