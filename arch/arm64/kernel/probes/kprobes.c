// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 kprobes backend: BRK breakpoints, out-of-line replay, simulation.
 *
 * A hit, step by step:
 *
 *   1. The CPU executes the BRK #KPROBES_BRK_IMM written over the probed
 *      instruction; the debug exception calls kprobe_brk_handler().
 *   2. The handler looks the probe point up by address and runs the
 *      pre_handlers; one that returns non-zero has moved the PC itself
 *      and the hit ends there.
 *   3. The probed instruction is replayed:
 *      a) simulated on pt_regs if it reads the PC (decode-insn.c), then
 *         the post_handlers run;
 *      b) boosted: if no post_handler has to run, the instruction has no
 *         exception-table fixup and a branch from the slot can reach the
 *         original code, the CPU resumes at a copy followed by a branch
 *         back; the hit is over;
 *      c) stepped: the CPU resumes at a copy followed by
 *         BRK #KPROBES_BRK_SS_IMM, with interrupts masked.
 *   4. That BRK traps into kprobe_ss_brk_handler(), which moves the PC to
 *      the instruction after the original, unmasks interrupts as they
 *      were, and runs the post_handlers.
 *
 * A fault in the stepped copy ends the hit instead (kprobe_fault_handler()):
 * it is handled as a fault of the original instruction.  Another fatal
 * exception there is reported at the original instruction, and the oops
 * ends the hit (arch_kprobe_abandon_hit()).
 *
 * A point whose kprobes need no post_handler is optimized (opt.c): its BRK
 * becomes a B to a detour that runs the pre_handlers without an
 * exception.  While that BRK is being swapped for the B, or back, a BRK
 * hit resumes in the detour's copy of the instruction instead of steps
 * 3b and 3c; step 3a, which the detour does alike, is unchanged.
 *
 * The text is changed with aarch64_insn_patch_text(), which writes under
 * stop_machine() and cleans the caches to the point of unification, for a
 * whole batch of changes at once; the slots with
 * aarch64_insn_patch_text_nosync(), before they are used.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpu.h>
#include <linux/extable.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/sections.h>

#include "decode-insn.h"

#define KPROBE_BRK		BRK64_OPCODE_KPROBES
#define KPROBE_SS_BRK		BRK64_OPCODE_KPROBES_SS

/* ---------------------------------------------------------------------- */
/* Registration                                                            */
/* ---------------------------------------------------------------------- */

static int arm64_write_slot(kprobe_opcode_t *slot, int idx, u32 insn)
{
	return aarch64_insn_patch_text_nosync(slot + idx, insn);
}

/* Fill a slot: copy + step BRK, then copy + branch back when in reach. */
static int arm64_prepare_slot(struct kprobe_point *kpp)
{
	unsigned long next = (unsigned long)kpp->addr + AARCH64_INSN_SIZE;
	kprobe_opcode_t *slot = get_insn_slot();
	int boost = KPROBE_BOOST_OFFSET / AARCH64_INSN_SIZE;
	u32 branch;
	int ret;

	if (!slot)
		return -ENOMEM;
	branch = aarch64_insn_gen_branch_imm((unsigned long)(slot + boost + 1),
					     next, AARCH64_INSN_BRANCH_NOLINK);
	ret = arm64_write_slot(slot, 0, kpp->opcode);
	if (!ret)
		ret = arm64_write_slot(slot, 1, KPROBE_SS_BRK);
	if (!ret && branch != AARCH64_BREAK_FAULT) {
		ret = arm64_write_slot(slot, boost, kpp->opcode);
		if (!ret)
			ret = arm64_write_slot(slot, boost + 1, branch);
		kpp->ainsn.boostable = !ret &&
			!search_exception_tables((unsigned long)kpp->addr);
	}
	if (ret) {
		free_insn_slot(slot);
		return ret;
	}
	kpp->ainsn.insn = slot;
	return 0;
}

/**
 * arch_prepare_kprobe_point() - decode the probed instruction
 * @kpp: a new point; only its address is set
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0; -EILSEQ for a misaligned address, -EINVAL for an instruction
 * that cannot be probed, -ENOMEM.
 */
