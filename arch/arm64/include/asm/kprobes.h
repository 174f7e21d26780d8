/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __ASM_KPROBES_H
#define __ASM_KPROBES_H
/*
 * arm64 part of the kprobes interface: BRK breakpoints, slots of two
 * copies of the probed instruction, and the per-CPU state of a step.
 */

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
/*
 * Jump optimization (arch/arm64/kernel/probes/opt.c): a detour is
 * KPROBE_OPT_DETOUR_SIZE bytes; the kernel image reserves room for
 * KPROBE_OPT_IMAGE_DETOURS of them (opt_entry.S).  Offsets in a detour:
 */
#define KPROBE_OPT_DETOUR_SIZE		64
#define KPROBE_OPT_IMAGE_DETOURS	1024
#define ARM64_DETOUR_POINT		0	/* .quad the probe point */
#define ARM64_DETOUR_ADDR		8	/* .quad its address */
#define ARM64_DETOUR_CODE		16	/* where the point's B goes */
#define ARM64_DETOUR_RET		28	/* kprobe_opt_entry returns here */
#define ARM64_DETOUR_REPLAY		36	/* the probed instruction's copy */

#ifndef __ASSEMBLY__
#include <linux/types.h>
#include <asm/probes.h>
#include <asm/ptrace.h>

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

/*
 * At a function's entry (a kretprobe's entry hit) the return address is in
 * the link register; the frame pointer, which the trampoline is given
 * back at the return, names the call's frame.
 */
static inline unsigned long *arch_kretprobe_ret_slot(struct pt_regs *regs)
{
	return (unsigned long *)&regs->regs[30];
}

static inline void *arch_kretprobe_frame(struct pt_regs *regs)
{
	return (void *)regs->regs[29];
}

/*
 * At the return, the trampoline's frame record holds its own address as
 * the link register (see kretprobe_trampoline.S): the real return address
 * goes there, for the unwinders, before the instance that knew it is
 * recycled.
 */
static inline void arch_kretprobe_set_return(struct pt_regs *regs, void *fp,
					     unsigned long ret_addr)
{
	regs->stackframe[1] = ret_addr;
}

/**
 * struct arch_kprobe_step - what a CPU restores when a step ends
 * @saved_irqflag: the probed context's PSTATE.DAIF; I and F are masked
 *	during the step, unless pseudo-NMIs are used
 * @saved_pmr: with pseudo-NMIs, the probed context's PMR (its pmr_save),
 *	which masks interrupts during the step instead
 */
struct arch_kprobe_step {
	unsigned long saved_irqflag;
	unsigned long saved_pmr;
};

/**
 * struct arch_optimized_insn - the detour of an optimized point
 * @detour: its code, see arch/arm64/kernel/probes/opt.c; NULL until built
 *	(written under kprobe_mutex before the point's hits may use it)
 * @simulate: what a hit through the detour runs on the pt_regs in place
 *	of the probed instruction, which reads the PC; NULL where the detour
 *	replays it itself (written with @detour)
 */
struct arch_optimized_insn {
	kprobe_opcode_t *detour;
	probes_handler_t *simulate;
};

/* The jump replaces the probed instruction, and nothing else. */
#define KPROBE_OPT_MAX_LEN		AARCH64_INSN_SIZE

struct kprobe_point;
#ifdef CONFIG_OPTPROBES
struct alt_instr;

unsigned long arm64_opt_resume_addr(struct kprobe_point *kpp);
/* The alternative callback of kprobe_opt_entry (opt.c) */
void kprobe_opt_patch_dit(struct alt_instr *alt, __le32 *origptr,
			  __le32 *updptr, int nr_inst);
/* opt_entry.S */
void kprobe_opt_entry(void);
extern const __le32 kprobe_opt_template[];
extern u8 kprobe_opt_detours[];
#else
static inline unsigned long arm64_opt_resume_addr(struct kprobe_point *kpp)
{
	return 0;
}
#endif

#endif /* !__ASSEMBLY__ */
#endif /* CONFIG_KPROBES */
#endif /* __ASM_KPROBES_H */
