// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes backend: int3 breakpoints, out-of-line replay and emulation.
 *
 * A hit, step by step:
 *
 *   1. The CPU executes the int3 written over the first byte of the probed
 *      instruction; exc_int3() calls kprobe_int3_handler().
 *   2. The handler looks the probe point up by address and runs the
 *      pre_handlers.  A pre_handler that returns non-zero has moved
 *      regs->ip itself: the hit ends there.
 *   3. The probed instruction is replayed, in one of two ways:
 *      a) Emulated on pt_regs: relative jumps and calls, and those
 *         through a register or a pointer in memory, jcc, loop, ret,
 *         cli, sti, popf and nops, none of which may run from a copy,
 *         because they read or write the instruction pointer or IF; and,
 *         because it is cheaper than a second trap, what functions
 *         usually begin with: push and pop of a register, moves between
 *         registers.  The post_handlers run at once and the hit ends.
 *      b) Boosted: if no post_handler has to run and the instruction
 *         has no exception-table fixup, the handler returns into a copy
 *         that is followed by a jmp back to the original code.  The hit
 *         is over: one trap in all.
 *      c) Executed out of line: the handler returns into a copy followed
 *         by an int3, with IF cleared, so that nothing but an NMI can run
 *         on this CPU until step 4.  (So is a jmp or call through memory
 *         whose pointer the emulation could not read: its copy is a push
 *         of the same operand.)
 *      Both copies have a RIP-relative displacement re-targeted.
 *   4. The int3 behind the copy traps.  The handler moves regs->ip to the
 *      instruction after the original (or completes the jmp or call with
 *      the pointer pushed), gives back IF (and fixes the flags a pushf
 *      stored), and runs the post_handlers.
 *
 * If the stepped copy faults instead, the fault is moved back to the
 * original instruction before its fixup is looked up (page faults, #GP:
 * kprobe_fault_handler(); the other exceptions: a DIE_TRAP notifier), and
 * the hit ends there, without post_handlers.
 *
 * A task may be interrupted, and with CONFIG_PREEMPTION preempted, inside
 * a boosted copy; so a slot is only released after an RCU-tasks grace
 * period (see arch_remove_kprobe_point()).
 *
 * A probe hit while this CPU is inside steps 2-4 (from a handler, or from an
 * NMI) runs no handler: it counts as missed and only replays its
 * instruction, with the outer hit parked in the control block.
 *
 * Text is changed only with text_poke_many() under text_mutex, followed by
 * text_poke_sync() (x86_write_pokes()): writing one int3 byte over an instruction, or putting
 * the original byte back, is the first and last step of the text_poke_bp()
 * protocol, safe against other CPUs executing the same bytes.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/extable.h>
#include <linux/kallsyms.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/moduleloader.h>
#include <linux/perf_event.h>
#include <linux/uaccess.h>
#include <asm/alternative.h>
#include <asm/extable.h>
#include <asm/ibt.h>
#include <asm/insn.h>
#include <asm/sections.h>
#include <asm/text-patching.h>
#include <asm/trapnr.h>
#include <asm/unaligned.h>

#include "common.h"

/* pt_regs offsets of the registers, in the order ModRM and REX number them */
static const u8 x86_reg_offsets[16] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
};

/* The flags popf may change in ring 0 */
#define X86_POPF_MASK	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_TF | \
			 X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_OF | \
			 X86_EFLAGS_NT | X86_EFLAGS_AC | X86_EFLAGS_ID)

/* ---------------------------------------------------------------------- */
/* Decoding, at registration                                               */
/* ---------------------------------------------------------------------- */

/* Put back in @buf (text at @addr, @len bytes) what @kpp changed. */
static void x86_unpatch(u8 *buf, unsigned long addr, size_t len,
			struct kprobe_point *kpp)
{
	unsigned long at = (unsigned long)kpp->addr;
	int i, n = 1;
	const u8 *orig = &kpp->opcode;

#ifdef CONFIG_OPTPROBES
	if (kpp->opt_state == KPROBE_OPT_OPTIMIZED) {
		orig = kpp->opt.orig;
		n = JMP32_INSN_SIZE;
	}
#endif
	for (i = 0; i < n; i++) {
		if (at + i >= addr && at + i < addr + len)
			buf[at + i - addr] = orig[i];
	}
}

/**
 * x86_read_text() - read text as it was before any kprobe
 * @buf: where to
 * @addr: the first byte
 * @len: how many bytes
 *
 * The int3 of an armed point is replaced by the byte it covers, and the
 * jump of an optimized point by the bytes it covers.  The text is read
 * under text_mutex: the others that patch text (ftrace, jump labels,
 * static calls) hold it through their text_poke_bp() updates, whose int3
 * in front of a half-written instruction would throw a decoder off its
 * instruction boundaries.
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0, or -EFAULT.
 */
int x86_read_text(u8 *buf, unsigned long addr, size_t len)
{
	struct kprobe_point *kpp;
	unsigned long at;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	mutex_lock(&text_mutex);
	ret = copy_from_kernel_nofault(buf, (void *)addr, len);
	mutex_unlock(&text_mutex);
	if (ret)
		return -EFAULT;
	for (at = addr - (JMP32_INSN_SIZE - 1); at < addr + len; at++) {
		kpp = kprobe_point_lookup((kprobe_opcode_t *)at);
		if (kpp && kpp->armed && !kpp->ftrace)
			x86_unpatch(buf, addr, len, kpp);
	}
	return 0;
}

/**
 * x86_read_original_insn() - read an instruction as it was before kprobes
 * @buf: MAX_INSN_SIZE bytes
 * @addr: where the instruction starts
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0, or -EFAULT.
 */
int x86_read_original_insn(u8 *buf, unsigned long addr)
{
	return x86_read_text(buf, addr, MAX_INSN_SIZE);
}

