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
	struct ftrace_ops *ops = ipmodify ? &kprobe_ipmodify_ops :
					    &kprobe_ftrace_ops;
	unsigned long ip = (unsigned long)kpp->addr;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	ret = ftrace_set_filter_ip(ops, ip, 0, 0);
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
	kpp->ipmodify = ipmodify;
	return 0;
}

/**
 * kprobe_ftrace_disarm_locked() - take a point out of its ftrace_ops' filter
 * @kpp: an armed point on an ftrace site
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_ftrace_disarm_locked(struct kprobe_point *kpp)
{
	struct ftrace_ops *ops = kpp->ipmodify ? &kprobe_ipmodify_ops :
						 &kprobe_ftrace_ops;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	/* Unregistering first: the filter must never be empty while in use. */
	if (kprobe_ftrace_users[kpp->ipmodify] == 1) {
		ret = unregister_ftrace_function(ops);
		WARN_ONCE(ret, "cannot unregister kprobes' ftrace_ops: %d\n", ret);
	}
	kprobe_ftrace_users[kpp->ipmodify]--;
	ret = ftrace_set_filter_ip(ops, (unsigned long)kpp->addr, 1, 0);
	WARN_ONCE(ret && ret != -ENOENT,
		  "cannot remove %pS from kprobes' ftrace filter: %d\n",
		  kpp->addr, ret);
}

/**
 * kprobe_ftrace_needs_rearm() - must an armed point change ftrace_ops?
 * @kpp: an armed point on an ftrace site
 *
 * Context: kprobe_mutex held.
 * Return: true if the need for kprobe_ipmodify_ops changed.
 */
bool kprobe_ftrace_needs_rearm(struct kprobe_point *kpp)
{
	return kpp->ipmodify != kprobe_point_wants_ipmodify(kpp);
}
