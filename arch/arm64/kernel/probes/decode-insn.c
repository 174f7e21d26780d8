// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 instruction classification for kprobes and uprobes.
 *
 * Every instruction is one of:
 *
 *  - simulated (INSN_GOOD_NO_SLOT): it reads the PC, so a copy would
 *    compute with the wrong address: branches, ADR/ADRP, literal loads
 *    (with the user accessors for uprobes: the literal is user memory);
 *    or, in the kernel, it does nothing: NOP, and the BTIs where the
 *    kernel does not use BTI (SYM_FUNC_START puts a BTI C at the entry of
 *    every assembly function), so a kprobe with a post_handler there
 *    takes one trap, not two;
 *  - rejected (INSN_REJECTED): it cannot be replayed safely: exception
 *    generation and return, the other literal loads, exclusive loads and
 *    stores (the BRK exception clears the exclusive monitor), writes to
 *    PSTATE, reads of DAIF and of ICC_PMR_EL1 (a step runs with
 *    interrupts masked, by PSTATE.I or with pseudo-NMIs by the PMR, so
 *    the copy would read the step's mask, not the probed code's), and
 *    hints that are not known to be harmless;
 *  - stepped (INSN_GOOD): everything else runs unchanged from a slot,
 *    in the kernel also the authentications of return addresses, which
 *    the kernel's list of steppable hints leaves out.
 */

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/sysreg.h>

#include "decode-insn.h"
#include "simulate-insn.h"

/* "Load register (literal)" class, integer and SIMD&FP: PC-relative */
#define LOAD_LITERAL_MASK	0x3b000000
#define LOAD_LITERAL_VAL	0x18000000

/* DAIF (op0=3, op1=3, CRn=4, CRm=2, op2=1); <asm/sysreg.h> has no name */
#define KPROBE_SYS_DAIF		sys_reg(3, 3, 4, 2, 1)

/*
 * Is @insn an MRS of @reg, a sys_reg() encoding?  Those have op0..op2 in
 * the bits an MRS has them in, from bit 5 on; what
 * aarch64_insn_extract_system_reg() returns has them from bit 0 on.
 */
#define KPROBE_SYSREG_SHIFT	5

static bool insn_is_mrs_of(u32 insn, u32 reg)
{
	return aarch64_insn_is_mrs(insn) &&
	       aarch64_insn_extract_system_reg(insn) ==
	       reg >> KPROBE_SYSREG_SHIFT;
}

/*
 * Is the hint @insn an authentication of a return address?  AUTIASP and
 * the like end every function of a kernel built with pointer
 * authentication.  They read x30 or x17, and sp, x16 or zero, never the
 * PC: a copy computes what the original would.  A failed check poisons
 * x30 as it would in place.  With FEAT_FPAC it is the same oops: in a
 * boosted copy reported there, in a stepped one at the original
 * instruction (see arch_kprobe_abandon_hit()).
 */
static bool insn_is_aut_hint(u32 insn)
{
	switch (insn & AARCH64_INSN_HINT_OP_MASK) {
	case AARCH64_INSN_HINT_AUTIA_1716:
	case AARCH64_INSN_HINT_AUTIB_1716:
	case AARCH64_INSN_HINT_AUTIAZ:
	case AARCH64_INSN_HINT_AUTIASP:
	case AARCH64_INSN_HINT_AUTIBZ:
	case AARCH64_INSN_HINT_AUTIBSP:
		return true;
	default:
		return false;
	}
}

/*
 * Hints are rejected unless known to be harmless; kprobes also step the
 * authentications, which aarch64_insn_is_steppable_hint() leaves out.
 */
static bool insn_hint_rejected(u32 insn, bool user)
{
	if (!aarch64_insn_is_hint(insn) || aarch64_insn_is_steppable_hint(insn))
		return false;
	return user || !insn_is_aut_hint(insn);
}

static bool insn_rejected(u32 insn, bool user)
{
	return aarch64_insn_is_exception(insn) ||	/* svc, hvc, smc, brk, hlt, dcps */
	       aarch64_insn_is_eret(insn) ||
	       aarch64_insn_is_eret_auth(insn) ||
	       aarch64_insn_is_br_auth(insn) ||		/* reads the PC; not simulated */
	       aarch64_insn_is_blr_auth(insn) ||
	       aarch64_insn_is_ret_auth(insn) ||
	       aarch64_insn_is_exclusive(insn) ||
	       aarch64_insn_is_msr_imm(insn) ||
	       aarch64_insn_is_msr_reg(insn) ||
	       insn_is_mrs_of(insn, KPROBE_SYS_DAIF) ||
	       /* local_save_flags() and friends, with pseudo-NMIs */
	       insn_is_mrs_of(insn, SYS_ICC_PMR_EL1) ||
	       insn_hint_rejected(insn, user) ||
	       (insn & LOAD_LITERAL_MASK) == LOAD_LITERAL_VAL;
}

