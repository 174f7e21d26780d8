// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jump optimization: regions, detours and the jumps to them.
 *
 * The region of a point is the instructions its 5-byte "jmp rel32" covers:
 * from the probed instruction up to the first instruction boundary at or
 * past 5 bytes.  Its detour, in a slot of the instruction slot cache (in
 * reach of a rel32 from any kernel or module text), is
 *
 *	.quad	<regs->ip of a hit: the probed address + 1, as after an int3>
 *	.quad	<the probe point>
 *	call	kprobe_opt_entry	<- the jump lands here; saves pt_regs,
 *					runs the pre_handlers, returns below
 *	<the region's instructions, relocated>
 *	jmp	<behind the region>
 *
 * A region is refused (enum kprobe_opt_refusal) unless it lies inside one
 * function; every instruction in it can run from the detour (RIP-relative
 * operands and relative jumps are retargeted; calls, returns, traps and
 * whatever reads or writes the instruction pointer otherwise are not); no
 * instruction in it has an exception-table entry and no fixup lands in it;
 * no branch of the function (its cold part included) targets the inside of
 * it, and the function has no indirect jump whose targets are unknown; and
 * it overlaps no text that jump labels, static calls, alternatives or
 * ftrace patch, nor a BUG()/WARN() site (a ud2 that report_bug() finds by
 * its address, which a copy in the detour would not have).
 *
 * The kernel's alternatives are applied before anything can be probed, but
 * their sites stay text the kernel regards as its own to rewrite; their
 * table, .altinstructions, is init data, so their places are kept in a
 * table of ours made at boot.  A module's are applied before its text can
 * be probed and are not kept: its sites are not refused.
 *
 * Writing the jumps (arch_optimize_kprobe_points()), once the optimizer
 * made sure nobody is inside the regions: every point's int3 is already in
 * place, and text_poke_queue() + text_poke_finish() replace it and the
 * following four bytes by the jump, for the whole batch with the
 * text_poke_bp() protocol; a CPU that hits one meanwhile is sent to the
 * detour by poke_int3_handler().
 *
 * Removing them (arch_unoptimize_kprobe_points()), for a batch:
 *   1. write the int3 over each jump's first byte, text_poke_sync(): from
 *      now on a CPU that reaches a point traps, and kprobe_int3_handler()
 *      still sends it to the detour after the handlers;
 *   2. write back the four bytes behind each int3, text_poke_sync(): the
 *      regions are whole again behind their int3s.
 * Tasks still in a detour leave it by its jump back; it is freed with the
 * point, after an RCU-tasks grace period.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bug.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call.h>
#include <asm/alternative.h>
#include <asm/insn.h>
#include <asm/sections.h>
#include <asm/text-patching.h>
#include <asm/unaligned.h>

#include "common.h"

/* What kprobe_opt_callback() reads of a detour, in front of its code */
struct x86_detour_head {
	unsigned long ip;
	struct kprobe_point *kpp;
};

/* Where the jump lands in a detour, and where the relocated region sits */
#define X86_DETOUR_ENTRY	sizeof(struct x86_detour_head)
#define X86_DETOUR_BODY		(X86_DETOUR_ENTRY + CALL_INSN_SIZE)

/**
 * arch_kprobe_opt_region_len() - how many bytes a jump at @kpp replaces
 * @kpp: a new point, not served by ftrace
 *
 * Context: kprobe_mutex held.
 * Return: the length of the region, or -EILSEQ if it cannot be decoded.
 */
int arch_kprobe_opt_region_len(struct kprobe_point *kpp)
{
	unsigned long addr = (unsigned long)kpp->addr;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	int len = 0;

	while (len < JMP32_INSN_SIZE) {
		if (x86_read_original_insn(buf, addr + len) ||
		    insn_decode_kernel(&insn, buf) < 0)
			return -EILSEQ;
		len += insn.length;
	}
	return len;
}