int arch_prepare_kprobe_point(struct kprobe_point *kpp)
{
	if (!IS_ALIGNED((unsigned long)kpp->addr, AARCH64_INSN_SIZE))
		return -EILSEQ;
	if (aarch64_insn_read(kpp->addr, &kpp->opcode))
		return -EINVAL;

	switch (arm_kprobe_decode_insn(kpp->addr, &kpp->ainsn)) {
	case INSN_REJECTED:
		return -EINVAL;
	case INSN_GOOD_NO_SLOT:
		kpp->ainsn.insn = NULL;
		return 0;
	case INSN_GOOD:
		break;
	}
	return arm64_prepare_slot(kpp);
}

/**
 * arch_remove_kprobe_point() - release what arch_prepare_kprobe_point() took
 * @kpp: a point no CPU or task can be replaying any more
 *
 * Context: process context, may sleep.
 */
void arch_remove_kprobe_point(struct kprobe_point *kpp)
{
	free_insn_slot(kpp->ainsn.insn);
	kpp->ainsn.insn = NULL;
}

/*
 * Swapping an arbitrary instruction and a BRK is not among the changes the
 * architecture allows while other CPUs may execute them: the text is
 * patched under stop_machine(), once for every change queued since the
 * last commit.
 */
#define ARM64_PATCH_BATCH	64

static void *arm64_patch_addrs[ARM64_PATCH_BATCH];
static u32 arm64_patch_insns[ARM64_PATCH_BATCH];
/* Changes queued (kprobe_mutex) */
static int arm64_nr_patches;

static void arm64_queue_patch(kprobe_opcode_t *addr, u32 insn)
{
	lockdep_assert_held(&kprobe_mutex);
	if (arm64_nr_patches == ARM64_PATCH_BATCH)
		arch_kprobes_commit();
	arm64_patch_addrs[arm64_nr_patches] = addr;
	arm64_patch_insns[arm64_nr_patches++] = insn;
}

/**
 * arch_arm_kprobe_point() - queue the BRK
 * @kpp: the point
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_arm_kprobe_point(struct kprobe_point *kpp)
{
	arm64_queue_patch(kpp->addr, KPROBE_BRK);
}

/**
 * arch_disarm_kprobe_point() - queue the original instruction
 * @kpp: the point
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_disarm_kprobe_point(struct kprobe_point *kpp)
{
	arm64_queue_patch(kpp->addr, kpp->opcode);
}

/**
 * arch_kprobes_commit() - write the queued changes
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_kprobes_commit(void)
{
	lockdep_assert_held(&kprobe_mutex);
	if (!arm64_nr_patches)
		return;
	cpus_read_lock();
	aarch64_insn_patch_text(arm64_patch_addrs, arm64_patch_insns,
				arm64_nr_patches);
	cpus_read_unlock();
	arm64_nr_patches = 0;
}

/**
 * arch_adjust_kprobe_addr() - the address to probe for a request
 * @addr: the requested address
 * @offset: @addr's offset in its function
 *
 * Context: process context.
 * Return: @addr; arm64 needs no adjustment.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset)
{
	return (kprobe_opcode_t *)addr;
}

/**
 * arch_kprobe_text_reserved() - text other arm64 code rewrites
 * @addr: the probe address
 *
 * Context: process context.
 * Return: false; alternatives are applied before kprobes can register.
 */
bool arch_kprobe_text_reserved(kprobe_opcode_t *addr)
{
	return false;
}

/**
 * arch_populate_kprobe_blacklist() - the arm64 code that must not be probed
 *
 * Exception entry, the identity-mapped text, the hypervisor text, the
 * way to an oops, and the way back from a CPU suspend.
 *
 * Context: boot.
 * Return: 0 or -ENOMEM.
 */
