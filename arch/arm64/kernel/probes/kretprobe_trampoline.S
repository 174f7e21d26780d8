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
 *   3. calls kretprobe_trampoline_callback(), which puts the real return
 *      address in the frame record (before it recycles the instance: an
 *      unwinder in between finds one or the other), runs the handlers and
 *      returns that address;
 *   4. restores the registers and returns there.
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/alternative.h>
#include <asm/assembler.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>

#include "pt_regs_asm.h"

	.text

SYM_CODE_START(kretprobe_trampoline)
	/* 1. */
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #S_X0]
	kprobe_x2_x27 stp
	stp	x28, x29, [sp, #S_X28]
	str	x30, [sp, #S_LR]
	add	x0, sp, #PT_REGS_SIZE
	str	x0, [sp, #S_SP]
	/*
	 * The flags and the interrupt mask, in a kernel-mode PSTATE
	 * (user_mode(regs) is false); with pseudo-NMIs the mask is the PMR,
	 * saved as an exception entry does, for interrupts_enabled(regs).
	 */
	mrs	x0, nzcv
	mrs	x1, daif
	orr	x0, x0, x1
	/* The kernel's mode: EL2h with VHE (which it runs at EL2 for), or EL1h */
alternative_if_not ARM64_HAS_VIRT_HOST_EXTN
	mov	x1, #PSR_MODE_EL1h
alternative_else
	mov	x1, #PSR_MODE_EL2h
alternative_endif
	orr	x0, x0, x1
	str	x0, [sp, #S_PSTATE]
alternative_if ARM64_HAS_IRQ_PRIO_MASKING
	mrs_s	x1, SYS_ICC_PMR_EL1
	str	x1, [sp, #S_PMR_SAVE]
alternative_else_nop_endif

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
	kprobe_x2_x27 ldp
	ldp	x28, x29, [sp, #S_X28]
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(kretprobe_trampoline)
