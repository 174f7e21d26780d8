/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __ASM_PROBES_H
#define __ASM_PROBES_H
/*
 * What kprobes and uprobes share on arm64: how a probed instruction is
 * replayed.  An instruction that reads the PC is simulated on pt_regs by
 * a handler; any other is executed from a copy (a slot).
 */

#include <asm/insn.h>

struct pt_regs;

typedef u32 probe_opcode_t;
typedef void (probes_handler_t)(u32 opcode, long addr, struct pt_regs *regs);

/**
 * struct arch_probe_insn - the replay of a probed instruction
 * @handler: the simulation of the instruction; NULL if it is executed
 *	from a slot
 */
struct arch_probe_insn {
	probes_handler_t *handler;
};

#ifdef CONFIG_KPROBES
typedef u32 kprobe_opcode_t;

/**
 * struct arch_specific_insn - a decoded probed instruction (kprobes)
 * @api: how it is replayed
 * @insn: its slot (copy, BRK, copy, branch back), NULL when simulated
 * @boostable: the second copy, which branches back, may be used
 *
 * Written once, when the probe point is prepared.
 */
struct arch_specific_insn {
	struct arch_probe_insn api;
	kprobe_opcode_t *insn;
	bool boostable;
};
#endif

#endif /* __ASM_PROBES_H */
