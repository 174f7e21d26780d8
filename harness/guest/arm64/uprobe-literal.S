/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uprobe-literal: the target of the guest checks of uprobes on literal
 * loads.  A static arm64 program without libc: it loads PC-relative
 * literals with LDR Xt, LDR Wt and LDRSW, checks each value and exits
 * with status 42 if all are right, or with the number of the first wrong
 * one (1-3).  The checks probe the global labels ulit_ldr_x, ulit_ldr_w
 * and ulit_ldrsw, whose file offsets the harness writes next to the
 * program.
 */

	.text
	.globl	_start
_start:
	mov	x1, #-1			// LDR Wt and LDRSW must write all 64 bits
	mov	x2, #-1
	.globl	ulit_ldr_x
ulit_ldr_x:
	ldr	x0, lit64
	.globl	ulit_ldr_w
ulit_ldr_w:
	ldr	w1, lit64
	.globl	ulit_ldrsw
ulit_ldrsw:
	ldrsw	x2, lit32

	mov	x9, #1
	movz	x3, #0xcdef
	movk	x3, #0x89ab, lsl #16
	movk	x3, #0x4567, lsl #32
	movk	x3, #0x0123, lsl #48
	cmp	x0, x3
	b.ne	fail
	mov	x9, #2
	mov	w3, w3			// zero-extends
	cmp	x1, x3
	b.ne	fail
	mov	x9, #3
	mov	w3, #0x0005
	movk	w3, #0x8000, lsl #16
	sxtw	x3, w3			// 0x80000005, sign-extended
	cmp	x2, x3
	b.ne	fail
	mov	x9, #42
fail:
	mov	x0, x9
	mov	x8, #93			// exit
	svc	#0

	/* The literals, on a page of their own that nothing touched yet */
	.balign	4096
lit64:	.quad	0x0123456789abcdef
lit32:	.word	0x80000005

	.section .note.GNU-stack, "", %progbits
