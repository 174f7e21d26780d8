// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes: registration, probe points and hit dispatch.
 *
 * A struct kprobe_point owns one probed address: the breakpoint written over
 * the first byte of the instruction, the arch's replay of that instruction,
 * and the list of every struct kprobe registered there.  A point with one
 * kprobe and a point with ten work the same way, so adding or removing a
 * kprobe never changes what the other kprobes on that address see.
 *
 * Locking and ordering
 * --------------------
 *
 * kprobe_mutex serializes every change: registration, removal, enable and
 * disable, the global arm switch, and module and init-text removal.  Lock
 * order: kprobe_mutex -> jump_label_lock -> text_mutex, kprobe_mutex ->
 * kprobe_blacklist_lock, and kprobe_mutex -> the slot cache's and the
 * arch's detour mutex -> kprobe_code_mutex (a leaf, kprobes_slots.c).
 *
 * The hit path takes no lock.  It runs in the breakpoint exception with
 * preemption and interrupts disabled, which makes it an RCU read-side
 * critical section, and it finds the point in the kprobe_hash table with
 * an RCU hlist walk and its kprobes with an RCU list walk.
 *
 * The table grows and shrinks with the number of points, so that a lookup
 * costs the same with one probe or with tens of thousands.  Each point has
 * two hash nodes; a resize links every point into a new table through the
 * node the current table does not use, publishes the new table, and waits
 * for a grace period before the old table (and with it the other node) can
 * be reused: a lookup that started on the old table finishes its walk on
 * nodes nobody changes.
 *
 * Text changes are batched: the arch writes breakpoints and original
 * instructions as it is asked to (arch_arm_kprobe_point(),
 * arch_disarm_kprobe_point()), and they take effect on every CPU at the
 * next arch_kprobes_commit() (x86: one text_poke_sync(); arm64: one
 * stop_machine() for all of them).  kprobes_commit_locked() commits before
 * kprobe_mutex is released, and wherever what follows depends on it.
 *
 * Publication: a new point is hashed, and its first kprobe linked, before
 * its breakpoint is written and committed, so a CPU that executes the
 * breakpoint finds the point.
 *
 * Retirement, in unregister_kprobes():
 *   1. unlink the kprobe from its point (list_del_rcu); if the point is
 *      now empty, its original instruction goes back, behind its jump if
 *      it had one: the jumps of all the points go first, in one batch;
 *   2. commit, then unhash the points left empty;
 *   3. kprobes_synchronize(), an expedited RCU grace period: every hit
 *      that could still see the kprobe or the point has finished its
 *      handlers, and no CPU is still executing the point's out-of-line
 *      slot (that runs with interrupts disabled);
 *   4. after an RCU-tasks grace period (no task is left inside a boosted
 *      copy of the instruction, see kprobe_points_destroy()), free the
 *      slot and the point, with one callback for the whole batch.
 * A CPU that trapped on the breakpoint before step 2 finds the point, with
 * or without kprobes, and replays its instruction; one that looks it up
 * after finds nothing, sees that the breakpoint is gone and re-executes
 * the original instruction.
 *
 * Modules and init text (kprobes_text.c): a module's text becomes
 * probeable once kprobes_module_notify() has seen it coming and added its
 * blacklist (its own notifier runs before trace_kprobe's, which registers
 * the probes that waited for the module).  Text that goes away has its
 * points disarmed while it is still there; they stay hashed, marked gone,
 * until their kprobes are unregistered, and lookups skip them.
 *
 * Per-CPU state (current_kprobe, kprobe_ctlblk) is only touched by its own
 * CPU with preemption disabled.  A hit whose task dies of an oops is ended
 * by kprobes_oops_notify(), on that CPU.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

/* The smallest table: 64 buckets */
#define KPROBE_HASH_MIN_BITS	6

/* Serializes all changes of probe state; see "Locking and ordering" */
DEFINE_MUTEX(kprobe_mutex);
LIST_HEAD(kprobe_points);
bool kprobes_all_disarmed;

/**
 * struct kprobe_hash - the probe points, looked up by address
 * @bits: log2 of the number of buckets (immutable)
 * @shift: 64 - @bits, what a lookup shifts the hash by (immutable)
 * @idx: which of &kprobe_point.hnode links the points into this table
 *	(immutable)
 * @node_back: from a point's &kprobe_point.hnode[@idx] back to
 *	&kprobe_point.hnode[0], in bytes (immutable)
 * @heads: the buckets (kprobe_mutex; RCU for lookups)
 *
 * @shift and @node_back are derived from @bits and @idx once, instead of
 * on every breakpoint hit.
 */
struct kprobe_hash {
	unsigned int bits;
	unsigned int shift;
	unsigned int idx;
	long node_back;
	struct hlist_head heads[];
};

/* The current table (kprobe_mutex; RCU-sched for lookups) */
static struct kprobe_hash __rcu *kprobe_hash;
/* Points in the table (kprobe_mutex) */
static unsigned int kprobe_nr_hashed;
/* Text changes are waiting for arch_kprobes_commit() (kprobe_mutex) */
static bool kprobes_text_dirty;

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/*
 * What current_kprobe points at while this CPU is inside kprobes without
 * running a particular kprobe's handler: replaying an instruction, or in a
 * kprobe_busy_begin() section.
 */
struct kprobe kprobe_busy = {
	.addr = (kprobe_opcode_t *)&kprobe_busy_begin,
};

static bool kprobes_initialized;

static nokprobe_inline struct kprobe_hash *kprobe_hash_deref(void)
{
	return rcu_dereference_sched_check(kprobe_hash,
					   lockdep_is_held(&kprobe_mutex));
}

static nokprobe_inline struct hlist_head *
kprobe_bucket(struct kprobe_hash *h, const void *addr)
{
	/* hash_64() of the address, any BITS_PER_LONG */
	return &h->heads[(u64)(unsigned long)addr * GOLDEN_RATIO_64 >> h->shift];
}

static nokprobe_inline struct kprobe_point *
kprobe_point_of(struct hlist_node *node, struct kprobe_hash *h)
{
	return container_of((struct hlist_node *)((void *)node + h->node_back),
			    struct kprobe_point, hnode[0]);
}

/* The chain of points @addr hashes to; walk it with kprobe_chain_next(). */
static nokprobe_inline struct hlist_node *
kprobe_chain(struct kprobe_hash *h, const void *addr)
{
	return rcu_dereference_raw(hlist_first_rcu(kprobe_bucket(h, addr)));
}