/*
 * Does a jmp to @target stand for an indirect jump?  The kernel's
 * retpoline and ITS thunks do, and so do the ITS thunks made at run time
 * in pages of their own, outside the kernel's and the modules' text (no
 * jump there could be followed anyway).
 */
static bool x86_indirect_thunk(unsigned long target)
{
	if (IS_ENABLED(CONFIG_RETPOLINE) &&
	    target - (unsigned long)__x86_indirect_thunk_array <
	    16 * sizeof(__x86_indirect_thunk_array[0]))
		return true;
	if (IS_ENABLED(CONFIG_MITIGATION_ITS) &&
	    target - (unsigned long)__x86_indirect_its_thunk_array <
	    16 * sizeof(__x86_indirect_its_thunk_array[0]))
		return true;
	return !kernel_text_address(target);
}

/*
 * Where a relative branch goes, or 0; *@indirect is set for a jump whose
 * targets cannot be known.
 */
static unsigned long x86_branch_target(struct insn *insn, unsigned long at,
				       bool *indirect)
{
	u8 op = insn->opcode.bytes[0];
	unsigned long target = 0;

	*indirect = false;
	switch (op) {
	case 0x70 ... 0x7f:			/* jcc rel8 */
	case 0xe0 ... 0xe3:			/* loop, jrcxz */
	case 0xe8:				/* call rel32 */
	case 0xe9:				/* jmp rel32 */
	case 0xeb:				/* jmp rel8 */
		target = at + insn->length + insn->immediate.value;
		break;
	case 0x0f:
		if (insn->opcode.bytes[1] >= 0x80 && insn->opcode.bytes[1] <= 0x8f)
			target = at + insn->length + insn->immediate.value;
		break;
	case 0xea:				/* far jmp */
		*indirect = true;
		break;
	case 0xff:				/* jmp *r/m, jmp far *m */
		if (X86_MODRM_REG(insn->modrm.bytes[0]) == 4 ||
		    X86_MODRM_REG(insn->modrm.bytes[0]) == 5)
			*indirect = true;
		break;
	}
	if (op == 0xe9 && x86_indirect_thunk(target))
		*indirect = true;
	return target;
}

/*
 * Decode [@start, @end) and look for a way into the inside of the region
 * [@rstart, @rend) other than its first byte.
 */
static int x86_opt_check_branches(unsigned long start, unsigned long end,
				  unsigned long rstart, unsigned long rend)
{
	unsigned long cur, target;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	bool indirect;

	for (cur = start; cur < end; cur += insn.length) {
		if (x86_read_original_insn(buf, cur) ||
		    insn_decode_kernel(&insn, buf) < 0)
			return KPROBE_OPT_JUMP_INTO;	/* cannot tell */
		target = x86_branch_target(&insn, cur, &indirect);
		if (indirect)
			return KPROBE_OPT_INDIRECT_JUMP;
		if (target > rstart && target < rend)
			return KPROBE_OPT_JUMP_INTO;
		/* An indirect branch may land on an ENDBR */
		if (cur > rstart && cur < rend &&
		    is_endbr(get_unaligned((u32 *)buf)))
			return KPROBE_OPT_JUMP_INTO;
	}
	return 0;
}

/* A function's cold part, which GCC reaches by jumps both ways */
static unsigned long x86_cold_part(unsigned long func, unsigned long *size)
{
	char name[KSYM_NAME_LEN], *modname;
	unsigned long cold = 0, off;

	if (!kallsyms_lookup(func, NULL, NULL, &modname, name))
		return 0;
	if (!modname) {
		cold = kprobe_cold_part(func);
	} else if (IS_ENABLED(CONFIG_MODULES)) {
		char full[MODULE_NAME_LEN + KSYM_NAME_LEN + 8];

		snprintf(full, sizeof(full), "%s:%s.cold", modname, name);
		cold = module_kallsyms_lookup_name(full);
	}
	if (!cold || !kallsyms_lookup_size_offset(cold, size, &off) || off)
		return 0;
	return cold;
}

