// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes on ftrace: probe points on ftrace call sites.
 *
 * With the function tracer, almost every function starts (after an ENDBR
 * on x86) with a call to __fentry__ that ftrace keeps as a nop or turns
 * into a call of its trampoline.  ftrace owns those bytes, so a probe there
 * cannot be a breakpoint: it is served by ftrace instead.  The point is put
 * in the filter of one of two shared ftrace_ops, whose callback is the
 * arch's kprobe_ftrace_handler(); the callback makes the pt_regs ftrace
 * saved look to the handlers as they would on a breakpoint hit at that
 * address, runs the pre_handlers, "steps" the nop by moving the instruction
 * pointer past the call site, and runs the post_handlers.
 *
 * Two ftrace_ops: a pre_handler may redirect execution by changing the
 * instruction pointer on both, but only kprobe_ipmodify_ops tells ftrace
 * so, which ftrace allows one user per function (livepatch is another).
 * A point uses it when one of its kprobes has a post_handler: that is how
 * the 6.1 callers that redirect (fail_function) mark their kprobes, while
 * the tracers (kprobe_events, perf, BPF) leave the function free for
 * livepatch.  A conflict is refused with ftrace's -EBUSY.
 *
 * A point whose need of the claim changes (a kprobe with a post_handler
 * comes or goes) moves from one ftrace_ops to the other without leaving
 * the function unprobed for longer than a grace period, and without a
 * call that runs its kprobes twice.  While the point is in both filters,
 * ftrace calls the callback twice for each call of the function, once for
 * each ftrace_ops, one after the other with preemption disabled, and the
 * callback serves a call only for the ftrace_ops that kpp->ftrace_ops
 * names (kprobe_ftrace_serves()).  A move, kprobe_ftrace_move_locked():
 *
 *   1. the point goes into the new ftrace_ops' filter; its calls are still
 *      served by the old one only;
 *   2. kpp->ftrace_ops = KPROBE_FTRACE_OPS_MOVING: neither serves them, a
 *      call sees the old value or this one, so at most one serves it;
 *   3. synchronize_rcu_tasks_rude(): a call that saw the old value is over
 *      (its two callbacks ran with preemption disabled, even on a CPU
 *      where RCU was not watching, so the rude flavour);
 *   4. kpp->ftrace_ops names the new ftrace_ops: a call sees MOVING or
 *      this, so again at most one serves it;
 *   5. the point leaves the old ftrace_ops' filter.
 *
 * The calls between steps 2 and 4 are counted as missed; those in flight
 * on a CPU at step 2 or 4 may be counted either way (one callback sees one
 * state, the other the next), but none runs the kprobes twice.
 *
 * Locking: kprobe_mutex serializes everything here; it is taken before
 * ftrace_lock.  An ftrace_ops is registered while at least one point is in
 * its filter (an empty filter would trace every function).
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>

#include "kprobes_internal.h"

static struct ftrace_ops kprobe_ftrace_ops = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

static struct ftrace_ops kprobe_ipmodify_ops = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/* Points in the filter of kprobe_ftrace_ops and kprobe_ipmodify_ops */
static unsigned int kprobe_ftrace_users[2];

/**
 * kprobe_ftrace_site() - is @addr an ftrace call site?
 * @addr: a probe address
 *
 * Context: process context.
 * Return: true if a probe on @addr must be served by ftrace.
 */
bool kprobe_ftrace_site(kprobe_opcode_t *addr)
{
	return ftrace_location((unsigned long)addr) == (unsigned long)addr;
}

static bool kprobe_point_wants_ipmodify(struct kprobe_point *kpp)
{
	struct kprobe *p;

	list_for_each_entry(p, &kpp->probes, list) {
		if (!kprobe_disabled(p) && p->post_handler)
			return true;
	}
	return false;
}

static struct ftrace_ops *kprobe_ftrace_ops_of(bool ipmodify)
{
	return ipmodify ? &kprobe_ipmodify_ops : &kprobe_ftrace_ops;
}

/*
 * Put @ip in the filter of one ftrace_ops, registered with its first
 * point.  The first point's address replaces whatever the filter held: an
 * address whose removal failed must not come back with the ops (claiming
 * the instruction pointer of a function nothing probes, or refusing the
 * registration because another user claims it).
 */
static int kprobe_ftrace_add_locked(unsigned long ip, bool ipmodify)
{
	struct ftrace_ops *ops = kprobe_ftrace_ops_of(ipmodify);
	int ret;

	ret = ftrace_set_filter_ip(ops, ip, 0, !kprobe_ftrace_users[ipmodify]);
	if (ret)
		return ret;
	if (!kprobe_ftrace_users[ipmodify]) {
		ret = register_ftrace_function(ops);
		if (ret) {
			ftrace_set_filter_ip(ops, ip, 1, 0);
			return ret;
		}
	}
	kprobe_ftrace_users[ipmodify]++;
	return 0;
}