/* Decode from the start of the function: is @addr an instruction boundary? */
static int x86_check_insn_boundary(unsigned long addr)
{
	unsigned long size, offset, cur;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -EILSEQ;
	for (cur = addr - offset; cur < addr; cur += insn.length) {
		if (x86_read_original_insn(buf, cur) ||
		    insn_decode_kernel(&insn, buf) < 0)
			return -EILSEQ;
	}
	return cur == addr ? 0 : -EILSEQ;
}

static bool x86_insn_has_prefix(struct insn *insn, insn_byte_t prefix)
{
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p) {
		if (p == prefix)
			return true;
	}
	return false;
}

/*
 * The register forms of 0f 01 that enter, leave or call a hypervisor or
 * the TDX module (VMX, SVM, TDX, SGX's enclv): they switch CPU mode or do
 * not resume at the next instruction.
 */
static bool x86_is_virt_0f01(struct insn *insn, u8 modrm)
{
	switch (modrm) {
	case 0xc0:				/* enclv */
	case 0xc1:				/* vmcall */
	case 0xc2:				/* vmlaunch */
	case 0xc3:				/* vmresume */
	case 0xc4:				/* vmxoff */
	case 0xd4:				/* vmfunc */
	case 0xd8:				/* vmrun */
	case 0xd9:				/* vmmcall; f3: vmgexit */
	case 0xda:				/* vmload */
	case 0xdb:				/* vmsave */
	case 0xdc:				/* stgi */
	case 0xdd:				/* clgi */
	case 0xde:				/* skinit */
	case 0xdf:				/* invlpga */
		return true;
	case 0xcc:				/* 66: tdcall */
	case 0xcd:				/* 66: seamret */
	case 0xce:				/* 66: seamops */
	case 0xcf:				/* 66: seamcall; else encls */
		return x86_insn_has_prefix(insn, 0x66);
	}
	return false;
}

static int x86_classify_0f(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 op2 = insn->opcode.bytes[1];
	u8 modrm = insn->modrm.bytes[0];

	switch (op2) {
	case 0x80 ... 0x8f:			/* jcc rel32 */
		ai->replay = X86_REPLAY_JCC;
		ai->cc = op2 & 0xf;
		ai->disp = insn->immediate.value;
		return 0;
	case 0x1e:				/* endbr64 and other hint nops */
	case 0x1f:				/* nopl */
		ai->replay = X86_REPLAY_SKIP;
		return 0;
	case 0x01:
		/* swapgs, mwait and mwaitx could not survive IF=0 or a copy */
		if (modrm == 0xf8 || modrm == 0xc9 || modrm == 0xfb)
			return -EINVAL;
		if (x86_is_virt_0f01(insn, modrm))
			return -EINVAL;
		break;
	case 0x38:				/* invept, invvpid */
		if (insn->opcode.bytes[2] == 0x80 ||
		    insn->opcode.bytes[2] == 0x81)
			return -EINVAL;
		break;
	case 0x78:				/* vmread */
	case 0x79:				/* vmwrite */
		/* With 66 or f2, SSE4a's extrq and insertq */
		if (!x86_insn_has_prefix(insn, 0x66) &&
		    !x86_insn_has_prefix(insn, 0xf2))
			return -EINVAL;
		break;
	case 0xc7:
		/* Memory forms of /6 and /7: vmptrld, vmclear, vmxon, vmptrst */
		if (X86_MODRM_MOD(modrm) != 3 && X86_MODRM_REG(modrm) >= 6)
			return -EINVAL;
		break;
	case 0x05:				/* syscall */
	case 0x07:				/* sysret */
	case 0x0b:				/* ud2: BUG() and WARN() */
	case 0x34:				/* sysenter */
	case 0x35:				/* sysexit */
	case 0x37:				/* getsec: SMX, switches CPU mode */
	case 0xb9:				/* ud1 */
	case 0xff:				/* ud0 */
		return -EINVAL;
	}
	ai->replay = X86_REPLAY_STEP;
	return 0;
}

/*
 * Prefixes a near jmp or call through memory may have: segment overrides
 * that 64-bit mode ignores (es, cs, ss, ds, the last also notrack) and
 * bnd.  Refused: fs and gs (their bases are not in pt_regs), an operand
 * or address size (a 16-bit target, a 32-bit address), lock and rep.
 */
static bool x86_mem_branch_prefixes_ok(struct insn *insn)
{
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p) {
		switch (p) {
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
		case 0xf2:
			break;
		default:
			return false;
		}
	}
	return true;
}

/*
 * jmp or call through a pointer in memory, at any address 64-bit mode can
 * form: base + index * scale + disp, each part optional, or rip + disp32.
 * The hit computes the address from pt_regs (rip: the original one) and
 * reads the pointer; see x86_emulate_mem_branch().
 */
static int x86_classify_mem_branch(struct insn *insn,
				   struct arch_specific_insn *ai)
{
	u8 modrm = insn->modrm.bytes[0], sib = insn->sib.bytes[0];
	u8 rex = insn->rex_prefix.nbytes ? insn->rex_prefix.bytes[0] : 0;
	u8 mod = X86_MODRM_MOD(modrm), rm = X86_MODRM_RM(modrm);
	u8 base, index;

	if (insn->addr_bytes != 8 || !x86_mem_branch_prefixes_ok(insn))
		return -EINVAL;
	ai->index = X86_EA_NONE;
	ai->scale = 0;
	if (rm == 4) {				/* SIB */
		base = X86_SIB_BASE(sib) + (X86_REX_B(rex) ? 8 : 0);
		index = X86_SIB_INDEX(sib) + (X86_REX_X(rex) ? 8 : 0);
		/* No base: disp32 alone; no index: rsp's number, not r12's */
		ai->base = mod == 0 && X86_SIB_BASE(sib) == 5 ?
			   X86_EA_NONE : x86_reg_offsets[base];
		if (index != 4) {
			ai->index = x86_reg_offsets[index];
			ai->scale = X86_SIB_SCALE(sib);
		}
	} else if (mod == 0 && rm == 5) {	/* rip + disp32 */
		ai->base = X86_EA_RIP;
	} else {
		ai->base = x86_reg_offsets[rm + (X86_REX_B(rex) ? 8 : 0)];
	}
	ai->disp = insn->displacement.value;
	ai->replay = X86_MODRM_REG(modrm) == 2 ? X86_REPLAY_CALL_MEM :
						 X86_REPLAY_JMP_MEM;
	return 0;
}