static nokprobe_inline struct hlist_node *
kprobe_chain_next(struct hlist_node *node)
{
	return rcu_dereference_raw(hlist_next_rcu(node));
}

/* ---------------------------------------------------------------------- */
/* The hit path: called by the arch backend from its breakpoint handler.   */
/* ---------------------------------------------------------------------- */

/**
 * kprobe_point_lookup() - find the live probe point on @addr
 * @addr: a probed address
 *
 * Context: preemption disabled (hit path) or kprobe_mutex held.
 * Return: the point, or NULL.
 */
struct kprobe_point *kprobe_point_lookup(kprobe_opcode_t *addr)
{
	/*
	 * No lockdep-checked accessor here: the hit path calls this before
	 * it knows whether it nests, and the lockdep helpers can be probed.
	 */
	struct kprobe_hash *h = rcu_dereference_raw(kprobe_hash);
	struct kprobe_point *kpp;
	struct hlist_node *node;

	if (unlikely(!h))
		return NULL;
	for (node = kprobe_chain(h, addr); node; node = kprobe_chain_next(node)) {
		kpp = kprobe_point_of(node, h);
		if (kpp->addr == addr && !READ_ONCE(kpp->gone))
			return kpp;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kprobe_point_lookup);

/**
 * struct kprobe_dispatch - the kprobes a hit on a point runs, if not one
 * @rcu: its release, once no hit can be reading it
 * @probes: the enabled kprobes of the point, in registration order, then
 *	NULL; at least one, and each has a pre_handler
 *
 * Built by kprobe_point_update_dispatch_locked() for a point that has no
 * solo kprobe but enabled ones, all with a pre_handler, and never changed
 * after: a hit reads one pointer and walks an array, where a walk of the
 * point's list would load every link and skip the disabled kprobes one by
 * one.
 */
struct kprobe_dispatch {
	struct rcu_head rcu;
	struct kprobe *probes[];
};

/*
 * The point's list, for a hit that finds no &struct kprobe_dispatch: no
 * kprobe enabled, one without a pre_handler, or no memory for the array
 * when the kprobes changed.
 */
static noinline int kprobe_walk_pre_handlers(struct kprobe_point *kpp,
					     struct pt_regs *regs)
{
	struct kprobe *p;

