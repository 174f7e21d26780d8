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
 *   3. sets regs->sp to where the stack pointer was at the return, calls
 *      kretprobe_trampoline_handler(), which fills in regs->ip, writes
 *      the real return address over the one pushed in step 1 (before it
 *      recycles the instance: an unwinder in between finds one or the
 *      other; kretprobe_lost_return() if it found none) and runs the
 *      handlers;
 *   4. restores the registers (and the flags, which a handler may change)
 *      and returns to the real return address.
 *
 * No trap is taken on the way back.
 */

#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/segment.h>
#include <asm/unwind_hints.h>

/* The pt_regs layout the trampoline's step 3 writes into */
static_assert(offsetof(struct pt_regs, sp) == 19 * 8);
static_assert(sizeof(struct pt_regs) == 21 * 8);

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
	/* 1. The return address slot, rewritten in step 3 */
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
	/* 3. "pushq %rsp" saved the return slot's address - 8 */
	"	addq $16, 19*8(%rsp)\n"
	"	movq %rsp, %rdi\n"
	"	leaq 21*8(%rsp), %rsi\n"
	"	call kretprobe_trampoline_handler\n"
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