static int x86_classify_ff(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 modrm = insn->modrm.bytes[0];
	u8 reg = X86_MODRM_RM(modrm);

	switch (X86_MODRM_REG(modrm)) {
	case 2:					/* call *r/m */
	case 4:					/* jmp *r/m */
		if (X86_MODRM_MOD(modrm) != 3)
			return x86_classify_mem_branch(insn, ai);
		if (insn->rex_prefix.nbytes &&
		    X86_REX_B(insn->rex_prefix.bytes[0]))
			reg += 8;
		ai->reg = x86_reg_offsets[reg];
		ai->replay = X86_MODRM_REG(modrm) == 2 ? X86_REPLAY_CALL_REG :
							 X86_REPLAY_JMP_REG;
		return 0;
	case 3:					/* far call */
	case 5:					/* far jmp */
		return -EINVAL;
	}
	ai->replay = X86_REPLAY_STEP;
	return 0;
}

/*
 * Instructions that are emulated; of them, push, pop and register moves
 * also get a copy, which a hit without post_handlers prefers: returning
 * into a boosted copy costs less than emulating.
 */
static nokprobe_inline bool x86_replay_emulated(u8 replay)
{
	return replay > X86_REPLAY_STEP_PUSHF;
}

static nokprobe_inline bool x86_replay_has_copy(u8 replay)
{
	return !x86_replay_emulated(replay) || replay >= X86_REPLAY_JMP_MEM;
}

static nokprobe_inline bool x86_replay_mem_branch(u8 replay)
{
	return replay == X86_REPLAY_JMP_MEM || replay == X86_REPLAY_CALL_MEM;
}

/* The register in the low three bits of @op, extended by REX.B */
static u8 x86_opcode_reg(struct insn *insn, u8 op)
{
	u8 reg = op & 7;

	if (insn->rex_prefix.nbytes && X86_REX_B(insn->rex_prefix.bytes[0]))
		reg += 8;
	return x86_reg_offsets[reg];
}

/*
 * mov %reg, %reg (0x89: r/m <- reg; 0x8b: reg <- r/m), 64 or 32 bits.
 * Anything else is stepped: a memory operand, 16 bits, and a move to the
 * stack pointer (below the old one, the int3's trap frame may have
 * overwritten what the new one points to).
 */
static void x86_classify_mov(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 modrm = insn->modrm.bytes[0];
	u8 rex = insn->rex_prefix.nbytes ? insn->rex_prefix.bytes[0] : 0;
	u8 reg = X86_MODRM_REG(modrm) + (X86_REX_R(rex) ? 8 : 0);
	u8 rm = X86_MODRM_RM(modrm) + (X86_REX_B(rex) ? 8 : 0);
	u8 dst = insn->opcode.bytes[0] == 0x89 ? rm : reg;
	u8 src = insn->opcode.bytes[0] == 0x89 ? reg : rm;

	ai->replay = X86_REPLAY_STEP;
	if (X86_MODRM_MOD(modrm) != 3 || dst == 4 ||
	    (insn->opnd_bytes != 8 && insn->opnd_bytes != 4))
		return;
	ai->reg = x86_reg_offsets[dst];
	ai->src = x86_reg_offsets[src];
	ai->replay = insn->opnd_bytes == 8 ? X86_REPLAY_MOV64 : X86_REPLAY_MOV32;
}

/**
 * x86_classify_insn() - decide how a hit replays an instruction
 * @insn: the decoded instruction
 * @ai: where the decision goes
 *
 * Context: any.
 * Return: 0, or -EINVAL if the instruction cannot be probed.
 */
int x86_classify_insn(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 op = insn->opcode.bytes[0];

	ai->len = insn->length;
	/*
	 * A VEX or EVEX instruction has one opcode byte, in a map of its own:
	 * its 0x7f is vmovdqa, not jg.  None of them reads or writes rip or
	 * IF, so all are stepped.
	 */
	if (insn_is_avx(insn)) {
		ai->replay = X86_REPLAY_STEP;
		return 0;
	}
	if (op == 0x0f)
		return x86_classify_0f(insn, ai);

	switch (op) {
	case 0x70 ... 0x7f:			/* jcc rel8 */
		ai->replay = X86_REPLAY_JCC;
		ai->cc = op & 0xf;
		ai->disp = insn->immediate.value;
		return 0;
	case 0xe0 ... 0xe3:			/* loopne, loope, loop, jrcxz */
		if (insn->addr_bytes != 8)
			return -EINVAL;
		ai->replay = X86_REPLAY_LOOP;
		ai->cc = op - 0xe0;
		ai->disp = insn->immediate.value;
		return 0;
	case 0xe8:				/* call rel32 */
		ai->replay = X86_REPLAY_CALL;
		ai->disp = insn->immediate.value;
		return 0;
	case 0xe9:				/* jmp rel32 */
	case 0xeb:				/* jmp rel8 */
		ai->replay = X86_REPLAY_JMP;
		ai->disp = insn->immediate.value;
		return 0;
	case 0xc2:				/* ret imm16 */
		ai->imm = insn->immediate.value;
		fallthrough;
	case 0xc3:				/* ret */
		ai->replay = X86_REPLAY_RET;
		return 0;
	case 0x90:				/* nop, pause; not xchg %r8,%rax */
		ai->replay = insn->rex_prefix.nbytes ? X86_REPLAY_STEP :
						       X86_REPLAY_SKIP;
		return 0;
	case 0x50 ... 0x57:			/* push %reg */
	case 0x58 ... 0x5f:			/* pop %reg */
		if (insn->opnd_bytes != 8)	/* 16 bits, with 0x66 */
			break;
		ai->reg = x86_opcode_reg(insn, op);
		ai->replay = op < 0x58 ? X86_REPLAY_PUSH : X86_REPLAY_POP;
		return 0;
	case 0x89:				/* mov %reg, r/m */
	case 0x8b:				/* mov r/m, %reg */
		x86_classify_mov(insn, ai);
		return 0;
	case 0x9c:				/* pushf */
		ai->replay = X86_REPLAY_STEP_PUSHF;
		return 0;
	case 0x9d:				/* popf */
		ai->replay = X86_REPLAY_POPF;
		return 0;
	case 0xfa:				/* cli */
		ai->replay = X86_REPLAY_CLI;
		return 0;
	case 0xfb:				/* sti */
		ai->replay = X86_REPLAY_STI;
		return 0;
	case 0xff:
		return x86_classify_ff(insn, ai);
	case 0x8e:				/* mov to a segment register */
	case 0x9a:				/* far call */
	case 0xca:				/* far ret imm16 */
	case 0xcb:				/* far ret */
	case 0xcc:				/* int3: someone else's breakpoint */
	case 0xcd:				/* int n */
	case 0xce:				/* into */
	case 0xcf:				/* iret */
	case 0xea:				/* far jmp */
	case 0xf1:				/* int1 */
	case 0xf4:				/* hlt: would never wake with IF=0 */
		return -EINVAL;
	}
	ai->replay = X86_REPLAY_STEP;
	return 0;
}