	/*
	 * Perhaps no pre_handler runs (kprobes with a post_handler only):
	 * current_kprobe must not stay NULL, see kprobe_dispatch_pre_handlers().
	 */
	__this_cpu_write(current_kprobe, &kprobe_busy);
	list_for_each_entry_rcu(p, &kpp->probes, list) {
		if (kprobe_disabled(p))
			continue;
		kprobe_count(p->hits);
		if (!p->pre_handler)
			continue;
		__this_cpu_write(current_kprobe, p);
		if (p->pre_handler(p, regs))
			return KPROBE_PRE_REDIRECTED;
	}
	return 0;
}

NOKPROBE_SYMBOL(kprobe_walk_pre_handlers);

/**
 * __kprobe_run_pre_handlers() - kprobe_run_pre_handlers() for any point
 * @kpp: the point that was hit
 * @regs: the probed context
 *
 * Runs every enabled kprobe of @kpp, from its &struct kprobe_dispatch.
 * current_kprobe is set to each before its pre_handler runs, and left on
 * the last one: nothing else the walk runs can be probed.
 *
 * Out of line: the registers it keeps across the pre_handlers' calls
 * would cost the solo kprobe's hit, inline in the same caller.
 *
 * Context: hit path, preemption disabled.
 * Return: KPROBE_PRE_REDIRECTED if a pre_handler redirected (the remaining
 * kprobes are then skipped), else 0.
 */
int __kprobe_run_pre_handlers(struct kprobe_point *kpp, struct pt_regs *regs)
{
	/*
	 * Pairs with the rcu_assign_pointer() in
	 * kprobe_point_update_dispatch_locked().  No lockdep-checked
	 * accessor on the hit path: the lockdep helpers can be probed.
	 */
	struct kprobe_dispatch *many = rcu_dereference_raw(kpp->many);
	struct kprobe * const *pp;
	struct kprobe *p;

	if (unlikely(!many))
		return kprobe_walk_pre_handlers(kpp, regs);
	pp = many->probes;
	do {
		p = *pp;
		kprobe_count(p->hits);
		__this_cpu_write(current_kprobe, p);
		if (p->pre_handler(p, regs))
			return KPROBE_PRE_REDIRECTED;
	} while (*++pp);
	return 0;
}

NOKPROBE_SYMBOL(__kprobe_run_pre_handlers);

/**
 * __kprobe_run_post_handlers() - kprobe_replay_done()'s walk of a point
 * @kpp: the point whose instruction was replayed
 * @regs: the context after the instruction
 *
 * Runs the post_handler of every enabled kprobe of @kpp that has one.
 *
 * Context: hit path, preemption disabled.
 */
void __kprobe_run_post_handlers(struct kprobe_point *kpp, struct pt_regs *regs)
{
	struct kprobe *p;

	list_for_each_entry_rcu(p, &kpp->probes, list) {
		if (!kprobe_disabled(p) && p->post_handler)
			kprobe_run_post_handler(p, regs);
	}
}

NOKPROBE_SYMBOL(__kprobe_run_post_handlers);

/**
 * kprobe_point_missed() - account a hit whose handlers could not run
 * @kpp: the point hit while this CPU was already inside a probe
 *
 * Context: hit path, preemption disabled.
 */
void kprobe_point_missed(struct kprobe_point *kpp)
{
	unsigned long old;
	struct kprobe *p;

	kprobe_count_hit(kpp, KPROBE_HIT_MISSED);
	/* Several CPUs may miss the same probe at once: count them all. */
	list_for_each_entry_rcu(p, &kpp->probes, list) {
		if (kprobe_disabled(p))
			continue;
		old = READ_ONCE(p->nmissed);
		while (!try_cmpxchg(&p->nmissed, &old, old + 1))
			;
	}
}

NOKPROBE_SYMBOL(kprobe_point_missed);

/**
 * kprobe_enter_nested() - a nested hit must step its instruction
 * @kcb: this CPU's control block
 *
 * A probe hit while this CPU is inside one runs no handler (the arch has
 * counted it with kprobe_point_missed()) and is replayed without touching
 * the outer hit's state wherever the instruction allows (emulated,
 * boosted, diverted to a detour).  Only a step needs state: this parks the
 * outer hit; the step ends with kprobe_replay_done() or kprobe_hit_end(),
 * which resume it.
 *
 * Context: breakpoint exception, preemption disabled.
 * Return: false if a nested step is already parked: a probe hit during
 * the step of a nested hit, that has to be stepped too.
 */
bool kprobe_enter_nested(struct kprobe_ctlblk *kcb)
{
	if (kcb->status == KPROBE_REENTER)
		return false;
	kcb->prev.kp = kprobe_running();
	kcb->prev.status = kcb->status;
	kcb->prev.point = kcb->point;
	kcb->prev.step = kcb->step;
	kcb->status = KPROBE_REENTER;
	kcb->point = NULL;
	__this_cpu_write(current_kprobe, &kprobe_busy);
	return true;
}

NOKPROBE_SYMBOL(kprobe_enter_nested);

/**
 * __kprobe_resume_outer_hit() - kprobe_hit_end() of a nested hit
 * @kcb: this CPU's control block, parked by kprobe_enter_nested()
 *
 * Gives the CPU back to the outer hit.
 *
 * Context: breakpoint exception or fault, preemption disabled.
 */
void __kprobe_resume_outer_hit(struct kprobe_ctlblk *kcb)
{
	__this_cpu_write(current_kprobe, kcb->prev.kp);
	kcb->status = kcb->prev.status;
	kcb->point = kcb->prev.point;
	kcb->step = kcb->prev.step;
}

NOKPROBE_SYMBOL(__kprobe_resume_outer_hit);

/**
 * kprobe_busy_begin() - make probe hits on this CPU count as missed
 *
 * For code outside kprobes that runs probe-like callbacks and must not be
 * re-entered by a kprobe.  Pair with kprobe_busy_end().
 *
 * Context: any; disables preemption until kprobe_busy_end().
 */
void kprobe_busy_begin(void)
{
	__kprobe_busy_begin();
}

NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end a kprobe_busy_begin() section
 *
 * Context: the context of the matching kprobe_busy_begin().
 */
void kprobe_busy_end(void)
{
	__kprobe_busy_end();
}

NOKPROBE_SYMBOL(kprobe_busy_end);

/**
 * arch_kprobe_abandon_hit() - the arch's part of kprobes_oops_notify()
 * @regs: the context the oops reports
 * @kcb: this CPU's control block, as the hit left it
 *
 * Nothing to do by default.  x86 has ended a hit whose stepped copy
 * trapped before the oops, in its trap notifier: every exception but #NM,
 * which kernel code does not raise (the FPU is never switched lazily).
 *
 * Context: die(), interrupts disabled.
 */
void __weak arch_kprobe_abandon_hit(struct pt_regs *regs,
				    struct kprobe_ctlblk *kcb)
{
}

NOKPROBE_SYMBOL(arch_kprobe_abandon_hit);

/*
 * An oops that kills the task in the middle of a probe hit abandons the
 * hit: the task never comes back to the handler, the stepped copy or the
 * detour it died in, so nothing would end the hit, and every later hit on
 * this CPU would only count as missed.  kprobes_oops_notify() ends it in
 * two steps:
 *
 *   1. In die(): the control block forgets the hit, and current_kprobe
 *      points at kprobe_abandoned, so that a probe hit by the rest of
 *      die() (printk, the unwinder) still only counts as missed: a
 *      handler that oopses again there would deadlock on die()'s lock.
 *   2. Once this CPU takes interrupts again (make_task_dead() enables
 *      them), an irq_work clears current_kprobe if it is still
 *      kprobe_abandoned.  A hit masks interrupts throughout; the hits
 *      that do not (a kretprobe's return handler, kprobe_busy_begin()
 *      sections) never leave current_kprobe at kprobe_abandoned.
 *
 * Only an oops that the task dies of is handled: one in interrupt context
 * panics (x86's int3 handler runs as an NMI), and a notifier that stops
 * the chain (a debugger), which lets the task go on, runs before this one.
 */
static struct kprobe kprobe_abandoned = {
	.addr = (kprobe_opcode_t *)&arch_kprobe_abandon_hit,
};

static void kprobe_abandoned_end(struct irq_work *work)
{
	if (__this_cpu_read(current_kprobe) == &kprobe_abandoned)
		reset_current_kprobe();
}

static DEFINE_PER_CPU(struct irq_work, kprobe_abandoned_work) =
	IRQ_WORK_INIT_HARD(kprobe_abandoned_end);

static int kprobes_oops_notify(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	struct die_args *args = data;
	struct kprobe_ctlblk *kcb;
	struct kprobe *p;

	if (val != DIE_OOPS || !args->regs || user_mode(args->regs) ||
	    in_interrupt())
		return NOTIFY_DONE;
	p = kprobe_running();
	if (!p || p == &kprobe_abandoned)
		return NOTIFY_DONE;
	kcb = get_kprobe_ctlblk();
	pr_err("oops inside a hit of %pS: hit abandoned\n",
	       kcb->point ? kcb->point->addr : p->addr);
	arch_kprobe_abandon_hit(args->regs, kcb);
	/* Step 1 */
	kcb->point = NULL;
	kcb->status = 0;
	__this_cpu_write(current_kprobe, &kprobe_abandoned);
	/* Step 2 */
	irq_work_queue(this_cpu_ptr(&kprobe_abandoned_work));
	return NOTIFY_DONE;
}

NOKPROBE_SYMBOL(kprobes_oops_notify);
NOKPROBE_SYMBOL(kprobe_abandoned_end);

static struct notifier_block kprobes_oops_nb = {
	.notifier_call = kprobes_oops_notify,
	.priority = INT_MIN,
};

/* ---------------------------------------------------------------------- */
/* Arming: every change of a point's breakpoint goes through these two.    */
/* ---------------------------------------------------------------------- */

static bool kprobe_point_wants_armed(struct kprobe_point *kpp)
{
	struct kprobe *p;

	lockdep_assert_held(&kprobe_mutex);
	if (kpp->text_going || kprobes_all_disarmed)
		return false;
	list_for_each_entry(p, &kpp->probes, list) {
		if (!kprobe_disabled(p))
			return true;
	}
	return false;
}

/**
 * kprobes_commit_locked() - make the breakpoint changes take effect
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobes_commit_locked(void)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobes_text_dirty) {
		arch_kprobes_commit();
		kprobes_text_dirty = false;
	}
}

static void kprobe_point_disarm_locked(struct kprobe_point *kpp)
{
	if (kpp->ftrace) {
		kprobe_ftrace_disarm_locked(kpp);
	} else {
		arch_disarm_kprobe_point(kpp);
		kprobes_text_dirty = true;
	}
	kpp->armed = false;
}

static int kprobe_point_arm_locked(struct kprobe_point *kpp)
{
	int ret = 0;

	if (kpp->ftrace) {
		ret = kprobe_ftrace_arm_locked(kpp);
	} else {
		arch_arm_kprobe_point(kpp);
		kprobes_text_dirty = true;
	}
	if (!ret)
		kpp->armed = true;
	return ret;
}

/* Does @many list exactly the enabled kprobes of @kpp, in order? */
static bool kprobe_dispatch_is_current(struct kprobe_dispatch *many,
				       struct kprobe_point *kpp)
{
	struct kprobe * const *pp = many->probes;
	struct kprobe *p;

