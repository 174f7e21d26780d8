/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 instruction classification for kprobes and uprobes.
 */
#ifndef _ARM_KERNEL_PROBES_DECODE_INSN_H
#define _ARM_KERNEL_PROBES_DECODE_INSN_H

#include <asm/probes.h>

/* The CRm:op2 field of a hint, which tells them apart */
#define AARCH64_INSN_HINT_OP_MASK	0xfe0

/**
 * enum probe_insn - how a probed instruction can be replayed
 * @INSN_REJECTED: it cannot be probed
 * @INSN_GOOD_NO_SLOT: it reads the PC: simulated on pt_regs, no slot
 * @INSN_GOOD: it runs unchanged from a slot
 */
enum probe_insn {
	INSN_REJECTED,
	INSN_GOOD_NO_SLOT,
	INSN_GOOD,
};

/* Instructions of user code (uprobes); kprobes use arm_kprobe_decode_insn(). */
enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api);

#ifdef CONFIG_KPROBES
enum probe_insn arm_kprobe_decode_insn(kprobe_opcode_t *addr,
				       struct arch_specific_insn *asi);
#endif

#endif /* _ARM_KERNEL_PROBES_DECODE_INSN_H */
