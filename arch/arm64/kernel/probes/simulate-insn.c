// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulation of the arm64 instructions that read the PC.
 *
 * A copy of such an instruction in a slot would compute with the slot's
 * address, so kprobes and uprobes carry them out on pt_regs instead.  Each
 * handler gets the instruction, its original address, and the registers of
 * the probed context, and leaves the PC at the next instruction to run.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <asm/insn.h>

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
	s64 imm = sign_extend64(aarch64_insn_decode_immediate(AARCH64_INSN_IMM_ADR,
							      opcode), 20);
	u64 val;

	if (aarch64_insn_is_adrp(opcode))
		val = (addr & PAGE_MASK) + (imm << 12);
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
 * simulate_ldr_literal() - LDR (literal), 32 and 64 bits
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
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
 * simulate_ldrsw_literal() - LDRSW (literal)
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_ldrsw_literal(u32 opcode, long addr, struct pt_regs *regs)
{
	s32 val = READ_ONCE(*(s32 *)literal_address(opcode, addr));

	write_xreg(regs, opcode & 0x1f, (s64)val);
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}

/**
 * simulate_nop() - an instruction with no effect here (PRFM literal, NOP)
 * @opcode: the instruction
 * @addr: its address
 * @regs: the probed context
 */
void __kprobes simulate_nop(u32 opcode, long addr, struct pt_regs *regs)
{
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}