	list_for_each_entry(p, &kpp->probes, list) {
		/* A NULL *pp differs from any kprobe: no read past it */
		if (!kprobe_disabled(p) && *pp++ != p)
			return false;
	}
	return !*pp;
}

/* The array of @kpp's @enabled kprobes; NULL without memory: hits walk */
static struct kprobe_dispatch *kprobe_dispatch_build(struct kprobe_point *kpp,
						     int enabled)
{
	struct kprobe_dispatch *many;
	struct kprobe *p;
	int i = 0;

	many = kmalloc(struct_size(many, probes, enabled + 1),
		       GFP_KERNEL | __GFP_NOWARN);
	if (!many)
		return NULL;
	list_for_each_entry(p, &kpp->probes, list) {
		if (!kprobe_disabled(p))
			many->probes[i++] = p;
	}
	many->probes[i] = NULL;
	return many;
}

/*
 * What the hit path knows of the point without walking its list (see
 * kprobe_run_pre_handlers()): its solo kprobe, else the array of its
 * enabled kprobes, and whether an enabled one has a post_handler.  A hit
 * that races with the change sees the old values, as it would see the old
 * list: it may run a new kprobe's pre_handler and not yet its
 * post_handler, or replay with a trap for a post_handler that is gone;
 * kprobe_replay_done() asks each kprobe again.  Either way round, a hit
 * that reads a stale &kprobe_point.many runs a set of kprobes the point
 * had (a kprobe stays valid until unregistration's grace period, an array
 * until the one of its kfree_rcu()), and one that finds no array walks the
 * list.
 */
static void kprobe_point_update_dispatch_locked(struct kprobe_point *kpp)
{
	struct kprobe_dispatch *many = NULL, *old;
	struct kprobe *p, *solo = NULL;
	bool post = false, pre = true;
	int enabled = 0;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(p, &kpp->probes, list) {
		if (kprobe_disabled(p))
			continue;
		enabled++;
		solo = p;
		post |= !!p->post_handler;
		pre &= !!p->pre_handler;
	}
	WRITE_ONCE(kpp->post, post);
	if (enabled != 1 || kpp->text_going || !pre)
		solo = NULL;
	old = rcu_dereference_protected(kpp->many,
					lockdep_is_held(&kprobe_mutex));
	if (!solo && enabled && pre && !kpp->text_going) {
		/* Most updates change nothing here (arming, jumps). */
		if (old && kprobe_dispatch_is_current(old, kpp))
			many = old;
		else
			many = kprobe_dispatch_build(kpp, enabled);
	}
	if (many != old) {
		rcu_assign_pointer(kpp->many, many);
		if (old)
			kfree_rcu(old, rcu);
	}
	/* The kprobe is complete before a hit can find it here. */
	smp_store_release(&kpp->solo, solo);
}

/*
 * Bring the breakpoint (and jump) of @kpp in line with its kprobes and the
 * switch.  Only a point served by ftrace can fail: to be armed (it is
 * then left disarmed), or to take the claim on the function's instruction
 * pointer that a kprobe with a post_handler needs (it is then left as it
 * was, still serving its other kprobes).
 *
 * With @jumps, a point whose breakpoint must go but has a jump in front of
 * it is put on @jumps instead, as it is: the caller then hands @jumps to
 * kprobe_points_drop_jumps_locked().  Until then their hits run the new
 * set of kprobes.
 */
int __kprobe_point_update_locked(struct kprobe_point *kpp,
				 struct list_head *jumps)
{
	bool want = kprobe_point_wants_armed(kpp);
	int ret = 0;

	kprobe_point_update_dispatch_locked(kpp);

