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
 *      breakpoint exception would have them (below);
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
 *      take them.
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/kprobes.h>
#include <asm/page.h>
#include <asm/ptrace.h>

#include "pt_regs_asm.h"

/* The PSTATE fields an MRS reads, at their SPSR positions (the rest RES0) */
#define SYS_PSTATE_PAN		sys_reg(3, 0, 4, 2, 3)
#define SYS_PSTATE_DIT		sys_reg(3, 3, 4, 2, 5)
#define SYS_PSTATE_SSBS		sys_reg(3, 3, 4, 2, 6)
#define SYS_PSTATE_TCO		sys_reg(3, 3, 4, 2, 7)

/*
 * The SPSR of a breakpoint exception is the PSTATE of the probed code,
 * with the fields that only some CPUs have: PAN, SSBS, TCO and DIT (UAO
 * is always 0 in a 6.1 kernel, the later fields are not used by it, and
 * BTYPE only tells how a BRK was reached: 0 behind the B to a detour).
 * An MRS of such a field is UNDEFINED on a CPU without it, so each is
 * read only where the system has the feature, as the alternatives tell:
 * until they are applied, and for good where it has not, a B skips the
 * read (one instruction).  A field that only some CPUs have reads as 0.
 *
 * kprobe_pstate_field ORs the field \sreg into \acc, with \tmp as
 * scratch, where the system has \cap.
 */
	.macro	kprobe_pstate_field acc, tmp, cap, sreg
alternative_if_not \cap
	b	9999f
alternative_else
	mrs_s	\tmp, \sreg
alternative_endif
	orr	\acc, \acc, \tmp
9999:
	.endm

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
	/* The kernel's mode: EL2h with VHE (which it runs at EL2 for), or EL1h */
alternative_if_not ARM64_HAS_VIRT_HOST_EXTN
	mov	x3, #PSR_MODE_EL1h
alternative_else
	mov	x3, #PSR_MODE_EL2h
alternative_endif
	orr	x2, x2, x3
	kprobe_pstate_field x2, x3, ARM64_HAS_PAN, SYS_PSTATE_PAN
	kprobe_pstate_field x2, x3, ARM64_SSBS, SYS_PSTATE_SSBS
	kprobe_pstate_field x2, x3, ARM64_MTE, SYS_PSTATE_TCO
	/* 6.1 has a hwcap for DIT but no cpucap: kprobe_opt_patch_dit() */
alternative_cb ARM64_ALWAYS_SYSTEM, kprobe_opt_patch_dit
	b	1f
alternative_cb_end
	mrs_s	x3, SYS_PSTATE_DIT
	orr	x2, x2, x3
1:	str	x2, [sp, #S_PSTATE]
	/*
	 * With pseudo-NMIs the probed code's interrupt mask is its PMR, which
	 * an exception entry saves for interrupts_enabled(regs) (and which
	 * kprobe_opt_callback() masks and gives back itself).
	 */
alternative_if_not ARM64_HAS_IRQ_PRIO_MASKING
	b	2f
alternative_else
	mrs_s	x3, SYS_ICC_PMR_EL1
alternative_endif
	str	x3, [sp, #S_PMR_SAVE]
2:

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
	add	x0, sp, #PT_REGS_SIZE
	cmp	x0, x1
	b.ne	.Lmoved_sp
	/* The SP unchanged: drop the pt_regs last, as kernel_exit does. */
	ldp	x0, x1, [sp, #S_X0]
	add	sp, sp, #PT_REGS_SIZE
	eret
	sb
.Lmoved_sp:
	/*
	 * A handler moved the SP.  x0 and x1 come from the pt_regs after
	 * the switch, below the new SP unless it moved down past them: only
	 * an SDEI event, on the interrupted stack, could write there.
	 */
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
