// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulation of the arm64 instructions that read the PC.
 *
 * A copy of such an instruction in a slot would compute with the slot's
 * address, so kprobes and uprobes carry them out on pt_regs instead.  Each
 * handler gets the instruction, its original address, and the registers of
 * the probed context, and leaves the PC at the next instruction to run.
 *
 * Literal loads read memory next to the probed instruction: kernel text
 * for kprobes, user memory for uprobes.  The decoder picks the handler for
 * the side it decodes for; the user ones read with the user accessors.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <asm/insn.h>
#include <asm/traps.h>

#include "simulate-insn.h"

/* Register 31 reads as zero in these instructions (XZR). */
static u64 read_xreg(struct pt_regs *regs, int n)
{
	return n == 31 ? 0 : regs->regs[n];
}

static void write_xreg(struct pt_regs *regs, int n, u64 val)
{
	if (n != 31)
		regs->regs[n] = val;
}

static void write_wreg(struct pt_regs *regs, int n, u32 val)
{
	write_xreg(regs, n, val);
}

static void branch_to(struct pt_regs *regs, long addr, bool taken, s32 offset)
{
	instruction_pointer_set(regs, taken ? addr + offset :
				addr + AARCH64_INSN_SIZE);
}

/**
 * simulate_adr_adrp() - ADR, ADRP
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_adr_adrp(u32 opcode, long addr, struct pt_regs *regs)
{
	/* immhi (bits 23:5) above immlo (bits 30:29), decoded in line */
	s64 imm = sign_extend64(FIELD_GET(GENMASK(23, 5), opcode) << 2 |
				FIELD_GET(GENMASK(30, 29), opcode), 20);
	u64 val;

	/* ADRP counts 4 KiB pages, whatever the kernel's page size */
	if (aarch64_insn_is_adrp(opcode))
		val = (addr & ~(u64)(SZ_4K - 1)) + (imm << 12);
	else
		val = addr + imm;
	write_xreg(regs, opcode & 0x1f, val);
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}

/**
 * simulate_b_bl() - B, BL
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_b_bl(u32 opcode, long addr, struct pt_regs *regs)
{
	if (aarch64_insn_is_bl(opcode))
		regs->regs[30] = addr + AARCH64_INSN_SIZE;
	branch_to(regs, addr, true, aarch64_get_branch_offset(opcode));
}

/**
 * simulate_b_cond() - B.cond
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_b_cond(u32 opcode, long addr, struct pt_regs *regs)
{
	/* AArch64 condition codes are encoded as in AArch32. */
	bool taken = aarch32_opcode_cond_checks[opcode & 0xf](regs->pstate);

	branch_to(regs, addr, taken, aarch64_get_branch_offset(opcode));
}

/**
 * simulate_br_blr_ret() - BR, BLR, RET
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_br_blr_ret(u32 opcode, long addr, struct pt_regs *regs)
{
	/* Read the target before BLR writes the link register. */
	u64 target = read_xreg(regs, (opcode >> 5) & 0x1f);

	if (aarch64_insn_is_blr(opcode))
		regs->regs[30] = addr + AARCH64_INSN_SIZE;
	instruction_pointer_set(regs, target);
}

/**
 * simulate_cbz_cbnz() - CBZ, CBNZ
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_cbz_cbnz(u32 opcode, long addr, struct pt_regs *regs)
{
	u64 val = read_xreg(regs, opcode & 0x1f);
	bool zero;

	if (!(opcode & BIT(31)))		/* 32-bit variant */
		val = (u32)val;
	zero = !val;
	branch_to(regs, addr, aarch64_insn_is_cbz(opcode) ? zero : !zero,
		  aarch64_get_branch_offset(opcode));
}

/**
 * simulate_tbz_tbnz() - TBZ, TBNZ
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_tbz_tbnz(u32 opcode, long addr, struct pt_regs *regs)
{
	unsigned int bit = ((opcode >> 31) << 5) | ((opcode >> 19) & 0x1f);
	bool set = read_xreg(regs, opcode & 0x1f) & BIT_ULL(bit);

	branch_to(regs, addr, aarch64_insn_is_tbz(opcode) ? !set : set,
		  aarch64_get_branch_offset(opcode));
}

static long literal_address(u32 opcode, long addr)
{
	return addr + (sign_extend64(aarch64_insn_decode_immediate(AARCH64_INSN_IMM_19,
								   opcode), 18) << 2);
}

/**
 * simulate_ldr_literal() - LDR (literal) of kernel code, 32 and 64 bits
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed kernel context
 */
void __kprobes simulate_ldr_literal(u32 opcode, long addr, struct pt_regs *regs)
{
	long src = literal_address(opcode, addr);

	if (opcode & BIT(30))
		write_xreg(regs, opcode & 0x1f, READ_ONCE(*(u64 *)src));
	else
		write_wreg(regs, opcode & 0x1f, READ_ONCE(*(u32 *)src));
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}

/**
 * simulate_ldrsw_literal() - LDRSW (literal) of kernel code
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed kernel context
 */
void __kprobes simulate_ldrsw_literal(u32 opcode, long addr, struct pt_regs *regs)
{
	s32 val = READ_ONCE(*(s32 *)literal_address(opcode, addr));

	write_xreg(regs, opcode & 0x1f, (s64)val);
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}

/*
 * Read a literal of user code.  A literal that cannot be read gets the task
 * the SIGSEGV the load itself would have raised, with the PC still on the
 * load: the caller must not move it on.
 */
static bool read_user_literal(void *val, long src, size_t size)
{
	if (!copy_from_user(val, (const void __user *)src, size))
		return true;
	arm64_notify_segfault(src);
	return false;
}

/**
 * simulate_ldr_literal_user() - LDR (literal) of user code, 32 and 64 bits
 * @opcode: the instruction
 * @addr: its address
 * @regs: the user context
 *
 * Context: process context, returning to user mode (uprobes); may sleep.
 */
void simulate_ldr_literal_user(u32 opcode, long addr, struct pt_regs *regs)
{
	long src = literal_address(opcode, addr);
	u64 val64;
	u32 val32;

	if (opcode & BIT(30)) {
		if (!read_user_literal(&val64, src, sizeof(val64)))
			return;
		write_xreg(regs, opcode & 0x1f, val64);
	} else {
		if (!read_user_literal(&val32, src, sizeof(val32)))
			return;
		write_wreg(regs, opcode & 0x1f, val32);
	}
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}

/**
 * simulate_ldrsw_literal_user() - LDRSW (literal) of user code
 * @opcode: the instruction
 * @addr: its address
 * @regs: the user context
 *
 * Context: process context, returning to user mode (uprobes); may sleep.
 */
void simulate_ldrsw_literal_user(u32 opcode, long addr, struct pt_regs *regs)
{
	s32 val;

	if (!read_user_literal(&val, literal_address(opcode, addr), sizeof(val)))
		return;
	write_xreg(regs, opcode & 0x1f, (s64)val);
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}

/**
 * simulate_nop() - an instruction with no effect here (PRFM literal, NOP,
 *	BTI without kernel BTI)
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_nop(u32 opcode, long addr, struct pt_regs *regs)
{
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}