	if (kpp->armed && want && kpp->ftrace) {
		/* Served by ftrace all along, or left as it was */
		ret = kprobe_ftrace_rearm_locked(kpp);
	} else if (kpp->armed && !want) {
		if (jumps && kprobe_opt_gather_locked(kpp, jumps))
			return 0;
		/* A jump goes before the breakpoint behind it. */
		kprobe_opt_cancel_locked(kpp);
		kprobe_point_disarm_locked(kpp);
	}
	if (want && !kpp->armed)
		ret = kprobe_point_arm_locked(kpp);
	kprobe_opt_update_locked(kpp);
	return ret;
}

/**
 * kprobe_point_update_locked() - bring a point in line with its kprobes
 * @kpp: the point
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0, or why a point served by ftrace could not be armed or could
 * not take the claim on the instruction pointer (see
 * __kprobe_point_update_locked()).
 */
int kprobe_point_update_locked(struct kprobe_point *kpp)
{
	return __kprobe_point_update_locked(kpp, NULL);
}

static void kprobe_point_update_after_jump(struct kprobe_point *kpp)
{
	__kprobe_point_update_locked(kpp, NULL);
}

/**
 * kprobe_points_drop_jumps_locked() - finish the points left on @jumps
 * @jumps: the points __kprobe_point_update_locked() left there
 *
 * Their jumps go in one batch of text changes, then each point is brought
 * in line with its kprobes: its breakpoint goes behind its jump.  Every
 * batched update of points (unregister_kprobes(), unregister_kretprobes(),
 * debugfs kprobes/enabled, text going away) ends with this; the caller
 * commits after it.
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_points_drop_jumps_locked(struct list_head *jumps)
{
	kprobe_opt_cancel_batch_locked(jumps, kprobe_point_update_after_jump);
}

/**
 * kprobes_set_armed() - the global switch behind debugfs kprobes/enabled
 * @armed: false to lift every breakpoint, true to put back those of
 *	enabled kprobes
 *
 * Context: process context, may sleep.
 * Return: 0, or the first error of a point that could not be armed (the
 * others are armed all the same).
 */
int kprobes_set_armed(bool armed)
{
	struct kprobe_point *kpp;
	LIST_HEAD(jumps);
	int ret = 0, err;

	mutex_lock(&kprobe_mutex);
	if (kprobes_all_disarmed != !armed) {
		kprobes_all_disarmed = !armed;
		list_for_each_entry(kpp, &kprobe_points, node) {
			err = __kprobe_point_update_locked(kpp, &jumps);
			if (err && !ret)
				ret = err;
		}
		kprobe_points_drop_jumps_locked(&jumps);
		kprobes_commit_locked();
		pr_info("kprobes globally %s%s\n", armed ? "armed" : "disarmed",
			ret ? ", but some could not be armed" : "");
	}
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * kprobes_synchronize() - wait until every hit in progress has ended
 *
 * An expedited RCU grace period: the same guarantee as synchronize_rcu()
 * (every hit that began before it, a section with preemption disabled,
 * has ended; and every CPU in a stepped copy, which runs with interrupts
 * disabled, has left it), forced with an IPI to each CPU instead of
 * waited for, a jiffy or more each time.  Unregistrations are rare, asked
 * for by someone who waits for them, and cost the other CPUs a few
 * microseconds each; with rcupdate.rcu_normal it is a normal one.
 *
 * Context: process context, may sleep.
 */
void kprobes_synchronize(void)
{
	synchronize_rcu_expedited();
}

/* ---------------------------------------------------------------------- */
/* The table of points: see "Locking and ordering".                        */
/* ---------------------------------------------------------------------- */

static struct kprobe_hash *kprobe_hash_alloc(unsigned int bits,
					     unsigned int idx)
{
	struct kprobe_hash *h;

	h = kvzalloc(struct_size(h, heads, 1UL << bits),
		     GFP_KERNEL | __GFP_NOWARN);
	if (h) {
		h->bits = bits;
		h->shift = 64 - bits;
		h->idx = idx;
		h->node_back = -(long)(idx * sizeof(struct hlist_node));
	}
	return h;
}

/* Move every point to a table of 2^@bits buckets. */
static void kprobe_hash_resize_locked(unsigned int bits)
{
	struct kprobe_hash *old = kprobe_hash_deref(), *new;
	struct kprobe_point *kpp;

	lockdep_assert_held(&kprobe_mutex);
	/* On failure the old table goes on working, only slower. */
	new = kprobe_hash_alloc(bits, !old->idx);
	if (!new)
		return;
	list_for_each_entry(kpp, &kprobe_points, node)
		hlist_add_head_rcu(&kpp->hnode[new->idx],
				   kprobe_bucket(new, kpp->addr));
	rcu_assign_pointer(kprobe_hash, new);
	/* Lookups on @old are done: its nodes may be relinked next time. */
	kprobes_synchronize();
	kvfree(old);
}

static void kprobe_hash_add_locked(struct kprobe_point *kpp)
{
	struct kprobe_hash *h = kprobe_hash_deref();

	lockdep_assert_held(&kprobe_mutex);
	hlist_add_head_rcu(&kpp->hnode[h->idx], kprobe_bucket(h, kpp->addr));
	list_add_tail(&kpp->node, &kprobe_points);
	/* Keep chains short: at most one point per bucket on average. */
	if (++kprobe_nr_hashed > (1U << h->bits))
		kprobe_hash_resize_locked(h->bits + 1);
	/* An optimized neighbour whose jump covers @kpp goes back to int3. */
	kprobe_opt_neighbours_locked(kpp, true);
}

/*
 * Unhash @kpp; it leaves kprobe_points for the caller's list @to.  The
 * table shrinks when the caller is done (kprobe_retire_done_locked()), once
 * for all the points it unhashes.
 */
static void kprobe_hash_del_locked(struct kprobe_point *kpp,
				   struct list_head *to)
{
	struct kprobe_hash *h = kprobe_hash_deref();

	lockdep_assert_held(&kprobe_mutex);
	hlist_del_rcu(&kpp->hnode[h->idx]);
	list_move(&kpp->node, to);
	kprobe_nr_hashed--;
	/* The neighbours @kpp kept from being optimized may be now. */
	kprobe_opt_neighbours_locked(kpp, false);
}

/**
 * kprobe_is_registered_locked() - is @p registered?
 * @p: any kprobe, registered or not
 *
 * Looks @p up by its address, which is all of @p that may be read before
 * it is known to be registered; gone points are included.
 *
 * Context: kprobe_mutex held.
 * Return: true if @p is registered.
 */
bool kprobe_is_registered_locked(struct kprobe *p)
{
	struct kprobe_hash *h = kprobe_hash_deref();
	struct kprobe_point *kpp;
	struct hlist_node *node;
	struct kprobe *q;

	lockdep_assert_held(&kprobe_mutex);
	if (unlikely(!h))	/* init_kprobes() failed: nothing registered */
		return false;
	for (node = kprobe_chain(h, p->addr); node;
	     node = kprobe_chain_next(node)) {
		kpp = kprobe_point_of(node, h);
		if (kpp->addr != p->addr)
			continue;
		list_for_each_entry(q, &kpp->probes, list) {
			if (q == p)
				return true;
		}
	}
	return false;
}

static struct kprobe_point *kprobe_point_create(kprobe_opcode_t *addr)
{
	struct kprobe_point *kpp;
	int ret;

	kpp = kzalloc(sizeof(*kpp), GFP_KERNEL);
	if (!kpp)
		return ERR_PTR(-ENOMEM);
	kpp->counts = alloc_percpu(struct kprobe_hit_counts);
	if (!kpp->counts) {
		kfree(kpp);
		return ERR_PTR(-ENOMEM);
	}
	kpp->addr = addr;
	INIT_LIST_HEAD(&kpp->probes);
	/* ftrace owns the instruction there: nothing to decode or copy. */
	kpp->ftrace = kprobe_ftrace_site(addr);
	if (!kpp->ftrace) {
		ret = arch_prepare_kprobe_point(kpp);
		if (ret) {
			free_percpu(kpp->counts);
			kfree(kpp);
			return ERR_PTR(ret);
		}
	}
	kprobe_opt_init_point(kpp);
	return kpp;
}

/* What a retired point holds, released once nobody can be using it */
static void kprobe_point_free(struct kprobe_point *kpp)
{
	/* NULL by now (no kprobe left, or gone): whatever the way here */
	kfree(rcu_dereference_protected(kpp->many, true));
	kprobe_opt_release_point(kpp);
	if (!kpp->ftrace)
		arch_remove_kprobe_point(kpp);
	free_percpu(kpp->counts);
	kfree(kpp->gone_where);
	kfree(kpp);
}

/**
 * struct kprobe_point_batch - points retired together, freed together
 * @rcu: one RCU-tasks callback for all of them
 * @work: their release, in process context (freeing a slot may sleep)
 * @points: the points, linked by their node
 */
struct kprobe_point_batch {
	struct rcu_head rcu;
	struct work_struct work;
	struct list_head points;
};

static void kprobe_point_batch_free_work(struct work_struct *work)
{
	struct kprobe_point_batch *batch =
		container_of(work, struct kprobe_point_batch, work);
	struct kprobe_point *kpp, *tmp;

	list_for_each_entry_safe(kpp, tmp, &batch->points, node)
		kprobe_point_free(kpp);
	kfree(batch);
}

static void kprobe_point_batch_free_rcu(struct rcu_head *head)
{
	struct kprobe_point_batch *batch =
		container_of(head, struct kprobe_point_batch, rcu);

	INIT_WORK(&batch->work, kprobe_point_batch_free_work);
	schedule_work(&batch->work);
}

/**
 * register_kprobe_locked() - register a kprobe at a resolved address
 * @p: the kprobe
 * @addr: where it goes, from kprobe_resolve()
 * @on_func_entry: @addr is a function entry
 *
 * Context: kprobe_mutex held.
 * Return: as register_kprobe().
 */
int register_kprobe_locked(struct kprobe *p, kprobe_opcode_t *addr,
			   bool on_func_entry)
{
	struct kprobe_point *kpp;
	LIST_HEAD(to_free);
	struct module *mod;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (!kprobes_initialized || kprobe_is_registered_locked(p))
		return -EINVAL;
	ret = kprobe_check_addr(addr, &mod);
	if (ret)
		return ret;
	p->hits = kprobe_counter_alloc();
	if (!p->hits) {
		ret = -ENOMEM;
		goto out_put;
	}

	kpp = kprobe_point_lookup(addr);
	if (!kpp) {
		kpp = kprobe_point_create(addr);
		if (IS_ERR(kpp)) {
			ret = PTR_ERR(kpp);
			kprobe_counter_free(p->hits);
			p->hits = NULL;
			goto out_put;
		}
		kprobe_hash_add_locked(kpp);
	}

	/*
	 * A post_handler runs only with the claim ftrace may refuse, and
	 * never behind a jump.
	 */
	if (!(p->flags & KPROBE_FLAG_DISABLED)) {
		ret = kprobe_ftrace_prepare_locked(kpp, p);
		if (ret) {
			kprobe_counter_free(p->hits);
			p->hits = NULL;
			goto out_put;
		}
		kprobe_opt_prepare_locked(kpp, p);
	}
	/* Only KPROBE_FLAG_DISABLED is the caller's to choose. */
	p->flags &= KPROBE_FLAG_DISABLED;
	if (on_func_entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	if (kpp->ftrace)
		p->flags |= KPROBE_FLAG_FTRACE;
	p->addr = addr;
	p->nmissed = 0;
	p->point = kpp;
	list_add_tail_rcu(&p->list, &kpp->probes);
	ret = kprobe_point_update_locked(kpp);
	if (ret) {
		/* Back out: the point is as it was, or empty and retired. */
		unregister_kprobe_locked(p, NULL);
		if (kprobe_is_kretprobe(p))
			kretprobe_backout_locked(p);
		kprobes_commit_locked();
		kprobe_retire_point_locked(kpp, &to_free);
		kprobe_retire_done_locked();
		/* A hit on the point may still see @p: the caller may free it. */
		kprobes_synchronize();
		kprobe_unregister_done(p);
		kprobe_points_destroy(&to_free);
	}
out_put:
	module_put(mod);
	return ret;
}

/**
 * kprobe_resolve() - where a kprobe asks to go
 * @p: the kprobe, with addr or symbol_name, and offset
 * @addr: the address to probe
 * @on_func_entry: whether it is a function entry
 *
 * Context: process context.
 * Return: 0, or -EINVAL / -ENOENT as register_kprobe().
 */
int kprobe_resolve(struct kprobe *p, kprobe_opcode_t **addr,
		   bool *on_func_entry)
{
	return kprobe_resolve_addr(p->addr, p->symbol_name, p->offset, addr,
				   on_func_entry);
}

/* register_kprobes() of checked arguments, ending @hold (if any) in its lock */
static int __register_kprobes(struct kprobe **kps, int num,
			      struct kprobe_opt_hold *hold)
{
	kprobe_opcode_t *addr;
	bool on_func_entry;
	int i, ret = 0;

	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num && !ret; i++) {
		ret = kps[i] ? kprobe_resolve(kps[i], &addr, &on_func_entry) :
			       -EINVAL;
		if (!ret)
			ret = register_kprobe_locked(kps[i], addr, on_func_entry);
	}
	if (hold)
		kprobe_opt_hold_end_locked(hold);
	/* All the breakpoints at once */
	kprobes_commit_locked();
	mutex_unlock(&kprobe_mutex);
	if (ret && i > 1)
		unregister_kprobes(kps, i - 1);
	return ret;
}

/* Will @p come with a post_handler, enabled? */
static bool kprobe_wants_post_handler(const struct kprobe *p)
{
	return p && p->post_handler && !(p->flags & KPROBE_FLAG_DISABLED);
}

/*
 * Where the kprobes of @kps that come with a post_handler enabled are to
 * be registered, for kprobe_opt_hold_begin_many(): in @one if there is
 * one only, else in an array to kvfree().  NULL if there are none, or no
 * memory (kprobe_opt_prepare_locked() then waits with the mutex held).
 * The addresses are resolved again under the mutex: one that changes in
 * between (a module going) only makes the hold useless.
 */
static kprobe_opcode_t **kprobe_post_handler_addrs(struct kprobe **kps,
						   int num,
						   kprobe_opcode_t **one,
						   unsigned int *nr)
{
	kprobe_opcode_t **addrs, *addr;
	unsigned int count = 0;
	bool on_func_entry;
	int i;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		return NULL;
	for (i = 0; i < num; i++)
		count += kprobe_wants_post_handler(kps[i]);
	if (!count)
		return NULL;
	addrs = count == 1 ? one : kvmalloc_array(count, sizeof(*addrs),
						  GFP_KERNEL);
	if (!addrs)
		return NULL;
	*nr = 0;
	for (i = 0; i < num && *nr < count; i++) {
		if (kprobe_wants_post_handler(kps[i]) &&
		    !kprobe_resolve(kps[i], &addr, &on_func_entry))
			addrs[(*nr)++] = addr;
	}
	if (*nr)
		return addrs;
	if (addrs != one)
		kvfree(addrs);
	return NULL;
}

/**
 * register_kprobe() - install a probe
 * @p: the probe; exactly one of @p->addr and @p->symbol_name must be set
 *
 * The probe is armed at once unless @p->flags has KPROBE_FLAG_DISABLED.
 *
 * Context: process context, may sleep.
 * Return: 0 on success; -EINVAL for a bad request (both or neither of addr
 * and symbol_name, an already registered @p, a blacklisted, non-text or
 * unprobeable instruction) or when kprobes failed to initialize; -ENOENT
 * for an unknown symbol, a going module or a coming one whose blacklist is
 * not read yet; -EILSEQ for an address inside an instruction; -EBUSY for
 * text owned by another patching mechanism; -ERANGE (x86) for a
 * RIP-relative operand that its copy could not reach; -ENODEV for a point
 * to be served by ftrace once ftrace shut down; -ENOMEM.
 */
int register_kprobe(struct kprobe *p)
{
	return register_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/**
 * unregister_kprobe_locked() - step 1 of "Retirement"
 * @p: a registered kprobe
 * @jumps: NULL, or where its point goes if the point's jump must go
 *
 * With @jumps, the caller then finishes the points gathered there with
 * kprobe_points_drop_jumps_locked().  It then commits, retires the point with
 * kprobe_retire_point_locked() (and, after the last point of the batch,
 * calls kprobe_retire_done_locked()), waits for a grace period and calls
 * kprobe_unregister_done() and kprobe_points_destroy().
 *
 * Context: kprobe_mutex held, may sleep.
 */
void unregister_kprobe_locked(struct kprobe *p, struct list_head *jumps)
{
	lockdep_assert_held(&kprobe_mutex);
	list_del_rcu(&p->list);
	WRITE_ONCE(p->flags, (p->flags & ~KPROBE_FLAG_OPTIMIZED) |
			     KPROBE_FLAG_RETIRING);
	__kprobe_point_update_locked(p->point, jumps);
}

/**
 * kprobe_retire_point_locked() - step 2 of "Retirement"
 * @kpp: the point of a kprobe given to unregister_kprobe_locked()
 * @to_free: where @kpp goes if it has no kprobe left
 *
 * Context: kprobe_mutex held, after kprobes_commit_locked().
 */
void kprobe_retire_point_locked(struct kprobe_point *kpp,
				struct list_head *to_free)
{
	lockdep_assert_held(&kprobe_mutex);
	if (list_empty(&kpp->probes) && !kpp->retired) {
		kpp->retired = true;
		kprobe_hash_del_locked(kpp, to_free);
	}
}

/**
 * kprobe_retire_done_locked() - the end of step 2 of "Retirement"
 *
 * Called once the points of a batch are retired: a table more than four
 * times as big as its points shrinks, by as many halvings as it takes, at
 * once.
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_retire_done_locked(void)
{
	struct kprobe_hash *h = kprobe_hash_deref();
	unsigned int bits = h->bits;

	lockdep_assert_held(&kprobe_mutex);
	while (bits > KPROBE_HASH_MIN_BITS &&
	       kprobe_nr_hashed < (1U << bits) / 4)
		bits--;
	if (bits != h->bits)
		kprobe_hash_resize_locked(bits);
}

/**
 * kprobe_unregister_done() - step 3 of "Retirement", for one kprobe
 * @p: a kprobe given to unregister_kprobe_locked(), or one that was not
 *	registered, or given twice (nothing to do then)
 *
 * Context: kprobe_mutex held, after a grace period that began after @p
 * was unlinked.
 */
void kprobe_unregister_done(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_retiring(p)) {
		INIT_LIST_HEAD(&p->list);
		p->point = NULL;
		kprobe_counter_free(p->hits);
		p->hits = NULL;
		WRITE_ONCE(p->flags, p->flags & ~KPROBE_FLAG_RETIRING);
	}
}

/**
 * kprobe_points_destroy() - step 4 of "Retirement"
 * @to_free: the points unregister_kprobe_locked() left there
 *
 * A task interrupted or preempted inside a boosted copy (which ends with
 * a jmp, not a trap) or a detour may still be there after the grace period
 * of step 3; it has left once it has been through a voluntary context
 * switch, which is what an RCU-tasks grace period waits for.  One
 * callback frees all of @to_free after it; when there is no memory for
 * it, this waits for the grace period instead.
 *
 * Context: process context, after the grace period of step 3.
 */
void kprobe_points_destroy(struct list_head *to_free)
{
	struct kprobe_point_batch *batch;
	struct kprobe_point *kpp, *tmp;

	if (list_empty(to_free))
		return;
	batch = kmalloc(sizeof(*batch), GFP_KERNEL);
	if (batch) {
		INIT_LIST_HEAD(&batch->points);
		list_splice_init(to_free, &batch->points);
		call_rcu_tasks(&batch->rcu, kprobe_point_batch_free_rcu);
		return;
	}
	synchronize_rcu_tasks();
	list_for_each_entry_safe(kpp, tmp, to_free, node)
		kprobe_point_free(kpp);
}

/**
 * kprobe_forget_unregistered() - what unregistering a stranger does to it
 * @p: a kprobe that is not registered
 * @earlier_in_batch: @p came earlier in the same unregistration, which
 *	unlinked it there
 *
 * Its address is cleared, as the API promises.  Nothing else of it is
 * trusted: a kprobe never registered may hold anything, and the later
 * steps of the unregistration skip it unless it is retiring.
 *
 * Context: kprobe_mutex held.
 */
void kprobe_forget_unregistered(struct kprobe *p, bool earlier_in_batch)
{
	lockdep_assert_held(&kprobe_mutex);
	p->addr = NULL;
	if (!earlier_in_batch)
		p->flags &= ~KPROBE_FLAG_RETIRING;
}

/**
 * unregister_kprobes() - remove several probes, with one grace period
 * @kps: the probes
 * @num: how many
 *
 * Probes in @kps that are not registered are skipped, and their addr is
 * cleared.  The entry probe of a kretprobe is skipped too, and stays
 * registered: it goes with unregister_kretprobe(), which also takes the
 * kretprobe's instances back.  When this returns, no handler of any probe
 * it removed is running or will run.
 *
 * Context: process context, may sleep.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	LIST_HEAD(to_free);
	LIST_HEAD(jumps);
	int i;

	if (!kps || num <= 0)
		return;
	mutex_lock(&kprobe_mutex);
	/* Step 1 */
	for (i = 0; i < num; i++) {
		if (!kps[i])
			continue;
		if (!kprobe_is_registered_locked(kps[i]))
			kprobe_forget_unregistered(kps[i],
						   kprobe_earlier_in_batch(kps, i));
		else if (!kprobe_is_kretprobe(kps[i]))	/* see above */
			unregister_kprobe_locked(kps[i], &jumps);
	}
	kprobe_points_drop_jumps_locked(&jumps);
	/* Step 2 */
	kprobes_commit_locked();
	for (i = 0; i < num; i++) {
		if (kps[i] && kprobe_retiring(kps[i]))
			kprobe_retire_point_locked(kps[i]->point, &to_free);
	}
	kprobe_retire_done_locked();
	mutex_unlock(&kprobe_mutex);

	/* Step 3: pairs with the RCU walks of the hit path. */
	kprobes_synchronize();
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		if (kps[i])
			kprobe_unregister_done(kps[i]);
	}
	mutex_unlock(&kprobe_mutex);
	kprobe_points_destroy(&to_free);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * unregister_kprobe() - remove a probe
 * @p: the probe; if it is not registered (or is the entry probe of a
 *	kretprobe, which unregister_kretprobe() removes), only its addr is
 *	cleared
 *
 * Context: process context, may sleep.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/**
 * register_kprobes() - install several probes, all or none
 * @kps: the probes
 * @num: how many
 *
 * Context: process context, may sleep.
 * Return: 0, or the error of the first probe that failed; the probes
 * registered before it are unregistered again.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_opt_hold hold;
	kprobe_opcode_t **addrs, *one;
	unsigned int nr;
	int ret;

	if (!kps || num <= 0 || !kprobes_initialized)
		return -EINVAL;
	/* See kprobe_opt_hold_begin_many(); a bad kprobe fails below. */
	addrs = kprobe_post_handler_addrs(kps, num, &one, &nr);
	if (!addrs)
		return __register_kprobes(kps, num, NULL);
	kprobe_opt_hold_begin_many(&hold, addrs, nr);
	ret = __register_kprobes(kps, num, &hold);
	if (addrs != &one)
		kvfree(addrs);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobes);

