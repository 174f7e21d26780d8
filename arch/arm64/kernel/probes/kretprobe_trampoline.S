/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 return trampoline for kretprobes.
 *
 * The entry hit pointed the link register of the probed function at
 * kretprobe_trampoline.  When the function returns there (x30 still holds
 * the trampoline's address, x29 the caller's frame pointer), the trampoline:
 *
 *   1. saves the registers as a struct pt_regs on the stack;
 *   2. makes a frame record {x29, kretprobe_trampoline}, so that an
 *      unwinder meets the trampoline's address with the caller's frame
 *      pointer and asks kretprobe_find_ret_addr() for the real one;
 *   3. calls kretprobe_trampoline_callback(), which runs the handlers and
 *      returns the real return address;
 *   4. restores the registers and returns there.
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/ptrace.h>

	.text

SYM_CODE_START(kretprobe_trampoline)
	/* 1. */
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X4]
	stp	x6, x7, [sp, #S_X6]
	stp	x8, x9, [sp, #S_X8]
	stp	x10, x11, [sp, #S_X10]
	stp	x12, x13, [sp, #S_X12]
	stp	x14, x15, [sp, #S_X14]
	stp	x16, x17, [sp, #S_X16]
	stp	x18, x19, [sp, #S_X18]
	stp	x20, x21, [sp, #S_X20]
	stp	x22, x23, [sp, #S_X22]
	stp	x24, x25, [sp, #S_X24]
	stp	x26, x27, [sp, #S_X26]
	stp	x28, x29, [sp, #S_X28]
	str	x30, [sp, #S_LR]
	add	x0, sp, #PT_REGS_SIZE
	str	x0, [sp, #S_SP]
	/* The flags, in a kernel-mode PSTATE (user_mode(regs) is false) */
	mrs	x0, nzcv
	mov	x1, #PSR_MODE_EL1h
	orr	x0, x0, x1
	str	x0, [sp, #S_PSTATE]

	/* 2. */
	stp	x29, x30, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	/* 3. */
	mov	x0, sp
	bl	kretprobe_trampoline_callback
	mov	x30, x0

	/* 4. */
	ldr	x0, [sp, #S_PSTATE]
	msr	nzcv, x0
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X4]
	ldp	x6, x7, [sp, #S_X6]
	ldp	x8, x9, [sp, #S_X8]
	ldp	x10, x11, [sp, #S_X10]
	ldp	x12, x13, [sp, #S_X12]
	ldp	x14, x15, [sp, #S_X14]
	ldp	x16, x17, [sp, #S_X16]
	ldp	x18, x19, [sp, #S_X18]
	ldp	x20, x21, [sp, #S_X20]
	ldp	x22, x23, [sp, #S_X22]
	ldp	x24, x25, [sp, #S_X24]
	ldp	x26, x27, [sp, #S_X26]
	ldp	x28, x29, [sp, #S_X28]
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(kretprobe_trampoline)
