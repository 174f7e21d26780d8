/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Software PAN for the handlers that no exception entry brackets: the
 * detours of jump optimization and the kretprobe trampoline.
 *
 * With CONFIG_ARM64_SW_TTBR0_PAN on a CPU without PAN, user memory is
 * reachable only while TTBR0 holds the task's tables.  An exception entry
 * takes it away for the exception's handlers, noting in the emulated PAN
 * bit of the saved pstate whether it was there, and its exit gives it
 * back (entry.S, __swpan_entry_el1 and __swpan_exit_el1).  These do the
 * same around kprobes' handlers: a handler's own access to user memory
 * ends with uaccess_ttbr0_disable(), which does not nest, and would
 * otherwise leave probed code inside a user access window (a copy to or
 * from user memory) without it.
 */
#ifndef __ARM64_KERNEL_PROBES_SW_PAN_H
#define __ARM64_KERNEL_PROBES_SW_PAN_H

#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>

#ifdef CONFIG_ARM64_SW_TTBR0_PAN
/* Before the handlers: @regs says whether user memory was reachable. */
static __always_inline void kprobe_sw_pan_enter(struct pt_regs *regs)
{
	if (!system_uses_ttbr0_pan())
		return;
	/* The reserved ASID, 0: no user access */
	if (!(read_sysreg(ttbr0_el1) & TTBR_ASID_MASK)) {
		regs->pstate |= PSR_PAN_BIT;
		return;
	}
	regs->pstate &= ~PSR_PAN_BIT;
	__uaccess_ttbr0_disable();
}

/*
 * After them: give user memory back as @regs says (a handler may have
 * changed it), and clear the bit, which such a CPU does not know.
 */
static __always_inline void kprobe_sw_pan_exit(struct pt_regs *regs)
{
	if (!system_uses_ttbr0_pan())
		return;
	if (!(regs->pstate & PSR_PAN_BIT))
		__uaccess_ttbr0_enable();
	regs->pstate &= ~PSR_PAN_BIT;
}
#else
static __always_inline void kprobe_sw_pan_enter(struct pt_regs *regs)
{
}

static __always_inline void kprobe_sw_pan_exit(struct pt_regs *regs)
{
}
#endif

#endif /* __ARM64_KERNEL_PROBES_SW_PAN_H */
