/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runs of a struct pt_regs that kretprobe_trampoline.S and
 * opt_entry.S save and restore alike: x2 to x27, a pair at a time, at
 * their pt_regs offsets from the SP.  Each caller saves and restores
 * x0, x1 and x28 to x30 itself, as its entry and exit need.
 */
#ifndef __ARM64_KERNEL_PROBES_PT_REGS_ASM_H
#define __ARM64_KERNEL_PROBES_PT_REGS_ASM_H

#include <asm/asm-offsets.h>

	.macro	kprobe_save_x2_x27
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
	.endm

	.macro	kprobe_restore_x2_x27
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
	.endm

#endif /* __ARM64_KERNEL_PROBES_PT_REGS_ASM_H */
