/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H
/*
 * x86 part of the kprobes interface: the breakpoint opcode, how a probed
 * instruction is replayed (copied to a slot or emulated), and the per-CPU
 * state an out-of-line step has to restore.
 */

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/types.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

#define __ARCH_WANT_KPROBES_INSN_SLOT

typedef u8 kprobe_opcode_t;

#define BREAKPOINT_INSTRUCTION	0xcc

/*
 * At a function's entry (a kretprobe's entry hit) the return address is
 * the word at the stack pointer; that slot also names the call's frame.
 */
static inline unsigned long *arch_kretprobe_ret_slot(struct pt_regs *regs)
{
	return (unsigned long *)regs->sp;
}

static inline void *arch_kretprobe_frame(struct pt_regs *regs)
{
	return (void *)regs->sp;
}

/*
 * At the return, the trampoline has pushed its own address back into that
 * slot (see kretprobe.c): the real return address goes there, for the
 * unwinders, before the instance that knew it is recycled.
 */
static inline void arch_kretprobe_set_return(struct pt_regs *regs, void *fp,
					     unsigned long ret_addr)
{
	*(unsigned long *)fp = ret_addr;
}

/*
 * A slot holds two copies of the probed instruction: at 0 the stepped one,
 * followed by the int3 that ends the step; at KPROBE_BOOST_OFFSET the
 * boosted one, followed by a jmp back to the original code.
 */
#define KPROBE_INSN_SLOT_SIZE	64
#define KPROBE_BOOST_OFFSET	32
/* Unused slot memory holds int3s. */
#define KPROBE_INSN_PAGE_FILL	BREAKPOINT_INSTRUCTION

/**
 * enum x86_kprobe_replay - how the probed instruction is replayed on a hit
 * @X86_REPLAY_STEP: run the copy in the slot, then trap on the int3 behind it
 * @X86_REPLAY_STEP_PUSHF: as STEP, then give the pushed flags the real IF
 * @X86_REPLAY_SKIP: a nop: only advance the instruction pointer
 * @X86_REPLAY_JMP: emulate a relative jmp
 * @X86_REPLAY_CALL: emulate a relative call
 * @X86_REPLAY_JCC: emulate a conditional relative jump
 * @X86_REPLAY_LOOP: emulate loop, loope, loopne and jrcxz
 * @X86_REPLAY_RET: emulate a near return (with its immediate, if any)
 * @X86_REPLAY_JMP_REG: emulate jmp through a register
 * @X86_REPLAY_CALL_REG: emulate call through a register
 * @X86_REPLAY_CLI: emulate cli
 * @X86_REPLAY_STI: emulate sti
 * @X86_REPLAY_POPF: emulate popf
 * @X86_REPLAY_JMP_MEM: emulate jmp through a pointer in memory
 * @X86_REPLAY_CALL_MEM: emulate call through a pointer in memory
 * @X86_REPLAY_PUSH: emulate push of a 64-bit register
 * @X86_REPLAY_POP: emulate pop into a 64-bit register
 * @X86_REPLAY_MOV64: emulate a 64-bit move between registers, not to rsp
 * @X86_REPLAY_MOV32: emulate a 32-bit move between registers (the upper
 *	half of the destination cleared), not to esp
 *
 * The last four are the usual first instructions of a function: emulated,
 * a probe with a post_handler there takes one trap, not two.  They keep a
 * slot: without post_handlers, a boosted copy is cheaper still.  A jmp or
 * call through memory keeps one too, never boosted: the stepped copy reads
 * the pointer when emulation could not.  (The last six must stay last:
 * see x86_replay_has_copy().)
 */
enum x86_kprobe_replay {
	X86_REPLAY_STEP,
	X86_REPLAY_STEP_PUSHF,
	X86_REPLAY_SKIP,
	X86_REPLAY_JMP,
	X86_REPLAY_CALL,
	X86_REPLAY_JCC,
	X86_REPLAY_LOOP,
	X86_REPLAY_RET,
	X86_REPLAY_JMP_REG,
	X86_REPLAY_CALL_REG,
	X86_REPLAY_CLI,
	X86_REPLAY_STI,
	X86_REPLAY_POPF,
	X86_REPLAY_JMP_MEM,
	X86_REPLAY_CALL_MEM,
	X86_REPLAY_PUSH,
	X86_REPLAY_POP,
	X86_REPLAY_MOV64,
	X86_REPLAY_MOV32,
};

/* No base or index register; a RIP-relative address (the original rip) */
#define X86_EA_NONE	0xff
#define X86_EA_RIP	0xfe

/**
 * struct arch_specific_insn - a decoded probed instruction
 * @insn: the out-of-line slot (copy + int3); NULL for instructions that
 *	are only emulated
 * @replay: how a hit replays the instruction, see &enum x86_kprobe_replay
 * @len: length of the original instruction
 * @cc: condition code of a jcc, or which of the loop family
 * @reg: pt_regs offset of the register of an indirect jmp/call, of a
 *	push or pop, or of the destination of a move
 * @src: pt_regs offset of the source register of a move
 * @boostable: the copy at KPROBE_BOOST_OFFSET may be used: a hit that
 *	needs no post_handler resumes there, without a second trap
 * @base: for a jmp/call through memory, the pt_regs offset of the base
 *	register of the pointer's address, X86_EA_NONE or X86_EA_RIP
 * @index: the pt_regs offset of its index register, or X86_EA_NONE
 * @scale: the index's shift, 0 to 3
 * @imm: stack bytes a "ret imm16" releases
 * @disp: displacement of a relative jmp/call/jcc/loop, or of the address
 *	of the pointer of a jmp/call through memory
 *
 * All fields are written once, when the probe point is prepared.
 */
struct arch_specific_insn {
	kprobe_opcode_t *insn;
	u8 replay;
	u8 len;
	u8 cc;
	u8 reg;
	u8 src;
	u8 boostable;
	u8 base;
	u8 index;
	u8 scale;
	u16 imm;
	s32 disp;
};

/**
 * struct arch_kprobe_step - what a CPU restores when an out-of-line step ends
 * @saved_if: the IF bit of the probed context, cleared during the step
 */
struct arch_kprobe_step {
	unsigned long saved_if;
};

/**
 * struct arch_optimized_insn - the detour of an optimized point
 * @detour: its slot, see arch/x86/kernel/kprobes/opt.c; NULL until built
 * @orig: the bytes of text the jump to it replaces
 *
 * Written under kprobe_mutex, before the point may be optimized.
 */
struct arch_optimized_insn {
	kprobe_opcode_t *detour;
	u8 orig[5];
};

/* The longest region a jump replaces: 4 bytes, then a whole instruction */
#define KPROBE_OPT_MAX_LEN	(5 - 1 + MAX_INSN_SIZE)

struct pt_regs;
int kprobe_int3_handler(struct pt_regs *regs);

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