static int kprobe_set_disabled(struct kprobe *p, bool disabled)
{
	struct kprobe_opt_hold hold;
	bool held = false;
	int ret = 0;

	if (!p)
		return -EINVAL;
	/*
	 * See kprobe_opt_hold_begin_many().  @p->addr is read without the mutex:
	 * for a kprobe that is not registered, the hold is on a stray
	 * address, and the call fails below.
	 */
	if (IS_ENABLED(CONFIG_OPTPROBES) && !disabled && p->post_handler) {
		kprobe_opt_hold_begin(&hold, READ_ONCE(p->addr));
		held = true;
	}
	mutex_lock(&kprobe_mutex);
	if (!kprobe_is_registered_locked(p))
		ret = -EINVAL;
	else if (!disabled && kprobe_gone(p))
		ret = -EINVAL;
	else if (!disabled)
		/* The claim its post_handler needs, before it can run */
		ret = kprobe_ftrace_prepare_locked(p->point, p);
	if (!ret && !disabled)
		kprobe_opt_prepare_locked(p->point, p);
	if (!ret) {
		if (disabled)
			WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_DISABLED);
		else
			WRITE_ONCE(p->flags, p->flags & ~KPROBE_FLAG_DISABLED);
		ret = kprobe_point_update_locked(p->point);
		if (ret) {
			/* It could not be armed: it stays disabled. */
			WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_DISABLED);
			kprobe_point_update_locked(p->point);
		}
	}
	if (held)
		kprobe_opt_hold_end_locked(&hold);
	kprobes_commit_locked();
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * disable_kprobe() - stop a registered probe from firing
 * @kp: the probe
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL if @kp is not registered.
 */
