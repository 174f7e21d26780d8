/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 jump optimization: the code every detour calls, the template of a
 * detour's fixed part, and the room for the detours of kernel text.
 *
 * A detour (see opt.c) saves x0, x1, x29 and x30 in a struct pt_regs it
 * makes room for on the stack and calls kprobe_opt_entry, whose return
 * address, ARM64_DETOUR_RET bytes into the detour, locates the detour's
 * probe point and probed address.  kprobe_opt_entry:
 *
 *   1. saves the other registers, and the SP, PC and PSTATE as a
 *      breakpoint exception would have them (kprobe_opt_callback() adds
 *      the PSTATE bits that need a look at the CPU's features);
 *   2. makes the frame record of the pt_regs, {x29, PC}, the frame
 *      pointer, as exception entry does: an unwinder in a handler goes
 *      from the pt_regs to the probed function;
 *   3. calls kprobe_opt_callback(), which runs the pre_handlers, and
 *      simulates the probed instruction on the pt_regs if it reads the
 *      PC;
 *   4. restores the registers but x30 (and NZCV, which the C code
 *      clobbered and a handler may have changed) and returns to the
 *      detour, which reloads x30, drops the pt_regs and runs its copy of
 *      the probed instruction;
 *   4'. or, when a pre_handler changed the PC and returned non-zero, or
 *      the instruction was simulated, restores every register, SP
 *      included, from the pt_regs, and leaves with ERET to regs->pc,
 *      with regs->pstate: with all of DAIF masked from the moment
 *      ELR_EL1 and SPSR_EL1 are written, as in kernel_exit, nothing can
 *      take them or write below the SP.
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/kprobes.h>
#include <asm/page.h>
#include <asm/ptrace.h>

#include "pt_regs_asm.h"

	.text

SYM_CODE_START(kprobe_opt_entry)
	/* 1. x0, x1, x29 and x30 are saved; x30 points into the detour. */
	kprobe_x2_x27 stp
	str	x28, [sp, #S_X28]
	sub	x2, x30, #ARM64_DETOUR_RET
	ldp	x0, x1, [x2, #ARM64_DETOUR_POINT]	/* the point, its address */
	add	x2, sp, #PT_REGS_SIZE
	stp	x2, x1, [sp, #S_SP]			/* sp, pc */
	mrs	x2, nzcv
	mrs	x3, daif
	orr	x2, x2, x3
	str	x2, [sp, #S_PSTATE]

	/* 2. */
	stp	x29, x1, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	/* 3. x19 keeps the way back into the detour across the call. */
	mov	x19, x30
	mov	x1, sp
	bl	kprobe_opt_callback
	mov	x30, x19
	cbnz	w0, .Lredirect

	/* 4. */
	ldr	x0, [sp, #S_PSTATE]
	msr	nzcv, x0
	ldp	x0, x1, [sp, #S_X0]
	kprobe_x2_x27 ldp
	ldp	x28, x29, [sp, #S_X28]
	ret

	/* 4'. */
.Lredirect:
	msr	daifset, #0xf
	ldp	x0, x1, [sp, #S_PC]
	msr	elr_el1, x0
	msr	spsr_el1, x1
	kprobe_x2_x27 ldp
	ldp	x28, x29, [sp, #S_X28]
	ldr	x30, [sp, #S_LR]
	ldr	x1, [sp, #S_SP]
	mov	x0, sp
	mov	sp, x1
	ldp	x0, x1, [x0, #S_X0]
	eret
	sb
SYM_CODE_END(kprobe_opt_entry)
NOKPROBE(kprobe_opt_entry)

/*
 * The fixed part of a detour, from ARM64_DETOUR_CODE to ARM64_DETOUR_REPLAY;
 * opt.c copies it and puts the call of kprobe_opt_entry in place of the
 * nop.  Never executed here.
 */
	.pushsection .rodata, "a"
	.balign	4
SYM_DATA_START(kprobe_opt_template)
	stp	x0, x1, [sp, #-PT_REGS_SIZE]!
	stp	x29, x30, [sp, #S_FP]
	nop						/* bl kprobe_opt_entry */
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #PT_REGS_SIZE
SYM_DATA_END(kprobe_opt_template)
	.popsection

/*
 * The detours of points in kernel text: in the image, so that a B from
 * any of its text reaches them.  UDF #0 until opt.c writes a detour,
 * through the text patching of asm/patching.h.
 */
	.balign	PAGE_SIZE
SYM_CODE_START(kprobe_opt_detours)
	.fill	KPROBE_OPT_IMAGE_DETOURS * KPROBE_OPT_DETOUR_SIZE / 4, 4, 0
SYM_CODE_END(kprobe_opt_detours)
NOKPROBE(kprobe_opt_detours)