/*
 * Take @ip out of the filter of one ftrace_ops, unregistered with its last
 * point.  Neither fails but where ftrace shut itself down (-ENODEV), which
 * it has reported already; an ops that could not be unregistered keeps
 * its last address, as its filter must never be empty while in use.
 * Should a removal fail otherwise (-ENOMEM), ftrace goes on calling the
 * handler there for nothing: it finds no point, or one that no longer
 * has kprobes to run (see kprobe_ftrace_serves()); and the first point
 * of the next registration of the ops resets its filter.
 */
static void kprobe_ftrace_remove_locked(unsigned long ip, bool ipmodify)
{
	struct ftrace_ops *ops = kprobe_ftrace_ops_of(ipmodify);
	int ret;

	kprobe_ftrace_users[ipmodify]--;
	if (!kprobe_ftrace_users[ipmodify]) {
		ret = unregister_ftrace_function(ops);
		if (ret) {
			if (ret != -ENODEV)
				pr_warn_once("cannot unregister kprobes' ftrace_ops: %d\n",
					     ret);
			return;
		}
	}
	/* Not a WARN: memory runs short, no bug of ours. */
	ret = ftrace_set_filter_ip(ops, ip, 1, 0);
	if (ret && ret != -ENOENT && ret != -ENODEV)
		pr_warn_once("cannot remove %pS from kprobes' ftrace filter: %d\n",
			     (void *)ip, ret);
}

/**
 * kprobe_ftrace_arm_locked() - put a point in an ftrace_ops' filter
 * @kpp: a disarmed point on an ftrace site
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0; -EBUSY if another user claims the right to change the
 * instruction pointer of the function; -ENOMEM.
 */
int kprobe_ftrace_arm_locked(struct kprobe_point *kpp)
{
	bool ipmodify = kprobe_point_wants_ipmodify(kpp);
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	ret = kprobe_ftrace_add_locked((unsigned long)kpp->addr, ipmodify);
	if (!ret)
		WRITE_ONCE(kpp->ftrace_ops, ipmodify ? KPROBE_FTRACE_OPS_IPMODIFY :
						       KPROBE_FTRACE_OPS_PLAIN);
	return ret;
}

/**
 * kprobe_ftrace_disarm_locked() - take a point out of its ftrace_ops' filter
 * @kpp: an armed point on an ftrace site
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_ftrace_disarm_locked(struct kprobe_point *kpp)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_ftrace_remove_locked((unsigned long)kpp->addr,
				    kpp->ftrace_ops == KPROBE_FTRACE_OPS_IPMODIFY);
}

/* Move the armed @kpp to one ftrace_ops: the steps at the top of this file */
static int kprobe_ftrace_move_locked(struct kprobe_point *kpp, bool ipmodify)
{
	unsigned long ip = (unsigned long)kpp->addr;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (kpp->ftrace_ops == (ipmodify ? KPROBE_FTRACE_OPS_IPMODIFY :
					   KPROBE_FTRACE_OPS_PLAIN))
		return 0;
	/* Step 1 */
	ret = kprobe_ftrace_add_locked(ip, ipmodify);
	if (ret)
		return ipmodify ? ret : 0;
	/* Step 2 */
	WRITE_ONCE(kpp->ftrace_ops, KPROBE_FTRACE_OPS_MOVING);
	/* Step 3 */
	synchronize_rcu_tasks_rude();
	/* Step 4 */
	WRITE_ONCE(kpp->ftrace_ops, ipmodify ? KPROBE_FTRACE_OPS_IPMODIFY :
					       KPROBE_FTRACE_OPS_PLAIN);
	/* Step 5 */
	kprobe_ftrace_remove_locked(ip, !ipmodify);
	return 0;
}

/**
 * kprobe_ftrace_rearm_locked() - move an armed point to the ftrace_ops it needs
 * @kpp: an armed point on an ftrace site whose kprobes changed
 *
 * A kprobe with a post_handler came or went: the point may have to move
 * from one ftrace_ops to the other, which takes the steps in the comment
 * at the top of this file.
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0; or, if the point needs the claim on the instruction pointer
 * and cannot have it, -EBUSY or -ENOMEM, and it is left as it was.  (If it
 * no longer needs the claim and step 1 fails, it keeps the claim, and
 * the next change tries again.)
 */
int kprobe_ftrace_rearm_locked(struct kprobe_point *kpp)
{
	return kprobe_ftrace_move_locked(kpp, kprobe_point_wants_ipmodify(kpp));
}

/**
 * kprobe_ftrace_prepare_locked() - take the claim a kprobe will need
 * @kpp: a point
 * @p: a kprobe about to run on @kpp: not on its list yet, or about to
 *	be enabled there
 *
 * A kprobe with a post_handler needs the claim on the instruction pointer
 * (kprobe_ipmodify_ops).  An armed point that the plain ftrace_ops serves
 * moves before @p can run there, not after: @p never runs without the
 * claim, and a refusal leaves nothing to undo.
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0, or as kprobe_ftrace_rearm_locked() when the claim is refused.
 */
int kprobe_ftrace_prepare_locked(struct kprobe_point *kpp, struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	if (!kpp->ftrace || !kpp->armed || !p->post_handler ||
	    kpp->ftrace_ops == KPROBE_FTRACE_OPS_IPMODIFY)
		return 0;
	return kprobe_ftrace_move_locked(kpp, true);
}
