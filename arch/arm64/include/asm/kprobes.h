/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __ASM_KPROBES_H
#define __ASM_KPROBES_H
/*
 * arm64 part of the kprobes interface: BRK breakpoints, slots of two
 * copies of the probed instruction, and the per-CPU state of a step.
 */

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/types.h>
#include <asm/probes.h>

#define __ARCH_WANT_KPROBES_INSN_SLOT
#define MAX_INSN_SIZE			1

/*
 * A slot: the stepped copy and the BRK that ends the step, then the
 * boosted copy and a branch back to the original code.
 */
#define KPROBE_INSN_SLOT_SIZE		(4 * AARCH64_INSN_SIZE)
#define KPROBE_BOOST_OFFSET		(2 * AARCH64_INSN_SIZE)	/* bytes */
/* Unused slot memory holds zeros: UDF #0, which traps. */
#define KPROBE_INSN_PAGE_FILL		0

/**
 * struct arch_kprobe_step - what a CPU restores when a step ends
 * @saved_irqflag: the probed context's PSTATE.I, masked during the step
 */
struct arch_kprobe_step {
	unsigned long saved_irqflag;
};

#endif /* CONFIG_KPROBES */
#endif /* __ASM_KPROBES_H */