int arch_populate_kprobe_blacklist(void)
{
	static const struct {
		char *start, *end;
	} areas[] = {
		{ __entry_text_start, __entry_text_end },
		{ __irqentry_text_start, __irqentry_text_end },
		{ __idmap_text_start, __idmap_text_end },
		{ __hyp_text_start, __hyp_text_end },
		{ __hyp_idmap_text_start, __hyp_idmap_text_end },
	};
	/*
	 * The way to an oops: a probe there would make a fault or an
	 * unrecoverable BRK inside kprobes trap again instead of dying.
	 */
	static const char * const functions[] = {
		"die", "arm64_notify_die", "__do_kernel_fault",
		"die_kernel_fault",
		/*
		 * Resuming from a CPU suspend, before cpu_do_resume() has
		 * restored the vector base and the per-CPU offset: a BRK
		 * there would go to whatever vectors firmware left.
		 */
		"_cpu_resume",
	};
	/*
	 * What the debug exception entry may call before kprobes can tell
	 * a nested hit.  With CONFIG_TRACE_IRQFLAGS, arm64_enter_el1_dbg()
	 * reads per-CPU variables (lockdep_hardirqs_enabled(),
	 * trace_hardirqs_off_finish()), which arm64 does between
	 * preempt_disable_notrace() and preempt_enable_notrace().  When the
	 * BRK was hit in preemptible code with a reschedule pending, the
	 * count drops to zero there and preempt_schedule_notrace() runs,
	 * only to find interrupts masked.  A probe on it, or on the
	 * irqflags accessors it asks through (below), traps again at the
	 * same place: the entry recurses, kprobe_brk_handler() is never
	 * reached, and the stack overflows (without VMAP_STACK, into the
	 * memory below it).  The detour of an optimized probe reads the
	 * same variable (kprobe_lockdep_irqs_off()) before its own check.
	 */
	static const char * const entry_callees[] = {
		"preempt_schedule_notrace",
		/*
		 * The accessors preemptible() is made of.  They are static
		 * inline functions around one inline asm, which GCC's
		 * inliner counts by the lines of its ALTERNATIVE() and so
		 * sometimes calls instead, through a local copy in each
		 * object file: kernel/sched/core.c has one of
		 * arch_local_save_flags (an MRS of DAIF, which the decoder
		 * refuses anyway) and one of arch_irqs_disabled_flags
		 * (whose first instruction, a MOV, it takes).  All copies
		 * of a name are refused, as nothing tells which object
		 * file one comes from; a copy stands for an instruction of
		 * its caller, not for a function anyone means to probe.
		 */
		"arch_local_save_flags", "arch_irqs_disabled_flags",
		"arch_irqs_disabled",
		/*
		 * The detour's C half (opt.c) masks interrupts, and with
		 * software PAN switches TTBR0, before kprobe_opt_hit() can
		 * tell a nested hit; these are as inline as the above, and
		 * GCC makes opt.o and kretprobes.o copies of the first.  A
		 * detour on a copy that the detour calls would call itself
		 * until the stack overflowed.
		 */
		"arch_local_irq_save", "arch_local_irq_restore",
		"arch_local_irq_disable", "arch_local_irq_enable",
		"__uaccess_ttbr0_disable", "__uaccess_ttbr0_enable",
	};
	unsigned long addr, size, offset;
	int i, ret = 0;

	for (i = 0; i < ARRAY_SIZE(areas) && !ret; i++)
		ret = kprobe_add_area_blacklist((unsigned long)areas[i].start,
						(unsigned long)areas[i].end);
	for (i = 0; i < ARRAY_SIZE(functions) && !ret; i++) {
		addr = kallsyms_lookup_name(functions[i]);
		if (addr && kallsyms_lookup_size_offset(addr, &size, &offset))
			ret = kprobe_add_area_blacklist(addr, addr + size);
	}
	if (!ret)
		ret = kprobe_blacklist_add_functions(entry_callees,
						     ARRAY_SIZE(entry_callees));
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The hit path                                                            */
/* ---------------------------------------------------------------------- */

/* Step 3c: send the CPU into the stepped copy, interrupts masked */
static void arm64_start_step(struct kprobe_point *kpp, struct pt_regs *regs,
			     struct kprobe_ctlblk *kcb)
{
	kcb->point = kpp;
	kcb->step.saved_irqflag = regs->pstate & DAIF_MASK;
	/*
	 * Nothing but an NMI may run on this CPU until the step ends.  With
	 * pseudo-NMIs the kernel masks interrupts with the PMR alone, as
	 * local_irq_disable() does, and so does the step: irqs_disabled()
	 * then says so to the handler of a fault in the copy
	 * (kprobe_page_fault()), and an exception taken from the copy that
	 * kills the task leaves a mask that make_task_dead() can lift (with
	 * PSTATE.I set, its local_irq_enable(), which only writes the PMR,
	 * would leave the CPU masked for good).  A pseudo-NMI may come during
	 * the step, as an NMI may on x86: a probe it hits is only replayed.
	 * Not during a nested step, whose replay a nested hit could not park
	 * in its turn: that one masks PSTATE.I and F as well.
	 */
	if (system_uses_irq_prio_masking()) {
		kcb->step.saved_pmr = regs->pmr_save;
		regs->pmr_save = GIC_PRIO_IRQOFF;
	}
	if (!system_uses_irq_prio_masking() || kcb->status == KPROBE_REENTER)
		regs->pstate |= PSR_I_BIT | PSR_F_BIT;
	instruction_pointer_set(regs, (unsigned long)kpp->ainsn.insn);
}

NOKPROBE_SYMBOL(arm64_start_step);

/*
 * Step 3: simulate, boost or step; @need_post says whether post_handlers
 * must run after the instruction.  The hit is not nested (see
 * arm64_replay_nested()): kcb->point is NULL, and the control block is
 * only written for a replay that needs it.  current_kprobe is still what
 * kprobe_dispatch_pre_handlers() left, never NULL: a hit from a pseudo-NMI
 * meanwhile would be nested, and leave the control block alone.
 */
static nokprobe_inline void arm64_replay(struct kprobe_point *kpp,
					 struct pt_regs *regs, bool need_post)
{
	unsigned long slot = (unsigned long)kpp->ainsn.insn;
	struct kprobe_ctlblk *kcb;

	/* Whatever the point's way to a detour: a detour simulates it too. */
	if (kpp->ainsn.api.handler) {
		kprobe_count_hit(kpp, KPROBE_HIT_EMULATED);
		kpp->ainsn.api.handler(kpp->opcode, (long)kpp->addr, regs);
		if (need_post) {
			kcb = get_kprobe_ctlblk();
			kcb->status = KPROBE_HIT_SS;
			kprobe_replay_done(kpp, regs, kcb);
		} else {
			reset_current_kprobe();
		}
		return;
	}

	/*
	 * Being optimized or unoptimized: the detour replays the instruction
	 * and branches back (opt.c).  A post_handler just added misses this
	 * hit.
	 */
	if (kprobe_opt_diverts(kpp)) {
		kprobe_count_hit(kpp, KPROBE_HIT_BOOSTED);
		instruction_pointer_set(regs, arm64_opt_resume_addr(kpp));
		reset_current_kprobe();
		return;
	}

	if (kpp->ainsn.boostable && !need_post) {
		kprobe_count_hit(kpp, KPROBE_HIT_BOOSTED);
		instruction_pointer_set(regs, slot + KPROBE_BOOST_OFFSET);
		reset_current_kprobe();
		return;
	}

	__this_cpu_write(current_kprobe, &kprobe_busy);
	kcb = get_kprobe_ctlblk();
	kcb->status = KPROBE_HIT_SS;
	kprobe_count_hit(kpp, KPROBE_HIT_STEPPED);
	arm64_start_step(kpp, regs, kcb);
}

/*
 * A hit while this CPU is inside a probe: no handler runs, and the outer
 * hit's state is left alone unless the instruction has to be stepped.
 * Return: false if it cannot be replayed.
 */
static bool arm64_replay_nested(struct kprobe_point *kpp, struct pt_regs *regs,
				struct kprobe_ctlblk *kcb)
{
	kprobe_point_missed(kpp);
	if (kpp->ainsn.api.handler) {
		kpp->ainsn.api.handler(kpp->opcode, (long)kpp->addr, regs);
	} else if (kpp->ainsn.boostable) {
		instruction_pointer_set(regs, (unsigned long)kpp->ainsn.insn +
				       KPROBE_BOOST_OFFSET);
	} else {
		if (!kprobe_enter_nested(kcb))
			return false;
		arm64_start_step(kpp, regs, kcb);
	}
	return true;
}

NOKPROBE_SYMBOL(arm64_replay_nested);

/* Give the probed context its interrupt mask back. */
static void arm64_end_step(struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	regs->pstate = (regs->pstate & ~DAIF_MASK) | kcb->step.saved_irqflag;
	if (system_uses_irq_prio_masking())
		regs->pmr_save = kcb->step.saved_pmr;
}

NOKPROBE_SYMBOL(arm64_end_step);

static int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)instruction_pointer(regs);
	struct kprobe_point *kpp;
	u32 insn;
	int ret;

	kpp = kprobe_point_lookup(addr);
	if (!kpp) {
		/* Removed after this CPU trapped: run the original instead. */
		if (!aarch64_insn_read(addr, &insn) && insn != KPROBE_BRK)
			return DBG_HOOK_HANDLED;
		return DBG_HOOK_ERROR;
	}

	if (kprobe_running()) {
		if (arm64_replay_nested(kpp, regs, get_kprobe_ctlblk()))
			return DBG_HOOK_HANDLED;
		pr_err("unrecoverable nested hit at %pS\n", addr);
		return DBG_HOOK_ERROR;
	}

	ret = kprobe_dispatch_pre_handlers(kpp, regs);
	if (unlikely(ret == KPROBE_PRE_REDIRECTED)) {
		kprobe_count_hit(kpp, KPROBE_HIT_EMULATED);
		reset_current_kprobe();
		return DBG_HOOK_HANDLED;
	}
	arm64_replay(kpp, regs, ret == KPROBE_PRE_NEED_POST);
	return DBG_HOOK_HANDLED;
}