int disable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, true);
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * enable_kprobe() - let a disabled probe fire again
 * @kp: the probe
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @kp is not registered or its text is gone; or
 * why a point served by ftrace could not be armed or take the claim on
 * the instruction pointer (-EBUSY, -ENOMEM), @kp then staying disabled.
 */
int enable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, false);
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/**
 * get_kprobe() - the first kprobe registered on an address
 * @addr: a probed address
 *
 * Context: preemption disabled or kprobe_mutex held; the result is only
 * valid inside that section.
 * Return: the kprobe, or NULL.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe_point *kpp = kprobe_point_lookup(addr);

	return kpp ? list_first_or_null_rcu(&kpp->probes, struct kprobe, list) :
		     NULL;
}

NOKPROBE_SYMBOL(get_kprobe);

static int __init init_kprobes(void)
{
	struct kprobe_hash *h;
	int ret;

	h = kprobe_hash_alloc(KPROBE_HASH_MIN_BITS, 0);
	if (!h)
		return -ENOMEM;
	rcu_assign_pointer(kprobe_hash, h);
	ret = kprobe_blacklist_init();
	if (ret) {
		pr_err("cannot build the blacklist (%d): kprobes disabled\n", ret);
		return ret;
	}
	ret = arch_init_kprobes();
	if (ret) {
		pr_err("arch init failed (%d): kprobes disabled\n", ret);
		return ret;
	}
	ret = register_die_notifier(&kprobes_oops_nb);
	if (ret)
		return ret;
	ret = kprobes_watch_modules();
	if (ret) {
		unregister_die_notifier(&kprobes_oops_nb);
		return ret;
	}
	kprobes_initialized = true;
	return 0;
}

early_initcall(init_kprobes);