/* Does an exception-table fixup land inside [@rstart, @rend)? */
static bool x86_fixup_lands_in(const struct exception_table_entry *e,
			       unsigned int n, unsigned long rstart,
			       unsigned long rend)
{
	unsigned long fixup;

	for (; n; n--, e++) {
		fixup = (unsigned long)&e->fixup + e->fixup;
		if (fixup > rstart && fixup < rend)
			return true;
	}
	return false;
}

static bool x86_opt_fixup_inside(unsigned long rstart, unsigned long rend)
{
	struct module *mod;
	bool ret;

	if (core_kernel_text(rstart))
		return x86_fixup_lands_in(__start___ex_table,
					  __stop___ex_table - __start___ex_table,
					  rstart, rend);
	preempt_disable();
	mod = __module_text_address(rstart);
	ret = mod && x86_fixup_lands_in(mod->extable, mod->num_exentries,
					rstart, rend);
	preempt_enable();
	return ret;
}

/* An alternatives site of the kernel: where, and how many bytes */
struct x86_alt_site {
	unsigned long addr;
	unsigned long len;
};

/* Sorted by address; NULL until x86_opt_alt_sites_init() (or no memory) */
static struct x86_alt_site *x86_alt_sites;
static unsigned int x86_nr_alt_sites;