NOKPROBE_SYMBOL(kprobe_brk_handler);

/* Step 4: the BRK behind the copy in the slot has trapped. */
static int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_point *kpp = kcb->point;

	if (!kprobe_in_step(kcb) ||
	    instruction_pointer(regs) != (unsigned long)(kpp->ainsn.insn + 1))
		return DBG_HOOK_ERROR;

	instruction_pointer_set(regs, (unsigned long)kpp->addr + AARCH64_INSN_SIZE);
	arm64_end_step(regs, kcb);
	kprobe_replay_done(kpp, regs, kcb);
	return DBG_HOOK_HANDLED;
}

NOKPROBE_SYMBOL(kprobe_ss_brk_handler);

static struct break_hook kprobes_break_hook = {
	.imm = KPROBES_BRK_IMM,
	.fn = kprobe_brk_handler,
};

static struct break_hook kprobes_ss_break_hook = {
	.imm = KPROBES_BRK_SS_IMM,
	.fn = kprobe_ss_brk_handler,
};

/**
 * kprobe_fault_handler() - a fault while this CPU is inside a probe hit
 * @regs: the faulting context
 * @trapnr: the ESR of the fault
 *
 * A fault in the stepped copy becomes a fault of the original instruction:
 * the PC goes back to it, so that its exception-table fixup is found, and
 * the interrupt mask of the probed context comes back, in @regs and on
 * this CPU.  The abort entry unmasked interrupts as @regs had them during
 * the step, that is not at all (but for pseudo-NMIs, where they are used);
 * a page fault handled so could not sleep.
 * After the hit has ended, this CPU takes interrupts as the probed context
 * did, just as if the original instruction had faulted.  Faults in
 * handlers are left to the normal fixups.
 *
 * Context: data or instruction abort from EL1 (do_mem_abort()), the
 * interrupt mask inherited from @regs; preemption disabled.
 * Return: 0: the caller goes on handling the fault.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_point *kpp = kcb->point;

	if (!kprobe_in_step(kcb) ||
	    instruction_pointer(regs) != (unsigned long)kpp->ainsn.insn)
		return 0;

	instruction_pointer_set(regs, (unsigned long)kpp->addr);
	arm64_end_step(regs, kcb);
	kprobe_hit_end(kcb);
	/* What the abort entry does with the mask of the original instruction */
	local_daif_inherit(regs);
	return 0;
}

