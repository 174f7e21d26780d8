// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 side of kretprobes: divert the link register of a probed call to
 * kretprobe_trampoline (kretprobe_trampoline.S), and the C half of that
 * trampoline.
 *
 * An instance is keyed by the caller's frame pointer (x29 at the entry of
 * the probed function), which is what the arm64 unwinder holds when it
 * meets the trampoline's address in a frame record.
 */

#include <linux/kprobes.h>
#include <linux/ptrace.h>

asmlinkage unsigned long kretprobe_trampoline_callback(struct pt_regs *regs);

/*
 * Entered on one task and left on another (the switch), or not called
 * like a function at all (ret_from_fork): the return would look for its
 * instance on the wrong task.
 */
const char * const arch_kretprobe_blacklist[] = {
	"__switch_to",
	"cpu_switch_to",
	"ret_from_fork",
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
	unsigned long ret;

	ret = kretprobe_trampoline_handler(regs, (void *)regs->regs[29]);
	regs->regs[30] = ret;
	return ret;
}

NOKPROBE_SYMBOL(kretprobe_trampoline_callback);

/**
 * arch_prepare_kretprobe() - record where a probed call returns to
 * @ri: the instance tracking the call
 * @regs: the registers at the function's entry
 *
 * Context: the entry probe's pre_handler.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct llist_node *cur = NULL;

	ri->fp = (void *)regs->regs[29];
	ri->ret_addr = (kprobe_opcode_t *)regs->regs[30];
	/* Another kretprobe on this function got here first. */
	if (is_kretprobe_trampoline(regs->regs[30]))
		ri->ret_addr = (kprobe_opcode_t *)
			kretprobe_find_ret_addr(current, ri->fp, &cur);
}

NOKPROBE_SYMBOL(arch_prepare_kretprobe);

/**
 * arch_kretprobe_divert() - make the probed call return to the trampoline
 * @ri: the instance, prepared by arch_prepare_kretprobe()
 * @regs: the registers at the function's entry
 *
 * Context: the entry probe's pre_handler.
 */
void arch_kretprobe_divert(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	regs->regs[30] = (unsigned long)kretprobe_trampoline;
}

NOKPROBE_SYMBOL(arch_kretprobe_divert);