/**
 * x86_copy_insn() - copy an instruction to run it elsewhere
 * @copy: where the bytes go
 * @buf: the instruction's bytes
 * @insn: @buf decoded
 * @orig: the instruction's address
 * @where: the address the copy will run at
 *
 * A RIP-relative displacement is retargeted, so that the copy addresses
 * what the original does.
 *
 * Context: any.
 * Return: 0, or -ERANGE if the displacement does not reach.
 */
int x86_copy_insn(u8 *copy, const u8 *buf, struct insn *insn,
		  kprobe_opcode_t *orig, kprobe_opcode_t *where)
{
	s64 disp;

	memcpy(copy, buf, insn->length);
	if (!insn_rip_relative(insn))
		return 0;
	disp = (s64)insn->displacement.value + ((long)orig - (long)where);
	if (disp != (s32)disp)
		return -ERANGE;
	put_unaligned((s32)disp, (s32 *)(copy + insn_offset_displacement(insn)));
	return 0;
}

/*
 * Fill a slot: the stepped copy with an int3 behind it and, for a
 * boostable instruction, the boosted copy with a jmp back behind it.
 */
static int x86_prepare_slot(struct kprobe_point *kpp, const u8 *buf,
			    struct insn *insn)
{
	u8 copy[KPROBE_INSN_SLOT_SIZE];
	kprobe_opcode_t *slot, *boost, *next;
	int len = insn->length, ret;

	BUILD_BUG_ON(MAX_INSN_SIZE + INT3_INSN_SIZE > KPROBE_BOOST_OFFSET);
	BUILD_BUG_ON(KPROBE_BOOST_OFFSET + MAX_INSN_SIZE + JMP32_INSN_SIZE >
		     KPROBE_INSN_SLOT_SIZE);

	slot = get_insn_slot();
	if (!slot)
		return -ENOMEM;
	boost = slot + KPROBE_BOOST_OFFSET;
	next = kpp->addr + len;
	memset(copy, INT3_INSN_OPCODE, sizeof(copy));

	ret = x86_copy_insn(copy, buf, insn, kpp->addr, slot);
	if (!ret)
		ret = x86_copy_insn(copy + KPROBE_BOOST_OFFSET, buf, insn,
				    kpp->addr, boost);
	if (ret) {
		free_insn_slot(slot);
		return ret;
	}
	/*
	 * Faults in the copy are moved back to the original instruction only
	 * while the step is tracked; a fixup would not be found from the
	 * boosted copy.
	 */
	kpp->ainsn.boostable = !search_exception_tables((unsigned long)kpp->addr);
	/*
	 * A jmp or call through memory, stepped only when the hit could not
	 * read its pointer, becomes a push of the same operand (ff /6): the
	 * CPU reads the pointer, or takes the fault the original would; the
	 * step ends in x86_mem_branch_step_done().
	 */
	if (x86_replay_mem_branch(kpp->ainsn.replay)) {
		copy[insn_offset_modrm(insn)] =
			(insn->modrm.bytes[0] & ~0x38) | (6 << 3);
		kpp->ainsn.boostable = false;
	}
	__text_gen_insn(copy + KPROBE_BOOST_OFFSET + len, JMP32_INSN_OPCODE,
			boost + len, next, JMP32_INSN_SIZE);

	x86_slot_write(slot, copy, sizeof(copy));
	kpp->ainsn.insn = slot;
	return 0;
}

/**
 * arch_prepare_kprobe_point() - decode the probed instruction
 * @kpp: a new point; only its address is set
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0; -EILSEQ if the address is not an instruction boundary,
 * -EINVAL if the instruction cannot be probed, -ENOMEM, -ERANGE.
 */
int arch_prepare_kprobe_point(struct kprobe_point *kpp)
{
	unsigned long addr = (unsigned long)kpp->addr;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	int ret;

	ret = x86_check_insn_boundary(addr);
	if (ret)
		return ret;
	if (x86_read_original_insn(buf, addr) ||
	    insn_decode_kernel(&insn, buf) < 0)
		return -EILSEQ;
	ret = x86_classify_insn(&insn, &kpp->ainsn);
	if (ret)
		return ret;
	/*
	 * The fixup of load_unaligned_zeropad() decodes the faulting load
	 * from the text, where it would find the breakpoint and fail.
	 */
	if (ex_get_fixup_type(addr) == EX_TYPE_ZEROPAD)
		return -EINVAL;
	kpp->opcode = buf[0];
	if (!x86_replay_has_copy(kpp->ainsn.replay))
		return 0;
	return x86_prepare_slot(kpp, buf, &insn);
}