NOKPROBE_SYMBOL(kprobe_fault_handler);

/**
 * arch_kprobe_abandon_hit() - the task dies inside a hit on this CPU
 * @regs: the context the oops reports
 * @kcb: this CPU's control block
 *
 * A fatal exception of the stepped copy (FEAT_FPAC's failed
 * authentication) is reported at the original instruction, with the
 * interrupt mask of the probed context, as a page fault there is (see
 * kprobe_fault_handler()).  The core then ends the hit.
 *
 * Context: die(), interrupts disabled.
 */
void arch_kprobe_abandon_hit(struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	struct kprobe_point *kpp = kcb->point;

	if (kprobe_in_step(kcb) &&
	    instruction_pointer(regs) == (unsigned long)kpp->ainsn.insn) {
		instruction_pointer_set(regs, (unsigned long)kpp->addr);
		arm64_end_step(regs, kcb);
	}
}

NOKPROBE_SYMBOL(arch_kprobe_abandon_hit);

/**
 * arch_init_kprobes() - hook the kprobes BRKs
 *
 * Context: boot.
 * Return: 0.
 */
int __init arch_init_kprobes(void)
{
	register_kernel_break_hook(&kprobes_break_hook);
	register_kernel_break_hook(&kprobes_ss_break_hook);
	return 0;
}
