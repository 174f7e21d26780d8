// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 side of kretprobes: the C half of kretprobe_trampoline
 * (kretprobe_trampoline.S).  The entry hit diverts the link register of
 * the probed call to the trampoline (arch_kretprobe_ret_slot()).
 *
 * An instance is keyed by the caller's frame pointer (x29 at the entry of
 * the probed function), which is what the arm64 unwinder holds when it
 * meets the trampoline's address in a frame record.
 */

#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include "sw_pan.h"

asmlinkage unsigned long kretprobe_trampoline_callback(struct pt_regs *regs);

/*
 * Entered on one task and left on another (the switch), not called like a
 * function at all (ret_from_fork), or returning twice from one call
 * (__cpu_suspend_enter(), like setjmp(): once after saving the CPU's
 * context, once more when cpu_resume() restores it, with the same link
 * register): the return would find no instance.
 */
const char * const arch_kretprobe_blacklist[] = {
	"__switch_to",
	"cpu_switch_to",
	"ret_from_fork",
	"__cpu_suspend_enter",
	NULL
};

NOKPROBE_SYMBOL(kretprobe_trampoline);

/**
 * kretprobe_trampoline_callback() - the C half of the return trampoline
 * @regs: the registers at the return, saved by the trampoline
 *
 * Context: return path of a kretprobed function.
 * Return: the address the function really returns to.
 */
asmlinkage unsigned long kretprobe_trampoline_callback(struct pt_regs *regs)
{
	kprobe_sw_pan_enter(regs);
	kretprobe_trampoline_handler(regs, (void *)regs->regs[29]);
	kprobe_sw_pan_exit(regs);
	/* Where arch_kretprobe_set_return() put it */
	regs->regs[30] = regs->stackframe[1];
	return regs->regs[30];
}

NOKPROBE_SYMBOL(kretprobe_trampoline_callback);