/**
 * arch_remove_kprobe_point() - release what arch_prepare_kprobe_point() took
 * @kpp: a point no CPU can be replaying any more, and no task can be
 *	inside a boosted copy of (an RCU-tasks grace period has passed)
 *
 * Context: process context, may sleep.
 */
void arch_remove_kprobe_point(struct kprobe_point *kpp)
{
	x86_slot_free(kpp->ainsn.insn);
	kpp->ainsn.insn = NULL;
}

/**
 * x86_slot_write() - fill a slot with code
 * @slot: a slot from get_insn_slot() that nothing executes yet
 * @code: the copy, or the detour
 * @len: its length
 *
 * perf learns of the code too, as of an ftrace trampoline's: a
 * PERF_RECORD_TEXT_POKE from nothing to @code, after the ksymbol record of
 * the slot's page, so that an Intel PT decoder can follow it.
 *
 * Context: process context, may sleep.
 */
void x86_slot_write(void *slot, const void *code, size_t len)
{
	text_poke_copy(slot, code, len);
	perf_event_text_poke(slot, NULL, 0, code, len);
}

/**
 * x86_slot_free() - give back a slot that x86_slot_write() filled
 * @slot: the slot, which nothing can execute any more; or NULL
 *
 * Context: process context, may sleep.
 */
void x86_slot_free(void *slot)
{
	if (!slot)
		return;
	perf_event_text_poke(slot, slot, KPROBE_INSN_SLOT_SIZE, NULL, 0);
	free_insn_slot(slot);
}

/*
 * Text changes since the last commit: int3s written and lifted, and the
 * optimizer's (opt.c).  They are written in the order they were queued,
 * by text_poke_many(), which maps the pages of many of them at once, and
 * made visible to every CPU by one text_poke_sync(), when the queue is
 * full or at the next x86_write_pokes() (kprobe_mutex).
 */
#define X86_POKE_BATCH	512

static struct x86_poke {
	u8 bytes[JMP32_INSN_SIZE - 1];
	u8 old[JMP32_INSN_SIZE - 1];
} x86_pokes[X86_POKE_BATCH];
static struct text_poke_op x86_poke_ops[X86_POKE_BATCH];
static unsigned int x86_nr_pokes;

/*
 * Tell perf of the queued changes that lift an int3 (@lifting), or of the
 * others.  An Intel PT decoder takes a PERF_RECORD_TEXT_POKE's time as the
 * moment the text changed, and copes with a trap on either side of it:
 * so a change that puts an int3 is told once no CPU can run the old bytes
 * (after the sync), one that lifts it while every CPU still traps (before
 * the write), as text_poke_bp() does for its own.  Nothing to do, and no
 * walk of the queue, where no perf event wants the records.
 */
static void x86_tell_perf(bool lifting)
{
	unsigned int i;

	if (!perf_event_text_poke_wanted())
		return;
	for (i = 0; i < x86_nr_pokes; i++) {
		const struct x86_poke *poke = &x86_pokes[i];

		if ((poke->old[0] == INT3_INSN_OPCODE &&
		     poke->bytes[0] != INT3_INSN_OPCODE) != lifting)
			continue;
		perf_event_text_poke(x86_poke_ops[i].addr, poke->old,
				     x86_poke_ops[i].len, poke->bytes,
				     x86_poke_ops[i].len);
	}
}

/**
 * x86_write_pokes() - write the queued text changes, serialize every CPU
 *
 * Context: kprobe_mutex held, may sleep.
 */
void x86_write_pokes(void)
{
	lockdep_assert_held(&kprobe_mutex);
	x86_tell_perf(true);
	mutex_lock(&text_mutex);
	text_poke_many(x86_poke_ops, x86_nr_pokes);
	mutex_unlock(&text_mutex);
	/* No CPU may keep executing the old bytes once we return. */
	text_poke_sync();
	x86_tell_perf(false);
	x86_nr_pokes = 0;
}

/**
 * x86_queue_poke() - queue a text change
 * @addr: where
 * @old: the bytes it replaces, for perf
 * @bytes: what, copied
 * @len: how many bytes, at most 4; each change must be safe on its own
 *	against a CPU executing there (see text_poke_bp())
 *
 * Context: kprobe_mutex held, may sleep.
 */
void x86_queue_poke(void *addr, const void *old, const void *bytes,
		    size_t len)
{
	struct x86_poke *poke;

	lockdep_assert_held(&kprobe_mutex);
	if (WARN_ON_ONCE(len > sizeof(poke->bytes)))
		return;
	if (x86_nr_pokes == X86_POKE_BATCH)
		x86_write_pokes();
	poke = &x86_pokes[x86_nr_pokes];
	memcpy(poke->bytes, bytes, len);
	memcpy(poke->old, old, len);
	x86_poke_ops[x86_nr_pokes++] = (struct text_poke_op) {
		.addr = addr, .opcode = poke->bytes, .len = len,
	};
}

/**
 * arch_arm_kprobe_point() - queue the int3
 * @kpp: the point
 *
 * Writing one int3 over an instruction is the first step of the
 * text_poke_bp() protocol: a CPU executes either the old byte or the int3.
 * It is certain to see the int3 after arch_kprobes_commit().
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_arm_kprobe_point(struct kprobe_point *kpp)
{
	static const u8 int3 = INT3_INSN_OPCODE;

	x86_queue_poke(kpp->addr, &kpp->opcode, &int3, INT3_INSN_SIZE);
}

/**
 * arch_disarm_kprobe_point() - queue the original byte
 * @kpp: the point
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_disarm_kprobe_point(struct kprobe_point *kpp)
{
	static const u8 int3 = INT3_INSN_OPCODE;

	x86_queue_poke(kpp->addr, &int3, &kpp->opcode, INT3_INSN_SIZE);
}

/**
 * arch_kprobes_commit() - write the queued int3 changes, serialize every CPU
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_kprobes_commit(void)
{
	x86_write_pokes();
}

/**
 * arch_adjust_kprobe_addr() - move a function-entry probe past ENDBR
 * @addr: the requested address
 * @offset: @addr's offset in its function
 *
 * Context: process context.
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset)
{
	u32 insn;

	if (!offset && !copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)) &&
	    is_endbr(insn))
		addr += ENDBR_INSN_SIZE;
	return (kprobe_opcode_t *)addr;
}

/**
 * arch_kprobe_text_reserved() - is @addr an SMP-alternatives lock prefix?
 * @addr: the probe address
 *
 * Context: process context.
 * Return: true if the alternatives code may rewrite @addr.
 */
