/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probed targets of kprobes_bench.ko on x86_64: identical small functions
 * written in assembly, so that every kernel probes the same bytes.  Each is
 * int kpb_targetN(int x) { return x + 1; } with a frame:
 *
 *	push %rbp		the probed first instruction: steppable,
 *				boostable, and the first of three relocatable
 *				instructions that a 5-byte jump can cover
 *	mov  %rsp, %rbp
 *	lea  1(%rdi), %eax
 *	pop  %rbp
 *	RET
 */
#include <linux/linkage.h>

.macro KPB_TARGET n
SYM_FUNC_START(kpb_target\n)
	push	%rbp
	mov	%rsp, %rbp
	lea	1(%rdi), %eax
	pop	%rbp
	RET
SYM_FUNC_END(kpb_target\n)
.endm

	.text
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	KPB_TARGET \n
	.endr
