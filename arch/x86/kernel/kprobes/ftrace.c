// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes on ftrace: the callback of kprobes' ftrace_ops.
 *
 * ftrace calls it from the __fentry__ call site of a probed function with
 * the registers saved as pt_regs (FTRACE_OPS_FL_SAVE_REGS): regs->ip is
 * just past the 5-byte call, regs->sp where the function's return address
 * is, as on an int3 hit at the call site.  A hit, step by step:
 *
 *   1. regs->ip is set to what an int3 at the site would leave there (the
 *      site + 1), so that handlers see one convention whatever serves the
 *      probe;
 *   2. the pre_handlers run; one that returns non-zero has set regs->ip
 *      itself, and ftrace resumes there;
 *   3. otherwise the call site, a nop as far as the function goes, is
 *      "stepped": regs->ip moves past it and the post_handlers run;
 *   4. unless a post_handler moved it, regs->ip gets back what ftrace
 *      gave: past the call site, or where another user of the function
 *      sent it (a livepatch, whose ftrace_ops may run before ours).
 *
 * A hit while this CPU is inside another probe, or that ftrace finds
 * recursing, counts as missed.  ftrace calls this with interrupts as the
 * function had them; the hit masks them, as a breakpoint hit would, and
 * preemption is disabled by the recursion lock.
 */

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <asm/text-patching.h>

/* Count a hit that recursed, if it is one of ours. */
static void x86_kprobe_ftrace_missed(unsigned long ip, struct ftrace_ops *ops)
{
	struct kprobe_point *kpp;
	unsigned long flags;
	bool rcu;

	preempt_disable_notrace();
	rcu = kprobe_rcu_enter(&flags);
	kpp = kprobe_point_lookup((kprobe_opcode_t *)ip);
	if (kpp && kprobe_ftrace_serves(kpp, ops))
		kprobe_point_missed(kpp);
	kprobe_rcu_exit(rcu, flags);
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(x86_kprobe_ftrace_missed);

/**
 * kprobe_ftrace_handler() - a probed ftrace call site was reached
 * @ip: the call site
 * @parent_ip: the caller of the function
 * @ops: one of kprobes' two ftrace_ops
 * @fregs: the saved registers
 *
 * Context: ftrace callback; preemption disabled by the recursion lock.
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long flags, irq_flags, resume;
	struct kprobe_ctlblk *kcb;
	bool need_post, rcu, lockdep_turned_off;
	struct kprobe_point *kpp;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		x86_kprobe_ftrace_missed(ip, ops);
		return;
	}
	/* Interrupts masked, as on a breakpoint hit (see kretprobes.c) */
	raw_local_irq_save(irq_flags);
	lockdep_turned_off = kprobe_lockdep_irqs_off();
	rcu = kprobe_rcu_enter(&flags);

	kpp = kprobe_point_lookup((kprobe_opcode_t *)ip);
	if (unlikely(!kpp || !regs || !kprobe_ftrace_serves(kpp, ops)))
		goto out;
	if (kprobe_running()) {
		kprobe_point_missed(kpp);
		goto out;
	}

	kprobe_count_hit(kpp, KPROBE_HIT_FTRACE);
	resume = regs->ip;
	/* Step 1 */
	regs->ip = ip + INT3_INSN_SIZE;
	/* Step 2 */
	if (kprobe_run_pre_handlers(kpp, regs, &need_post)) {
		reset_current_kprobe();
		goto out;
	}
	/* Step 3 */
	regs->ip = ip + MCOUNT_INSN_SIZE;
	kcb = get_kprobe_ctlblk();
	kcb->status = KPROBE_HIT_SS;
	kprobe_replay_done(kpp, regs, kcb);
	/* Step 4 */
	if (regs->ip == ip + MCOUNT_INSN_SIZE)
		regs->ip = resume;
out:
	kprobe_rcu_exit(rcu, flags);
	kprobe_lockdep_irqs_restore(lockdep_turned_off);
	raw_local_irq_restore(irq_flags);
	ftrace_test_recursion_unlock(bit);
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);