/*
 * Does @insn do nothing in the kernel?  NOP; and a BTI only checks how it
 * was reached, in a guarded page, and there are none without kernel BTI.
 * (Under kernel BTI it must run where it is, and is stepped: skipping it
 * would skip the check, and leave PSTATE.BTYPE set for the next one.)
 * User code keeps its BTIs: its pages may be guarded.
 */
static bool insn_is_kernel_nop(u32 insn)
{
	u32 op = insn & AARCH64_INSN_HINT_OP_MASK;

	if (!aarch64_insn_is_hint(insn))
		return false;
	if (op == AARCH64_INSN_HINT_NOP)
		return true;
	return !IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) &&
	       (op == AARCH64_INSN_HINT_BTI || op == AARCH64_INSN_HINT_BTIC ||
		op == AARCH64_INSN_HINT_BTIJ || op == AARCH64_INSN_HINT_BTIJC);
}

/*
 * Classify @insn.  @user: it is user code (uprobes): its literal loads read
 * user memory, which the kernel may only touch with the user accessors.
 */
static enum probe_insn __kprobes decode_insn(probe_opcode_t insn,
					     struct arch_probe_insn *api,
					     bool user)
{
	probes_handler_t *handler = NULL;

	if (aarch64_insn_is_b(insn) || aarch64_insn_is_bl(insn))
		handler = simulate_b_bl;
	else if (aarch64_insn_is_bcond(insn))
		handler = simulate_b_cond;
	else if (aarch64_insn_is_cbz(insn) || aarch64_insn_is_cbnz(insn))
		handler = simulate_cbz_cbnz;
	else if (aarch64_insn_is_tbz(insn) || aarch64_insn_is_tbnz(insn))
		handler = simulate_tbz_tbnz;
	else if (aarch64_insn_is_br(insn) || aarch64_insn_is_blr(insn) ||
		 aarch64_insn_is_ret(insn))
		handler = simulate_br_blr_ret;
	else if (aarch64_insn_is_adr_adrp(insn))
		handler = simulate_adr_adrp;
	else if (aarch64_insn_is_ldr_lit(insn))
		handler = user ? simulate_ldr_literal_user : simulate_ldr_literal;
	else if (aarch64_insn_is_ldrsw_lit(insn))
		handler = user ? simulate_ldrsw_literal_user :
				 simulate_ldrsw_literal;
	else if (aarch64_insn_is_prfm_lit(insn) ||
		 (!user && insn_is_kernel_nop(insn)))
		handler = simulate_nop;

	api->handler = handler;
	if (handler)
		return INSN_GOOD_NO_SLOT;
	return insn_rejected(insn, user) ? INSN_REJECTED : INSN_GOOD;
}

/**
 * arm_probe_decode_insn() - classify an instruction of user code (uprobes)
 * @insn: the instruction
 * @api: where the simulation handler goes, if any
 *
 * The handlers it picks must be called with the user registers of the
 * task that runs @insn, from process context: literal loads read user
 * memory with the user accessors.  kprobes use arm_kprobe_decode_insn().
 *
 * Context: any.
 * Return: INSN_GOOD_NO_SLOT (simulated), INSN_GOOD (stepped) or
 * INSN_REJECTED.
 */
enum probe_insn __kprobes arm_probe_decode_insn(probe_opcode_t insn,
						struct arch_probe_insn *api)
{
	return decode_insn(insn, api, true);
}

#ifdef CONFIG_KPROBES
/* How far back to look for the load-exclusive of an atomic sequence */
#define EXCLUSIVE_LOOKBACK	16

/*
 * Is @addr between a load-exclusive and its store-exclusive?  A breakpoint
 * there would clear the exclusive monitor on every attempt, and the
 * sequence would never complete.
 */
static bool in_exclusive_sequence(kprobe_opcode_t *addr)
{
	unsigned long size, offset;
	kprobe_opcode_t *start, *p;
	u32 insn;

	if (!kallsyms_lookup_size_offset((unsigned long)addr, &size, &offset))
		return false;
	start = (kprobe_opcode_t *)((unsigned long)addr - offset);
	for (p = addr - 1; p >= start && p >= addr - EXCLUSIVE_LOOKBACK; p--) {
		if (aarch64_insn_read(p, &insn))
			return false;
		if (aarch64_insn_is_store_ex(insn))
			return false;
		if (aarch64_insn_is_load_ex(insn))
			return true;
	}
	return false;
}

/**
 * arm_kprobe_decode_insn() - classify the instruction a kprobe covers
 * @addr: the probed address
 * @asi: where the replay goes
 *
 * The handler it picks reads kernel memory: it must be called with the
 * registers of the probed kernel context.
 *
 * Context: process context.
 * Return: as arm_probe_decode_insn(), and INSN_REJECTED inside an
 * exclusive load/store sequence.
 */
enum probe_insn __kprobes arm_kprobe_decode_insn(kprobe_opcode_t *addr,
						 struct arch_specific_insn *asi)
{
	u32 insn;

	if (aarch64_insn_read(addr, &insn))
		return INSN_REJECTED;
	if (in_exclusive_sequence(addr))
		return INSN_REJECTED;
	return decode_insn(insn, &asi->api, false);
}
#endif /* CONFIG_KPROBES */