bool arch_kprobe_text_reserved(kprobe_opcode_t *addr)
{
	bool reserved;

	/* The end is exclusive there: [addr, addr + 1) */
	mutex_lock(&text_mutex);
	reserved = alternatives_text_reserved(addr, addr + 1);
	mutex_unlock(&text_mutex);
	return reserved;
}

/**
 * arch_populate_kprobe_blacklist() - add the x86 entry code to the blacklist
 *
 * Context: boot.
 * Return: 0 or -ENOMEM.
 */
int arch_populate_kprobe_blacklist(void)
{
	return kprobe_add_area_blacklist((unsigned long)__entry_text_start,
					 (unsigned long)__entry_text_end);
}

/* ---------------------------------------------------------------------- */
/* The hit path                                                            */
/* ---------------------------------------------------------------------- */

static void x86_emulate_loop(const struct arch_specific_insn *ai,
			     struct pt_regs *regs, unsigned long next)
{
	bool zf = regs->flags & X86_EFLAGS_ZF;
	bool taken;

	if (ai->cc == 3) {			/* jrcxz */
		taken = !regs->cx;
	} else {
		regs->cx--;
		taken = regs->cx != 0;
		if (ai->cc == 0)		/* loopne */
			taken = taken && !zf;
		else if (ai->cc == 1)		/* loope */
			taken = taken && zf;
	}
	regs->ip = taken ? next + ai->disp : next;
}

NOKPROBE_SYMBOL(x86_emulate_loop);

/* @offset is one of x86_reg_offsets[] */
static nokprobe_inline void x86_set_register(struct pt_regs *regs,
					     unsigned int offset,
					     unsigned long val)
{
	*(unsigned long *)((u8 *)regs + offset) = val;
}

/*
 * jmp or call through a pointer in memory.
 *
 * Emulated, as a jmp or call through a register is: the address comes
 * from the registers the int3 saved (rsp included: pt_regs holds the
 * stack pointer of the probed code) and from the original rip, and the
 * pointer is read with copy_from_kernel_nofault().  A copy cannot simply
 * be run instead: a call from a slot would leave the slot's address as
 * the return address, in the callee's frame for as long as the callee
 * runs (it may sleep, the slot may be freed meanwhile; unwinders would not
 * know it).  insn_get_addr_ref() is not used: it needs the whole decoded
 * instruction at the hit, where the few fields kept at registration do.
 *
 * If the pointer cannot be read, the instruction would fault: the caller
 * steps the copy in the slot instead, which x86_prepare_slot() made a push
 * of the same operand.  The fault, if the CPU takes it, is then the
 * original instruction's (moved back to it with its fixup, if any); if
 * the push succeeds after all, x86_mem_branch_step_done() completes the
 * jmp or call with the value it pushed.
 *
 * Return: false if the pointer could not be read (@regs untouched).
 */
static bool x86_emulate_mem_branch(const struct arch_specific_insn *ai,
				   struct pt_regs *regs, unsigned long next)
{
	unsigned long addr = (long)ai->disp, target;

	if (ai->base == X86_EA_RIP)
		addr += next;
	else if (ai->base != X86_EA_NONE)
		addr += regs_get_register(regs, ai->base);
	if (ai->index != X86_EA_NONE)
		addr += regs_get_register(regs, ai->index) << ai->scale;
	if (copy_from_kernel_nofault(&target, (void *)addr, sizeof(target)))
		return false;
	if (ai->replay == X86_REPLAY_CALL_MEM)
		int3_emulate_push(regs, next);
	regs->ip = target;
	return true;
}

NOKPROBE_SYMBOL(x86_emulate_mem_branch);

/*
 * Replay an emulated instruction on @regs; regs->ip is the probed address + 1.
 * Return: false if it could not be (x86_emulate_mem_branch()): step it.
 */
static bool x86_emulate_insn(struct kprobe_point *kpp, struct pt_regs *regs)
{
	const struct arch_specific_insn *ai = &kpp->ainsn;
	unsigned long next = (unsigned long)kpp->addr + ai->len;
	unsigned long val;

	switch (ai->replay) {
	case X86_REPLAY_SKIP:
		regs->ip = next;
		break;
	case X86_REPLAY_JMP:
		regs->ip = next + ai->disp;
		break;
	case X86_REPLAY_CALL:
		int3_emulate_push(regs, next);
		regs->ip = next + ai->disp;
		break;
	case X86_REPLAY_JCC:
		int3_emulate_jcc(regs, ai->cc, next, ai->disp);
		break;
	case X86_REPLAY_LOOP:
		x86_emulate_loop(ai, regs, next);
		break;
	case X86_REPLAY_RET:
		regs->ip = int3_emulate_pop(regs);
		regs->sp += ai->imm;
		break;
	case X86_REPLAY_JMP_REG:
		regs->ip = regs_get_register(regs, ai->reg);
		break;
	case X86_REPLAY_CALL_REG:
		val = regs_get_register(regs, ai->reg);
		int3_emulate_push(regs, next);
		regs->ip = val;
		break;
	case X86_REPLAY_CLI:
		regs->flags &= ~X86_EFLAGS_IF;
		regs->ip = next;
		break;
	case X86_REPLAY_STI:
		regs->flags |= X86_EFLAGS_IF;
		regs->ip = next;
		break;
	case X86_REPLAY_POPF:
		val = int3_emulate_pop(regs);
		regs->flags = (regs->flags & ~X86_POPF_MASK) |
			      (val & X86_POPF_MASK);
		regs->ip = next;
		break;
	case X86_REPLAY_JMP_MEM:
	case X86_REPLAY_CALL_MEM:
		return x86_emulate_mem_branch(ai, regs, next);
	case X86_REPLAY_PUSH:
		/* push %rsp pushes the value before the push */
		int3_emulate_push(regs, regs_get_register(regs, ai->reg));
		regs->ip = next;
		break;
	case X86_REPLAY_POP:
		/* pop %rsp loads the popped value over the increment */
		val = int3_emulate_pop(regs);
		x86_set_register(regs, ai->reg, val);
		regs->ip = next;
		break;
	case X86_REPLAY_MOV64:
		x86_set_register(regs, ai->reg,
				 regs_get_register(regs, ai->src));
		regs->ip = next;
		break;
	case X86_REPLAY_MOV32:
		x86_set_register(regs, ai->reg,
				 (u32)regs_get_register(regs, ai->src));
		regs->ip = next;
		break;
	}
	return true;
}

