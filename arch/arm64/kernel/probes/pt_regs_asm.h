/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run of a struct pt_regs that kretprobe_trampoline.S and opt_entry.S
 * save and restore alike: x2 to x27, a pair at a time, at their pt_regs
 * offsets from the SP.  Each caller saves and restores x0, x1 and x28 to
 * x30 itself, as its entry and exit need.
 *
 *	kprobe_x2_x27 stp	saves them,
 *	kprobe_x2_x27 ldp	restores them.
 */
#ifndef __ARM64_KERNEL_PROBES_PT_REGS_ASM_H
#define __ARM64_KERNEL_PROBES_PT_REGS_ASM_H

#include <asm/asm-offsets.h>

	.macro	kprobe_x2_x27 op
	\op	x2, x3, [sp, #S_X2]
	\op	x4, x5, [sp, #S_X4]
	\op	x6, x7, [sp, #S_X6]
	\op	x8, x9, [sp, #S_X8]
	\op	x10, x11, [sp, #S_X10]
	\op	x12, x13, [sp, #S_X12]
	\op	x14, x15, [sp, #S_X14]
	\op	x16, x17, [sp, #S_X16]
	\op	x18, x19, [sp, #S_X18]
	\op	x20, x21, [sp, #S_X20]
	\op	x22, x23, [sp, #S_X22]
	\op	x24, x25, [sp, #S_X24]
	\op	x26, x27, [sp, #S_X26]
	.endm

#endif /* __ARM64_KERNEL_PROBES_PT_REGS_ASM_H */
