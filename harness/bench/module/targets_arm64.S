/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probed targets of kprobes_bench.ko on arm64: identical small functions
 * written in assembly, so that every kernel probes the same instructions.
 * Each is int kpb_targetN(int x) { return x + 1; } with a frame record.
 * The probe goes on the entry, where SYM_FUNC_START puts a BTI C (6.1
 * does so whether or not the kernel uses BTI): the probed instruction is
 * that hint, not the stp behind it, in every kernel alike.
 *
 * kpb_target_adrN computes the same with an ADR, at kpb_target_adrN_adr
 * (behind the BTI that SYM_FUNC_START puts first), an instruction that
 * reads the PC: a BRK hit simulates it, and so does an optimized hit, in
 * its detour, which then leaves with ERET (not by returning into the
 * detour as after other instructions).
 */
#include <linux/linkage.h>

.macro KPB_TARGET n
SYM_FUNC_START(kpb_target\n)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	add	w0, w0, #1
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(kpb_target\n)
.endm

	.text
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	KPB_TARGET \n
	.endr

.macro KPB_TARGET_ADR n
SYM_FUNC_START(kpb_target_adr\n)
SYM_INNER_LABEL(kpb_target_adr\n\()_adr, SYM_L_GLOBAL)
	adr	x1, 1f
	ldr	w1, [x1]
	add	w0, w0, w1
	ret
1:	.word	1
SYM_FUNC_END(kpb_target_adr\n)
.endm

	.irp n, 0, 1
	KPB_TARGET_ADR \n
	.endr
