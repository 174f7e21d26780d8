/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 jump optimization: the entry shared by every detour.
 *
 * A detour (see opt.c) calls kprobe_opt_entry first thing; the return
 * address on the stack is the detour's relocated region, the address of
 * its probe point is just before the call, and the function's stack is
 * just above the return address.  kprobe_opt_entry:
 *
 *   1. saves the registers as a struct pt_regs, as an exception would,
 *      and masks interrupts, as the breakpoint exception does (the
 *      kretprobe pool relies on it); clears EFLAGS.DF, which the C of the
 *      handlers takes to be clear (probed code may run with it set,
 *      between std and cld), and EFLAGS.AC, which would let a handler's
 *      stray user access past SMAP, as the exception's entry does.
 *      popfq gives all three back;
 *   2. calls kprobe_opt_callback(), which fills in regs->ip as a
 *      breakpoint hit would have it (regs->sp is already) and runs the
 *      pre_handlers;
 *   3. on the fast path (no pre_handler redirected, regs->sp as it was)
 *      restores the registers and the flags, which a handler may have
 *      changed, and returns to the detour's relocated region;
 *   4. else first calls kprobe_opt_resume_elsewhere(), which leaves in
 *      regs->sp the stack pointer to resume with, minus the word that
 *      holds the address to resume at; restores the registers, switches
 *      to that stack and returns there.
 *
 * Objtool and the ORC unwinder know this code: an unwinder in a handler
 * goes from the pt_regs to the probed function.
 */

#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/nospec-branch.h>
#include <asm/ptrace-abi.h>
#include <asm/segment.h>
#include <asm/smap.h>
#include <asm/unwind_hints.h>

	.text

/* Step 3 and step 4: the registers back, up to the flags */
.macro KPROBE_OPT_POP_REGS
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	UNWIND_HINT_IRET_REGS offset=8
	/* Skip orig_ax, ip and cs; the flags */
	addq	$24, %rsp
	UNWIND_HINT_IRET_REGS offset=-16
	popfq
	/*
	 * Interrupts may be on: an interrupt's frame may go over what is
	 * below %rsp now.  Unwind by the return address, above sp and ss.
	 */
	UNWIND_HINT sp_reg=ORC_REG_SP sp_offset=24 type=UNWIND_HINT_TYPE_CALL
.endm

SYM_CODE_START(kprobe_opt_entry)
	UNWIND_HINT_FUNC
	ANNOTATE_NOENDBR
	/* 1. struct pt_regs, from ss down to r15 */
	pushq	$__KERNEL_DS
	pushq	%rsp
	pushfq
	cli
	cld
	ASM_CLAC
	/* regs->sp: the probed code's, above the return address and ss */
	addq	$16, 8(%rsp)
	pushq	$__KERNEL_CS
	pushq	$0
	pushq	$-1
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	UNWIND_HINT_REGS

	/* 2. */
	movq	%rsp, %rdi
	call	kprobe_opt_callback
	testl	%eax, %eax
	jnz	.Lresume_elsewhere
	/* regs->sp still the probed code's: just above the return address */
	leaq	PTREGS_SIZE + 8(%rsp), %rax
	cmpq	%rax, RSP(%rsp)
	jne	.Lresume_elsewhere

	/* 3. lea: the flags are back */
	KPROBE_OPT_POP_REGS
	leaq	16(%rsp), %rsp
	UNWIND_HINT_FUNC
	RET

.Lresume_elsewhere:
	/* 4. */
	movq	%rsp, %rdi
	movl	%eax, %esi
	call	kprobe_opt_resume_elsewhere
	KPROBE_OPT_POP_REGS
	movq	(%rsp), %rsp
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(kprobe_opt_entry)
_ASM_NOKPROBE(kprobe_opt_entry)
