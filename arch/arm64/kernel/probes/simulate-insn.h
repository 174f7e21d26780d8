/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Simulation of the arm64 instructions that read the PC.
 */
#ifndef _ARM_KERNEL_PROBES_SIMULATE_INSN_H
#define _ARM_KERNEL_PROBES_SIMULATE_INSN_H

#include <asm/probes.h>

void simulate_adr_adrp(u32 opcode, long addr, struct pt_regs *regs);
void simulate_b_bl(u32 opcode, long addr, struct pt_regs *regs);
void simulate_b_cond(u32 opcode, long addr, struct pt_regs *regs);
void simulate_br_blr_ret(u32 opcode, long addr, struct pt_regs *regs);
void simulate_cbz_cbnz(u32 opcode, long addr, struct pt_regs *regs);
void simulate_tbz_tbnz(u32 opcode, long addr, struct pt_regs *regs);
void simulate_ldr_literal(u32 opcode, long addr, struct pt_regs *regs);
void simulate_ldrsw_literal(u32 opcode, long addr, struct pt_regs *regs);
void simulate_ldr_literal_user(u32 opcode, long addr, struct pt_regs *regs);
void simulate_ldrsw_literal_user(u32 opcode, long addr, struct pt_regs *regs);
void simulate_nop(u32 opcode, long addr, struct pt_regs *regs);

#endif /* _ARM_KERNEL_PROBES_SIMULATE_INSN_H */
