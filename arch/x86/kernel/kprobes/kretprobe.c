// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 return trampoline for kretprobes.
 *
 * The entry hit replaced the return address of the probed function with
 * kretprobe_trampoline.  When the function returns there, the trampoline:
 *
 *   1. pushes its own address where the return address was, so that the
 *      stack looks as if the trampoline had just been called; an unwinder
 *      meeting that address asks kretprobe_find_ret_addr() for the real
 *      one;
 *   2. saves the registers as a struct pt_regs;
 *   3. calls kretprobe_trampoline_callback(), which runs the handlers and
 *      writes the real return address over the one pushed in step 1, and
 *      fills in regs->ip and regs->sp;
 *   4. restores the registers (and the flags, which a handler may change)
 *      and returns to the real return address.
 *
 * No trap is taken on the way back.
 */

#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <linux/linkage.h>
#include <asm/segment.h>
#include <asm/unwind_hints.h>

__visible void kretprobe_trampoline_callback(struct pt_regs *regs);

/*
 * Entered on one task and left on another: the return would look for its
 * instance on the wrong task.  ret_from_fork and
 * rewind_stack_and_make_dead are not called like functions at all.
 */
const char * const arch_kretprobe_blacklist[] = {
	"__switch_to",
	"__switch_to_asm",
	"ret_from_fork",
	"rewind_stack_and_make_dead",
	NULL
};

asm(".pushsection .text\n"
	".global kretprobe_trampoline\n"
	".type kretprobe_trampoline, @function\n"
	"kretprobe_trampoline:\n"
	/* Only ever reached by a ret: no ENDBR. */
	ANNOTATE_NOENDBR
	/* 1. The return address slot, rewritten by the callback */
	"	pushq $kretprobe_trampoline\n"
	UNWIND_HINT_FUNC
	/* 2. struct pt_regs, from ss down to r15 */
	"	pushq $" __stringify(__KERNEL_DS) "\n"
	"	pushq %rsp\n"
	"	pushfq\n"
	"	pushq $" __stringify(__KERNEL_CS) "\n"
	"	pushq $0\n"
	"	pushq $-1\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	pushq %rdx\n"
	"	pushq %rcx\n"
	"	pushq %rax\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	pushq %r10\n"
	"	pushq %r11\n"
	"	pushq %rbx\n"
	"	pushq %rbp\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	/* 3. */
	"	movq %rsp, %rdi\n"
	"	call kretprobe_trampoline_callback\n"
	/* 4. */
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbp\n"
	"	popq %rbx\n"
	"	popq %r11\n"
	"	popq %r10\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rax\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	/* Skip orig_ax, ip and cs; restore the flags; skip sp and ss. */
	"	addq $24, %rsp\n"
	"	popfq\n"
	"	addq $16, %rsp\n"
	ASM_RET
	".size kretprobe_trampoline, .-kretprobe_trampoline\n"
	".popsection\n"
);

NOKPROBE_SYMBOL(kretprobe_trampoline);

/**
 * kretprobe_trampoline_callback() - the C half of the return trampoline
 * @regs: the registers the trampoline saved; just above them is the slot
 *	of the return address
 *
 * Context: return path of a kretprobed function.
 */
__visible void kretprobe_trampoline_callback(struct pt_regs *regs)
{
	unsigned long *ret_slot = (unsigned long *)(regs + 1);

	/* Where the stack pointer was when the function returned */
	regs->sp = (unsigned long)(ret_slot + 1);
	*ret_slot = kretprobe_trampoline_handler(regs, ret_slot);
}

NOKPROBE_SYMBOL(kretprobe_trampoline_callback);

/* Another kretprobe on this function got here first. */
static noinline kprobe_opcode_t *x86_kretprobe_real_ret(unsigned long *sp)
{
	struct llist_node *cur = NULL;

	return (kprobe_opcode_t *)kretprobe_find_ret_addr(current, sp, &cur);
}

NOKPROBE_SYMBOL(x86_kretprobe_real_ret);

/**
 * arch_prepare_kretprobe() - record where a probed call returns to
 * @ri: the instance tracking the call
 * @regs: the registers at the function's entry
 *
 * Context: the entry probe's pre_handler.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long *sp = (unsigned long *)regs->sp;

	ri->fp = sp;
	ri->ret_addr = (kprobe_opcode_t *)*sp;
	if (unlikely(is_kretprobe_trampoline(*sp)))
		ri->ret_addr = x86_kretprobe_real_ret(sp);
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
	*(unsigned long *)ri->fp = (unsigned long)kretprobe_trampoline;
}

NOKPROBE_SYMBOL(arch_kretprobe_divert);