NOKPROBE_SYMBOL(x86_emulate_insn);

/* Step 3c: send the CPU into the stepped copy, interrupts off */
static void x86_start_step(struct kprobe_point *kpp, struct pt_regs *regs,
			   struct kprobe_ctlblk *kcb)
{
	kcb->point = kpp;
	kcb->step.saved_if = regs->flags & X86_EFLAGS_IF;
	/* Nothing but an NMI may run on this CPU until the step ends. */
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)kpp->ainsn.insn;
}

NOKPROBE_SYMBOL(x86_start_step);

/*
 * Step 3: emulate the instruction, or send the CPU to a copy of it (also
 * a jmp or call through memory whose pointer could not be read).  The hit
 * is not nested (see x86_replay_nested()): kcb->point is NULL, and the
 * control block is only written for a replay that needs it.  current_kprobe
 * is still what kprobe_dispatch_pre_handlers() left, never NULL: a hit
 * from an NMI meanwhile is nested, and leaves the control block alone.
 */
static nokprobe_inline void x86_replay(struct kprobe_point *kpp,
				       struct pt_regs *regs, bool need_post)
{
	struct kprobe_ctlblk *kcb;

	/*
	 * Being optimized, or unoptimized: the detour runs the whole region
	 * and jumps back behind it, so that no CPU enters the region behind
	 * the int3.  (A post_handler just added misses this hit.)
	 */
	if (kprobe_opt_diverts(kpp)) {
		kprobe_count_hit(kpp, KPROBE_HIT_BOOSTED);
		regs->ip = x86_opt_resume_addr(kpp);
		reset_current_kprobe();
		return;
	}

	/* Step 3b, the common case first: no second trap, the hit ends. */
	if (kpp->ainsn.boostable && !need_post) {
		kprobe_count_hit(kpp, KPROBE_HIT_BOOSTED);
		regs->ip = (unsigned long)kpp->ainsn.insn + KPROBE_BOOST_OFFSET;
		reset_current_kprobe();
		return;
	}

	__this_cpu_write(current_kprobe, &kprobe_busy);
	kcb = get_kprobe_ctlblk();
	kcb->status = KPROBE_HIT_SS;
	if (x86_replay_emulated(kpp->ainsn.replay) &&
	    x86_emulate_insn(kpp, regs)) {
		kprobe_count_hit(kpp, KPROBE_HIT_EMULATED);
		kprobe_replay_done(kpp, regs, kcb);
		return;
	}

	kprobe_count_hit(kpp, KPROBE_HIT_STEPPED);
	x86_start_step(kpp, regs, kcb);
}

/*
 * A hit while this CPU is inside a probe: no handler runs, and the outer
 * hit's state is left alone unless the instruction has to be stepped.
 * Return: false if it cannot be replayed.
 */
static bool x86_replay_nested(struct kprobe_point *kpp, struct pt_regs *regs,
			      struct kprobe_ctlblk *kcb)
{
	kprobe_point_missed(kpp);
	if (kprobe_opt_diverts(kpp)) {
		regs->ip = x86_opt_resume_addr(kpp);
		return true;
	}
	if (x86_replay_emulated(kpp->ainsn.replay) &&
	    x86_emulate_insn(kpp, regs))
		return true;
	if (kpp->ainsn.boostable) {
		regs->ip = (unsigned long)kpp->ainsn.insn + KPROBE_BOOST_OFFSET;
		return true;
	}
	if (!kprobe_enter_nested(kcb))
		return false;
	x86_start_step(kpp, regs, kcb);
	return true;
}

NOKPROBE_SYMBOL(x86_replay_nested);

/*
 * The push that stood in for a jmp or call through memory has run: the
 * pointer is on the stack.  A call's return address takes its place, a
 * jmp pops it.
 */
static void x86_mem_branch_step_done(struct kprobe_point *kpp,
				     struct pt_regs *regs)
{
	unsigned long *slot = (unsigned long *)regs->sp;

	regs->ip = *slot;
	if (kpp->ainsn.replay == X86_REPLAY_CALL_MEM)
		*slot = (unsigned long)kpp->addr + kpp->ainsn.len;
	else
		regs->sp += sizeof(*slot);
}

NOKPROBE_SYMBOL(x86_mem_branch_step_done);

/* Step 4: the int3 behind the copy in the slot has trapped. */
static void x86_step_done(struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	struct kprobe_point *kpp = kcb->point;
	unsigned long *pushed_flags;

	regs->ip = (unsigned long)kpp->addr + kpp->ainsn.len;
	regs->flags |= kcb->step.saved_if;
	if (kpp->ainsn.replay == X86_REPLAY_STEP_PUSHF) {
		pushed_flags = (unsigned long *)regs->sp;
		*pushed_flags = (*pushed_flags & ~X86_EFLAGS_IF) |
				kcb->step.saved_if;
	} else if (x86_replay_mem_branch(kpp->ainsn.replay)) {
		x86_mem_branch_step_done(kpp, regs);
	}
	kprobe_replay_done(kpp, regs, kcb);
}

