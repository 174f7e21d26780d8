/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probed targets of kprobes_bench.ko on arm64: identical small functions
 * written in assembly, so that every kernel probes the same instructions.
 * Each is int kpb_targetN(int x) { return x + 1; } with a frame record;
 * the probed first instruction (stp) is stepped out of line.
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