static int x86_alt_site_cmp(const void *a, const void *b)
{
	const struct x86_alt_site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int __init x86_opt_alt_sites_init(void)
{
	unsigned int n = __alt_instructions_end - __alt_instructions, i;
	struct x86_alt_site *sites;
	struct alt_instr *a;

	sites = kvmalloc_array(n, sizeof(*sites), GFP_KERNEL);
	if (!sites)
		return -ENOMEM;
	for (i = 0, a = __alt_instructions; i < n; i++, a++) {
		sites[i].addr = (unsigned long)&a->instr_offset + a->instr_offset;
		sites[i].len = a->instrlen;
	}
	sort(sites, n, sizeof(*sites), x86_alt_site_cmp, NULL);
	x86_nr_alt_sites = n;
	x86_alt_sites = sites;
	return 0;
}
early_initcall(x86_opt_alt_sites_init);

/* Does [@rstart, @rend) overlap an alternatives site of the kernel? */
static bool x86_opt_alt_site(unsigned long rstart, unsigned long rend)
{
	unsigned int lo = 0, hi = x86_nr_alt_sites, mid;

	if (!core_kernel_text(rstart))
		return false;
	if (!x86_alt_sites)
		return true;		/* cannot tell */
	/* The first site that could reach @rstart (instrlen is a u8) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x86_alt_sites[mid].addr + U8_MAX <= rstart)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x86_nr_alt_sites && x86_alt_sites[lo].addr < rend; lo++) {
		if (x86_alt_sites[lo].addr + x86_alt_sites[lo].len > rstart)
			return true;
	}
	return false;
}

/* Is an instruction in [@rstart, @rend) the ud2 of a BUG() or WARN()? */
static bool x86_opt_bug_site(unsigned long rstart, unsigned long rend)
{
	u8 buf[MAX_INSN_SIZE];
	unsigned long cur;
	struct insn insn;

	if (!IS_ENABLED(CONFIG_GENERIC_BUG))
		return false;
	for (cur = rstart; cur < rend; cur += insn.length) {
		/* Undecodable: x86_opt_relocate() refuses it. */
		if (x86_read_original_insn(buf, cur) ||
		    insn_decode_kernel(&insn, buf) < 0)
			return false;
		/* find_bug() is a linear search: only for a ud2 */
		if (insn.opcode.bytes[0] == 0x0f &&
		    insn.opcode.bytes[1] == 0x0b && find_bug(cur))
			return true;
	}
	return false;
}

static bool x86_opt_reserved(unsigned long rstart, unsigned long rend)
{
	bool reserved;

	if (x86_opt_bug_site(rstart, rend) || x86_opt_alt_site(rstart, rend) ||
	    kprobe_jump_label_reserved(rstart, rend - 1) ||
	    static_call_text_reserved((void *)rstart, (void *)rend - 1) ||
	    ftrace_text_reserved((void *)rstart, (void *)rend - 1))
		return true;
	mutex_lock(&text_mutex);
	/* Its end is exclusive, unlike the others' */
	reserved = alternatives_text_reserved((void *)rstart, (void *)rend);
	mutex_unlock(&text_mutex);
	return reserved;
}

/*
 * Copy the region into @detour (at @slot + X86_DETOUR_BODY), retargeting
 * what needs it; ends with the jump back.  Returns the bytes used.
 */
static int x86_opt_relocate(u8 *detour, kprobe_opcode_t *slot,
			    struct kprobe_point *kpp)
{
	unsigned long addr = (unsigned long)kpp->addr, cur, target;
	struct arch_specific_insn ai;
	int out = X86_DETOUR_BODY;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	for (cur = addr; cur < addr + kpp->opt_len; cur += insn.length) {
		if (x86_read_original_insn(buf, cur) ||
		    insn_decode_kernel(&insn, buf) < 0 ||
		    x86_classify_insn(&insn, &ai))
			return -KPROBE_OPT_UNRELOCATABLE;
		if (search_exception_tables(cur))
			return -KPROBE_OPT_EXTABLE;
		if (out + MAX_INSN_SIZE + JMP32_INSN_SIZE > KPROBE_INSN_SLOT_SIZE)
			return -KPROBE_OPT_UNRELOCATABLE;
		switch (ai.replay) {
		case X86_REPLAY_STEP:
		case X86_REPLAY_STEP_PUSHF:
		case X86_REPLAY_SKIP:
		case X86_REPLAY_PUSH:
		case X86_REPLAY_POP:
		case X86_REPLAY_MOV64:
		case X86_REPLAY_MOV32:
			if (x86_copy_insn(detour + out, buf, &insn,
					  (kprobe_opcode_t *)cur, slot + out))
				return -KPROBE_OPT_NO_DETOUR;
			out += insn.length;
			break;
		case X86_REPLAY_JMP:
		case X86_REPLAY_JCC:
			target = cur + insn.length + ai.disp;
			if (ai.replay == X86_REPLAY_JCC) {
				detour[out++] = 0x0f;
				detour[out++] = 0x80 | ai.cc;
				put_unaligned((s32)(target - (unsigned long)(slot + out + 4)),
					      (s32 *)(detour + out));
				out += 4;
			} else {
				__text_gen_insn(detour + out, JMP32_INSN_OPCODE,
						slot + out, (void *)target,
						JMP32_INSN_SIZE);
				out += JMP32_INSN_SIZE;
			}
			break;
		default:
			/* calls, returns, emulated and flag-changing instructions */
			return -KPROBE_OPT_UNRELOCATABLE;
		}
	}
	__text_gen_insn(detour + out, JMP32_INSN_OPCODE, slot + out,
			(void *)(addr + kpp->opt_len), JMP32_INSN_SIZE);
	return out + JMP32_INSN_SIZE;
}

/**
 * arch_prepare_optimized_kprobe_point() - check a region, build its detour
 * @kpp: a queued point, armed with its int3
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0, or the &enum kprobe_opt_refusal that stops it.
 */
int arch_prepare_optimized_kprobe_point(struct kprobe_point *kpp)
{
	unsigned long rstart = (unsigned long)kpp->addr;
	unsigned long rend = rstart + kpp->opt_len;
	unsigned long size, off, func, cold, cold_size;
	struct x86_detour_head head = {
		.ip = rstart + INT3_INSN_SIZE,
		.kpp = kpp,
	};
	u8 detour[KPROBE_INSN_SLOT_SIZE];
	kprobe_opcode_t *slot;
	int ret;

	if (kpp->opt.detour)
		return 0;
	if (!kallsyms_lookup_size_offset(rstart, &size, &off) ||
	    rend > rstart - off + size)
		return KPROBE_OPT_CROSSES_FUNCTION;
	func = rstart - off;
	if (x86_opt_reserved(rstart, rend))
		return KPROBE_OPT_RESERVED;
	if (x86_opt_fixup_inside(rstart, rend))
		return KPROBE_OPT_EXTABLE;
	ret = x86_opt_check_branches(func, func + size, rstart, rend);
	if (ret)
		return ret;
	cold = x86_cold_part(func, &cold_size);
	if (cold) {
		ret = x86_opt_check_branches(cold, cold + cold_size, rstart, rend);
		if (ret)
			return ret;
	}

	slot = get_insn_slot();
	if (!slot)
		return KPROBE_OPT_NO_DETOUR;
	memset(detour, INT3_INSN_OPCODE, sizeof(detour));
	ret = x86_opt_relocate(detour, slot, kpp);
	if (ret < 0) {
		free_insn_slot(slot);
		return -ret;
	}
	memcpy(detour, &head, sizeof(head));
	__text_gen_insn(detour + X86_DETOUR_ENTRY, CALL_INSN_OPCODE,
			(u8 *)slot + X86_DETOUR_ENTRY, kprobe_opt_entry,
			CALL_INSN_SIZE);
	x86_slot_write(slot, detour, ret);

	/* What the jump will cover; the int3 covers the first byte. */
	if (x86_read_text(kpp->opt.orig, rstart, JMP32_INSN_SIZE)) {
		x86_slot_free(slot);
		return KPROBE_OPT_UNRELOCATABLE;
	}
	kpp->opt.detour = slot;
	return 0;
}

/**
 * arch_remove_optimized_kprobe_point() - free a point's detour
 * @kpp: a point no task can be in the detour of any more
 *
 * Context: process context, may sleep.
 */
void arch_remove_optimized_kprobe_point(struct kprobe_point *kpp)
{
	x86_slot_free(kpp->opt.detour);
	kpp->opt.detour = NULL;
}

/**
 * arch_optimize_kprobe_points() - write the jumps of a batch
 * @points: DIVERTING points linked by opt_node, nobody inside their regions
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_optimize_kprobe_points(struct list_head *points)
{
	u8 jmp[JMP32_INSN_SIZE];
	struct kprobe_point *kpp;

	mutex_lock(&text_mutex);
	list_for_each_entry(kpp, points, opt_node) {
		__text_gen_insn(jmp, JMP32_INSN_OPCODE, kpp->addr,
				(u8 *)kpp->opt.detour + X86_DETOUR_ENTRY,
				JMP32_INSN_SIZE);
		text_poke_queue(kpp->addr, jmp, JMP32_INSN_SIZE, NULL);
	}
	text_poke_finish();
	mutex_unlock(&text_mutex);
}

/**
 * arch_unoptimize_kprobe_points() - replace the jumps of a batch by int3s
 * @points: OPTIMIZED points linked by opt_node
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_unoptimize_kprobe_points(struct list_head *points)
{
	static const u8 int3 = INT3_INSN_OPCODE, jmp = JMP32_INSN_OPCODE;
	struct kprobe_point *kpp;

	/* Step 1, behind the changes queued before */
	list_for_each_entry(kpp, points, opt_node)
		x86_queue_poke(kpp->addr, &jmp, &int3, INT3_INSN_SIZE);
	x86_write_pokes();
	/* Step 2: the jump's displacement is still in the text */
	list_for_each_entry(kpp, points, opt_node)
		x86_queue_poke(kpp->addr + INT3_INSN_SIZE,
			       kpp->addr + INT3_INSN_SIZE,
			       kpp->opt.orig + INT3_INSN_SIZE,
			       JMP32_INSN_SIZE - INT3_INSN_SIZE);
	x86_write_pokes();
}

/**
 * x86_opt_resume_addr() - where a breakpoint hit resumes when diverted
 * @kpp: a point whose hits kprobe_opt_diverts()
 *
 * Context: hit path.
 * Return: the relocated region in the detour.
 */
unsigned long x86_opt_resume_addr(struct kprobe_point *kpp)
{
	return (unsigned long)kpp->opt.detour + X86_DETOUR_BODY;
}

NOKPROBE_SYMBOL(x86_opt_resume_addr);

/**
 * kprobe_opt_callback() - the C half of kprobe_opt_entry
 * @regs: the registers kprobe_opt_entry saved; just above them is the
 *	return address of its call: the detour's relocated region, which
 *	the point's address precedes
 *
 * kprobe_opt_entry masked interrupts, as the breakpoint exception does,
 * which also gives kprobe_opt_hit() the preemption-disabled context it
 * needs.  Nothing here reads @regs after the handlers: kprobe_opt_entry
 * checks regs->sp itself, so that no callee-saved register has to keep
 * @regs across their call.
 *
 * Context: a detour, any context the probed code runs in.
 * Return: non-zero if a pre_handler redirected: kprobe_opt_entry then
 * resumes through kprobe_opt_resume_elsewhere().
 */
__visible int kprobe_opt_callback(struct pt_regs *regs)
{
	unsigned long *ret_slot = (unsigned long *)(regs + 1);
	const struct x86_detour_head *head =
		(const void *)(*ret_slot - X86_DETOUR_BODY);
	/* kprobe_opt_entry masked interrupts: lockdep learns it here. */
	bool lockdep_turned_off = kprobe_lockdep_irqs_off();
	int redirected;

	/* As a breakpoint hit at the point would show it, as regs->sp is */
	regs->ip = head->ip;
	redirected = kprobe_opt_hit(head->kpp, regs);
	/* popfq gives the flags back, as the return from an exception */
	kprobe_lockdep_irqs_restore(lockdep_turned_off);
	return redirected;
}

NOKPROBE_SYMBOL(kprobe_opt_callback);

/**
 * kprobe_opt_resume_elsewhere() - an optimized hit does not go on in the
 *	detour
 * @regs: as for kprobe_opt_callback(), after the handlers
 * @redirected: what kprobe_opt_callback() returned
 *
 * A pre_handler moved regs->ip (and asked to resume there) or regs->sp:
 * kprobe_opt_entry returns to *regs->sp, so put the address to resume at
 * just below the stack pointer to resume with.  The probed code's own
 * stack pointer is just above the return address: the room below it is
 * the detour's, not the function's.  A pre_handler that redirects may
 * still have pushed one word, as one that emulates a call does: it went
 * over the return address, read no more, and the address to resume at
 * goes over regs->ss, which is not restored.  A second word would be
 * over the saved registers.
 *
 * Context: kprobe_opt_entry, interrupts masked.
 */
__visible void kprobe_opt_resume_elsewhere(struct pt_regs *regs,
					   int redirected)
{
	unsigned long *ret_slot = (unsigned long *)(regs + 1);
	unsigned long sp = (unsigned long)(ret_slot + 1);
	unsigned long resume = redirected ? regs->ip : *ret_slot;
	/* Interrupts are still masked: tell lockdep again, for the WARN. */
	bool lockdep_turned_off = kprobe_lockdep_irqs_off();

	if (WARN_ON_ONCE(regs->sp < sp - (redirected ? sizeof(long) : 0))) {
		/* Not there: the return address still holds the region. */
		regs->sp = sp - sizeof(long);
	} else {
		regs->sp -= sizeof(long);
		*(unsigned long *)regs->sp = resume;
	}
	kprobe_lockdep_irqs_restore(lockdep_turned_off);
}

NOKPROBE_SYMBOL(kprobe_opt_resume_elsewhere);