NOKPROBE_SYMBOL(x86_step_done);

/*
 * An int3 at @addr that is no live point's: the end of this CPU's stepped
 * copy (step 4; slots are never probe points, so the lookup missed it),
 * an int3 of a point removed after this CPU trapped on it (the original
 * instruction is back: run it), or not ours (a point served by ftrace
 * never has one): let its owner, a debugger say, have it.
 */
static int x86_int3_not_a_point(struct pt_regs *regs, kprobe_opcode_t *addr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	if (kprobe_in_step(kcb) &&
	    addr == kcb->point->ainsn.insn + kcb->point->ainsn.len) {
		x86_step_done(regs, kcb);
		return 1;
	}
	if (*addr != INT3_INSN_OPCODE) {
		regs->ip = (unsigned long)addr;
		return 1;
	}
	return 0;
}

NOKPROBE_SYMBOL(x86_int3_not_a_point);

/**
 * kprobe_int3_handler() - the kprobes part of the int3 exception
 * @regs: the trapped context; regs->ip is just past the int3
 *
 * Context: exception (NMI-like), interrupts and preemption disabled.
 * Return: 1 if the int3 was a kprobe's and has been handled.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)(regs->ip - INT3_INSN_SIZE);
	struct kprobe_point *kpp;
	int ret;

	if (user_mode(regs))
		return 0;

	kpp = kprobe_point_lookup(addr);
	if (unlikely(!kpp || kpp->ftrace))
		return x86_int3_not_a_point(regs, addr);

	if (kprobe_running()) {
		if (x86_replay_nested(kpp, regs, get_kprobe_ctlblk()))
			return 1;
		pr_err("unrecoverable nested hit at %pS\n", addr);
		return 0;
	}

	ret = kprobe_dispatch_pre_handlers(kpp, regs);
	if (unlikely(ret == KPROBE_PRE_REDIRECTED)) {
		/* A pre_handler moved regs->ip: no replay, no post_handler. */
		kprobe_count_hit(kpp, KPROBE_HIT_EMULATED);
		reset_current_kprobe();
		return 1;
	}
	x86_replay(kpp, regs, ret == KPROBE_PRE_NEED_POST);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_handler);

/*
 * If @regs faulted in this CPU's stepped copy, make it look as if the
 * original instruction had faulted: put regs->ip and IF back and end the
 * step (a nested hit gives the CPU back to the outer one).  No
 * post_handler runs: the instruction did not complete, and execution goes
 * on wherever the fault's handling sends it.
 */
static bool x86_fault_in_step(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_point *kpp = kcb->point;
	unsigned long slot;

	if (!kprobe_in_step(kcb))
		return false;
	slot = (unsigned long)kpp->ainsn.insn;
	if (regs->ip < slot || regs->ip >= slot + kpp->ainsn.len)
		return false;

	regs->ip = (unsigned long)kpp->addr;
	regs->flags |= kcb->step.saved_if;
	kprobe_hit_end(kcb);
	return true;
}

NOKPROBE_SYMBOL(x86_fault_in_step);

/**
 * kprobe_fault_handler() - a fault while this CPU is inside a probe hit
 * @regs: the faulting context
 * @trapnr: the trap number
 *
 * If the stepped copy faulted, pretend the original instruction did (see
 * x86_fault_in_step()).  For a page fault (kprobe_page_fault(), called
 * before anything else looks at the fault) that is all: the page-fault
 * handler goes on and finds the original instruction's fixup, if it needs
 * one.  #GP and #VE call us only after their own fixup_exception() found
 * nothing at the copy's address, so the original instruction's fixup is
 * applied here.  Faults in handlers are left to the normal fixups.
 *
 * Context: exception, preemption disabled.
 * Return: 1 if the fault was fixed up, 0 if the caller goes on handling it.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	if (!x86_fault_in_step(regs) || trapnr == X86_TRAP_PF)
		return 0;
	/* The caller stored the error code there before calling us. */
	return fixup_exception(regs, trapnr, current->thread.error_code, 0);
}

NOKPROBE_SYMBOL(kprobe_fault_handler);

/*
 * The other exceptions (#DE, #OF, #UD, #TS, #NP, #SS, #AC, #BR, #MF, #XM)
 * tell the die notifiers with DIE_TRAP.  do_error_trap() does that before
 * it looks for a fixup, so moving the fault back to the original
 * instruction is enough; math_error() does it after, so its fixup is
 * applied here.  (#NM from kernel mode, the only exception left, is a bug
 * the kernel dies of with no fixup and no notifier.)
 */
static int x86_kprobe_trap_notify(struct notifier_block *nb,
				  unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;

	if (val != DIE_TRAP || user_mode(regs))
		return NOTIFY_DONE;
	/* math_error() may have enabled interrupts; a step never does. */
	if (preemptible() || !kprobe_running() || !x86_fault_in_step(regs))
		return NOTIFY_DONE;
	if ((args->trapnr == X86_TRAP_MF || args->trapnr == X86_TRAP_XF) &&
	    fixup_exception(regs, args->trapnr, args->err, 0))
		return NOTIFY_STOP;
	return NOTIFY_DONE;
}

NOKPROBE_SYMBOL(x86_kprobe_trap_notify);

static struct notifier_block x86_kprobe_trap_nb = {
	.notifier_call = x86_kprobe_trap_notify,
	/* First, so that other notifiers and die() see the original address */
	.priority = INT_MAX,
};

/**
 * arch_init_kprobes() - x86 setup: hear of traps in stepped copies
 *
 * Context: boot.
 * Return: 0, or the error of register_die_notifier().
 */
int __init arch_init_kprobes(void)
{
	return register_die_notifier(&x86_kprobe_trap_nb);
}
