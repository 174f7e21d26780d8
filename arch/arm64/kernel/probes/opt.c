// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 jump optimization: detours, the branches to them, and a hit
 * through them.
 *
 * The region of a point is the probed instruction alone: a B is one
 * instruction, so nothing but the point itself can lead into what it
 * replaces.  The B goes to the point's detour, KPROBE_OPT_DETOUR_SIZE
 * bytes within its +/-128 MiB reach:
 *
 *	 0  .quad  the probe point
 *	 8  .quad  the probed address
 *	16  stp    x0, x1, [sp, #-PT_REGS_SIZE]!	<- the point's B
 *	20  stp    x29, x30, [sp, #S_FP]
 *	24  bl     kprobe_opt_entry			saves pt_regs, runs the
 *	28  ldr    x30, [sp, #S_LR]			pre_handlers (opt_entry.S)
 *	32  add    sp, sp, #PT_REGS_SIZE
 *	36  the copy of the probed instruction
 *	40  b      the next instruction
 *	44  UDF #0 to the end
 *
 * The replay of the probed instruction, as decode-insn.c classifies it:
 *	stepped on the BRK path (INSN_GOOD)
 *			copied to 36 and followed by a B to the next one;
 *			kprobe_opt_entry returns into the detour (its
 *			step 4), which runs them
 *	simulated on the BRK path as doing nothing (simulate_nop(): NOP,
 *	BTI without kernel BTI, PRFM literal)
 *			only the B back at 36; kprobe_opt_entry returns
 *			into the detour
 *	other simulated ones (INSN_GOOD_NO_SLOT: the branches, ADR, ADRP,
 *	the literal loads, which read the PC)
 *			nothing in the detour: kprobe_opt_callback() runs
 *			the point's simulate-insn.c handler on the pt_regs,
 *			pc the probed address, as the BRK path does, and
 *			kprobe_opt_entry resumes at the pc it leaves, with
 *			every register, sp and pstate from the pt_regs (its
 *			step 4')
 * A point is refused (enum kprobe_opt_refusal) when its instruction has an
 * exception-table entry, may be a landing pad of an indirect branch under
 * kernel BTI, or has no detour in reach: it then stays a BRK probe.
 *
 * Detours of kernel text come from kprobe_opt_detours, room for
 * KPROBE_OPT_IMAGE_DETOURS of them inside the kernel image (opt_entry.S);
 * detours of module text from kprobes' code pages (module_alloc(), see
 * kernel/kprobes_slots.c), else from the image's room if that is in
 * reach.  A detour is written before anything can branch to it, word by
 * word with aarch64_insn_write() (through the fixmap), and its range is
 * cleaned to the point of unification.
 *
 * A hit through a detour sees a struct pt_regs as a BRK hit does: the
 * registers, sp, pc (the probed address) and pstate (EL1h, or EL2h where
 * the kernel runs at EL2 with VHE, and NZCV, DAIF, PAN, SSBS, TCO and DIT
 * as the probed code had them, the last four where the system has the
 * feature; with software PAN the emulated PAN bit, and user memory out of
 * reach for the handlers, see sw_pan.h), pmr_save with pseudo-NMIs, and
 * the frame record of an exception.  The pre_handlers run with interrupts
 * masked (raw, lockdep told as by an exception entry), as on the BRK
 * path, and so with preemption off; unlike there, debug exceptions and
 * SErrors stay unmasked, and with hardware PAN, PAN stays as the probed
 * code had it (setting it and giving it back would cost every hit).
 * Handler changes to x0-x30 and NZCV are honoured, those to pmr_save
 * never; a non-zero return with a new pc resumes there, with every
 * register, sp and pstate from the pt_regs (kprobe_opt_entry, step 4'),
 * and so does a simulated instruction.
 *
 * Text changes.  The architecture lets BRK and B be swapped in place while
 * other CPUs execute them (both are in the set of instructions the ARM ARM
 * allows for concurrent modification and execution); every other change of
 * a probed instruction goes through stop_machine() (aarch64_insn_patch_text(),
 * the BRK arming in kprobes.c).  In the optimizer's steps
 * (kernel/kprobes_optimizer.c):
 *
 *   1. arch_prepare_optimized_kprobe_point(): the detour is written and
 *      cleaned to the PoU, where no CPU can execute it yet; then the
 *      point becomes DIVERTING and BRK hits on it resume in its copy of
 *      the instruction (a simulated one the BRK path simulates itself).
 *   2. The optimizer's grace periods drain the point: no CPU or task is
 *      left in the copy of the instruction the BRK path used meanwhile.
 *   3. arch_optimize_kprobe_points(): first kick_all_cpus_sync(), an IPI
 *      to every other CPU: each takes the exception, a context
 *      synchronization event, so none holds instructions of the detours'
 *      memory fetched before step 1 cleaned it (the grace periods give
 *      no such guarantee: a context switch inside the kernel is not
 *      one).  As flush_icache_range() does for new code.  Then BRK -> B,
 *      written with aarch64_insn_patch_text_nosync(), which cleans and
 *      invalidates the word to the PoU (broadcast); a CPU that still
 *      fetches the BRK traps and is sent to the detour.  Then an ISB here
 *      and kick_all_cpus_sync() again: every CPU has had a context
 *      synchronization event and fetches the B from then on.
 *   4. arch_unoptimize_kprobe_points(): B -> BRK the same way, then the
 *      ISB and kick_all_cpus_sync(), so that when it returns no CPU can
 *      take the B any more; a CPU already past it finishes in the detour
 *      (a CPU with interrupts masked holds the IPI back until then).  The
 *      core may then put the original instruction back, under
 *      stop_machine().
 *   5. The detour is freed with the point, after an RCU-tasks grace
 *      period: no task is left in it, even one preempted there.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bitmap.h>
#include <linux/cacheflush.h>
#include <linux/cpufeature.h>
#include <linux/extable.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/alternative.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/ptrace.h>

#include "decode-insn.h"
#include "simulate-insn.h"
#include "sw_pan.h"

asmlinkage int kprobe_opt_callback(struct kprobe_point *kpp,
				   struct pt_regs *regs);

#define DETOUR_WORDS		(KPROBE_OPT_DETOUR_SIZE / AARCH64_INSN_SIZE)
#define DETOUR_WORD(off)	((off) / AARCH64_INSN_SIZE)
/* The nop of kprobe_opt_template that becomes the call */
#define DETOUR_CALL		(ARM64_DETOUR_RET - AARCH64_INSN_SIZE)
#define DETOURS_PER_PAGE	(PAGE_SIZE / KPROBE_OPT_DETOUR_SIZE)

/**
 * struct arm64_detour_area - memory that detours are taken from
 * @list: entry in arm64_detour_pages (arm64_detour_mutex)
 * @base: the first detour (immutable)
 * @nr: how many detours fit (immutable)
 * @nused: how many are taken (arm64_detour_mutex)
 * @used: which are taken (arm64_detour_mutex)
 */
struct arm64_detour_area {
	struct list_head list;
	u8 *base;
	unsigned int nr;
	unsigned int nused;
	unsigned long *used;
};

/**
 * struct arm64_detour_page - a page of detours for module text
 * @area: its area
 * @code: the page (immutable)
 * @bits: the bitmap @area.used points at
 */
struct arm64_detour_page {
	struct arm64_detour_area area;
	struct kprobe_code_page *code;
	DECLARE_BITMAP(bits, DETOURS_PER_PAGE);
};

static DEFINE_MUTEX(arm64_detour_mutex);
static DECLARE_BITMAP(arm64_image_used, KPROBE_OPT_IMAGE_DETOURS);
static struct arm64_detour_area arm64_image_area = {
	.base = kprobe_opt_detours,
	.nr = KPROBE_OPT_IMAGE_DETOURS,
	.used = arm64_image_used,
};

/* Pages of detours for module text (arm64_detour_mutex) */
static LIST_HEAD(arm64_detour_pages);

/* Can a B or BL at @from reach @to? */
static bool arm64_in_reach(unsigned long from, unsigned long to)
{
	long off = to - from;

	return off >= -SZ_128M && off < SZ_128M;
}

/* Can the detour at @d serve a point at @addr: the B there, its call? */
static bool arm64_detour_in_reach(u8 *d, unsigned long addr)
{
	unsigned long code = (unsigned long)d + ARM64_DETOUR_CODE;

	return arm64_in_reach(addr, code) &&
	       arm64_in_reach((unsigned long)d + DETOUR_CALL,
			      (unsigned long)kprobe_opt_entry);
}

/* A free detour of @area for @addr, or NULL; reach is an interval. */
static u8 *arm64_detour_take(struct arm64_detour_area *area,
			     unsigned long addr)
{
	unsigned int idx;

	lockdep_assert_held(&arm64_detour_mutex);
	if (area->nused == area->nr ||
	    !arm64_detour_in_reach(area->base, addr) ||
	    !arm64_detour_in_reach(area->base + (area->nr - 1) *
				   KPROBE_OPT_DETOUR_SIZE, addr))
		return NULL;
	idx = find_first_zero_bit(area->used, area->nr);
	__set_bit(idx, area->used);
	area->nused++;
	return area->base + idx * KPROBE_OPT_DETOUR_SIZE;
}

/*
 * A new page of detours, full of UDFs, in kallsyms and for perf as
 * kprobe_optinsn_page
 */
static struct arm64_detour_area *arm64_detour_page_new(void)
{
	struct arm64_detour_page *page;

	lockdep_assert_held(&arm64_detour_mutex);
	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page)
		return NULL;
	page->code = kprobe_code_page_alloc("kprobe_optinsn_page",
					    KPROBE_INSN_PAGE_FILL);
	if (!page->code) {
		kfree(page);
		return NULL;
	}
	page->area.base = kprobe_code_page_addr(page->code);
	page->area.nr = DETOURS_PER_PAGE;
	page->area.used = page->bits;
	list_add_tail(&page->area.list, &arm64_detour_pages);
	return &page->area;
}

static void arm64_detour_page_free(struct arm64_detour_area *area)
{
	struct arm64_detour_page *page =
		container_of(area, struct arm64_detour_page, area);

	lockdep_assert_held(&arm64_detour_mutex);
	list_del(&area->list);
	kprobe_code_page_free(page->code);
	kfree(page);
}

/*
 * A detour for a point at @addr: kernel text from the image's room,
 * module text from a module page in reach, or from the image's room.
 */
static u8 *arm64_detour_alloc(unsigned long addr)
{
	struct arm64_detour_area *area;
	u8 *d = NULL;

	mutex_lock(&arm64_detour_mutex);
	if (!core_kernel_text(addr)) {
		list_for_each_entry(area, &arm64_detour_pages, list) {
			d = arm64_detour_take(area, addr);
			if (d)
				goto out;
		}
		area = arm64_detour_page_new();
		if (area) {
			d = arm64_detour_take(area, addr);
			if (d)
				goto out;
			arm64_detour_page_free(area);
		}
	}
	d = arm64_detour_take(&arm64_image_area, addr);
out:
	mutex_unlock(&arm64_detour_mutex);
	return d;
}

static bool arm64_detour_in(struct arm64_detour_area *area, u8 *d)
{
	return d >= area->base &&
	       d < area->base + area->nr * KPROBE_OPT_DETOUR_SIZE;
}

static void arm64_detour_free(u8 *d)
{
	struct arm64_detour_area *area;
	unsigned int idx;

	mutex_lock(&arm64_detour_mutex);
	if (arm64_detour_in(&arm64_image_area, d)) {
		area = &arm64_image_area;
	} else {
		list_for_each_entry(area, &arm64_detour_pages, list) {
			if (arm64_detour_in(area, d))
				goto found;
		}
		WARN_ONCE(1, "kprobes: freeing unknown detour %p\n", d);
		goto out;
	}
found:
	idx = (d - area->base) / KPROBE_OPT_DETOUR_SIZE;
	if (WARN_ON_ONCE(!__test_and_clear_bit(idx, area->used)))
		goto out;
	if (!--area->nused && area != &arm64_image_area)
		arm64_detour_page_free(area);
out:
	mutex_unlock(&arm64_detour_mutex);
}

/* ---------------------------------------------------------------------- */
/* Building a detour                                                       */
/* ---------------------------------------------------------------------- */

/**
 * struct arm64_detour_buf - a detour being built
 * @at: where it will be
 * @w: its words; @w[i] will be at @at + 4 * i
 * @n: the next word of the replay
 */
struct arm64_detour_buf {
	unsigned long at;
	u32 w[DETOUR_WORDS];
	unsigned int n;
};

static unsigned long arm64_buf_pc(struct arm64_detour_buf *b)
{
	return b->at + b->n * AARCH64_INSN_SIZE;
}

static void arm64_emit(struct arm64_detour_buf *b, u32 insn)
{
	b->w[b->n++] = insn;
}

/* Store @val at byte @off as data, whatever the kernel's endianness. */
static void arm64_put_quad(struct arm64_detour_buf *b, unsigned int off,
			   u64 val)
{
	__le32 raw[2];

	memcpy(raw, &val, sizeof(val));
	/* aarch64_insn_write() stores each word little-endian */
	b->w[DETOUR_WORD(off)] = le32_to_cpu(raw[0]);
	b->w[DETOUR_WORD(off) + 1] = le32_to_cpu(raw[1]);
}

/* B (or BL) to @target; false when out of reach. */
static bool arm64_emit_branch(struct arm64_detour_buf *b, unsigned long target,
			      enum aarch64_insn_branch_type type)
{
	unsigned long pc = arm64_buf_pc(b);

	if (!arm64_in_reach(pc, target))
		return false;
	arm64_emit(b, aarch64_insn_gen_branch_imm(pc, target, type));
	return true;
}

/* Does the probed instruction do nothing?  Then the detour only goes back. */
static bool arm64_replay_is_nop(struct kprobe_point *kpp)
{
	return kpp->ainsn.api.handler == simulate_nop;
}

/*
 * The replay of the probed instruction, at ARM64_DETOUR_REPLAY (see the
 * table at the top): a copy and a B back, a B back alone for one that does
 * nothing, or nothing for one kprobe_opt_callback() simulates.  Returns 0
 * or a refusal.
 */
static int arm64_build_replay(struct arm64_detour_buf *b,
			      struct kprobe_point *kpp)
{
	unsigned long next = (unsigned long)kpp->addr + AARCH64_INSN_SIZE;

	if (!kpp->ainsn.api.handler)
		arm64_emit(b, kpp->opcode);
	else if (!arm64_replay_is_nop(kpp))
		return 0;	/* kprobe_opt_callback() simulates it */
	return arm64_emit_branch(b, next, AARCH64_INSN_BRANCH_NOLINK) ?
	       0 : KPROBE_OPT_UNRELOCATABLE;
}

/*
 * Under kernel BTI, an instruction an indirect branch may land on must
 * stay where it is: a B in its place is no landing pad.
 */
static bool arm64_landing_pad(u32 insn)
{
	u32 op = insn & AARCH64_INSN_HINT_OP_MASK;

	if (!IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) || !aarch64_insn_is_hint(insn))
		return false;
	return op == AARCH64_INSN_HINT_BTI || op == AARCH64_INSN_HINT_BTIC ||
	       op == AARCH64_INSN_HINT_BTIJ || op == AARCH64_INSN_HINT_BTIJC ||
	       op == AARCH64_INSN_HINT_PACIASP || op == AARCH64_INSN_HINT_PACIBSP;
}

/* Fill in a whole detour for @kpp at @b->at. */
static int arm64_build_detour(struct arm64_detour_buf *b,
			      struct kprobe_point *kpp)
{
	const __le32 *template = kprobe_opt_template;
	unsigned int i;

	arm64_put_quad(b, ARM64_DETOUR_POINT, (unsigned long)kpp);
	arm64_put_quad(b, ARM64_DETOUR_ADDR, (unsigned long)kpp->addr);
	/* Instructions are little-endian, whatever the data are */
	for (i = DETOUR_WORD(ARM64_DETOUR_CODE);
	     i < DETOUR_WORD(ARM64_DETOUR_REPLAY); i++)
		b->w[i] = le32_to_cpu(*template++);
	b->n = DETOUR_WORD(DETOUR_CALL);
	if (WARN_ON_ONCE(b->w[b->n] != aarch64_insn_gen_nop()) ||
	    !arm64_emit_branch(b, (unsigned long)kprobe_opt_entry,
			       AARCH64_INSN_BRANCH_LINK))
		return KPROBE_OPT_NO_DETOUR;
	b->n = DETOUR_WORD(ARM64_DETOUR_REPLAY);
	return arm64_build_replay(b, kpp);
}

/* Write @b where it goes; nobody executes that memory yet. */
static int arm64_write_detour(struct arm64_detour_buf *b)
{
	unsigned int i;
	int ret;

	for (i = 0; i < DETOUR_WORDS; i++) {
		ret = aarch64_insn_write((void *)b->at + i * AARCH64_INSN_SIZE,
					 b->w[i]);
		if (ret)
			return ret;
	}
	caches_clean_inval_pou(b->at, b->at + KPROBE_OPT_DETOUR_SIZE);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The interface of kernel/kprobes_optimizer.c                             */
/* ---------------------------------------------------------------------- */

/**
 * arch_kprobe_opt_region_len() - how many bytes a jump at @kpp replaces
 * @kpp: a new point
 *
 * Context: kprobe_mutex held.
 * Return: AARCH64_INSN_SIZE: the B replaces the probed instruction.
 */
int arch_kprobe_opt_region_len(struct kprobe_point *kpp)
{
	return AARCH64_INSN_SIZE;
}

/**
 * arch_prepare_optimized_kprobe_point() - check a point, build its detour
 * @kpp: a queued point, armed with its BRK
 *
 * Step 1 at the top of this file.
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: 0, or the &enum kprobe_opt_refusal that stops it.
 */
int arch_prepare_optimized_kprobe_point(struct kprobe_point *kpp)
{
	unsigned long addr = (unsigned long)kpp->addr;
	struct arm64_detour_buf b = {};
	u8 *d;
	int ret;

	if (kpp->opt.detour)
		return 0;
	if (search_exception_tables(addr))
		return KPROBE_OPT_EXTABLE;
	if (arm64_landing_pad(kpp->opcode))
		return KPROBE_OPT_UNRELOCATABLE;
	d = arm64_detour_alloc(addr);
	if (!d)
		return KPROBE_OPT_NO_DETOUR;
	b.at = (unsigned long)d;
	ret = arm64_build_detour(&b, kpp);
	if (!ret && arm64_write_detour(&b))
		ret = KPROBE_OPT_NO_DETOUR;
	if (ret) {
		arm64_detour_free(d);
		return ret;
	}
	if (!arm64_replay_is_nop(kpp))
		kpp->opt.simulate = kpp->ainsn.api.handler;
	kpp->opt.detour = (kprobe_opcode_t *)d;
	/* Pairs with arm64_opt_resume_addr(): the detour, then DIVERTING */
	smp_wmb();
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
	if (!kpp->opt.detour)
		return;
	arm64_detour_free((u8 *)kpp->opt.detour);
	kpp->opt.detour = NULL;
	kpp->opt.simulate = NULL;
}

/*
 * A context synchronization event on every CPU: an ISB here, the IPI of
 * kick_all_cpus_sync() on the others.  Without preemption, so that the
 * CPU the ISB ran on is the one the IPIs skip.
 */
static void arm64_sync_all_cpus(void)
{
	preempt_disable();
	isb();
	kick_all_cpus_sync();
	preempt_enable();
}

/**
 * arch_optimize_kprobe_points() - replace the BRKs of a batch by B
 * @points: DIVERTING points linked by opt_node
 *
 * Step 3 at the top of this file.
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_optimize_kprobe_points(struct list_head *points)
{
	struct kprobe_point *kpp;
	unsigned long code;
	u32 b;

	/* What was queued for these addresses must land first. */
	arch_kprobes_commit();
	/* No CPU may run stale words of the detours once it takes a B. */
	kick_all_cpus_sync();
	list_for_each_entry(kpp, points, opt_node) {
		code = (unsigned long)kpp->opt.detour + ARM64_DETOUR_CODE;
		b = aarch64_insn_gen_branch_imm((unsigned long)kpp->addr, code,
						AARCH64_INSN_BRANCH_NOLINK);
		WARN_ON_ONCE(aarch64_insn_patch_text_nosync(kpp->addr, b));
	}
	arm64_sync_all_cpus();
}

/**
 * arch_unoptimize_kprobe_points() - put the BRKs of a batch back
 * @points: OPTIMIZED points linked by opt_node
 *
 * Step 4 at the top of this file.
 *
 * Context: kprobe_mutex held, may sleep.
 */
void arch_unoptimize_kprobe_points(struct list_head *points)
{
	struct kprobe_point *kpp;

	arch_kprobes_commit();
	list_for_each_entry(kpp, points, opt_node)
		WARN_ON_ONCE(aarch64_insn_patch_text_nosync(kpp->addr,
							    BRK64_OPCODE_KPROBES));
	arm64_sync_all_cpus();
}

/* ---------------------------------------------------------------------- */
/* The hit path                                                            */
/* ---------------------------------------------------------------------- */

/**
 * arm64_opt_resume_addr() - where a BRK hit resumes when diverted
 * @kpp: a point whose hits kprobe_opt_diverts(), with a copy of its
 *	instruction in the detour (one that is not simulated)
 *
 * Context: hit path.
 * Return: the replay in the detour.
 */
unsigned long arm64_opt_resume_addr(struct kprobe_point *kpp)
{
	/* Pairs with arch_prepare_optimized_kprobe_point() */
	smp_rmb();
	return (unsigned long)kpp->opt.detour + ARM64_DETOUR_REPLAY;
}

NOKPROBE_SYMBOL(arm64_opt_resume_addr);

/**
 * kprobe_opt_patch_dit() - let kprobe_opt_entry read PSTATE.DIT
 * @alt: the alternative
 * @origptr: the B over the MRS of DIT in kprobe_opt_entry
 * @updptr: where to write its replacement
 * @nr_inst: the number of instructions, 1
 *
 * The alternative callback for the one PSTATE field that 6.1 has no
 * cpucap for: the hwcap of DIT, like the cpucaps, is set from what every
 * CPU has before the alternatives are applied, and a late CPU without it
 * is refused.  Where the system has DIT, the B becomes a NOP.
 *
 * Context: boot, applying the alternatives.
 */
void __init kprobe_opt_patch_dit(struct alt_instr *alt, __le32 *origptr,
				 __le32 *updptr, int nr_inst)
{
	if (nr_inst == 1 && cpu_have_named_feature(DIT))
		*updptr = cpu_to_le32(aarch64_insn_gen_nop());
}

/**
 * kprobe_opt_callback() - the C half of kprobe_opt_entry
 * @kpp: the point whose detour was entered
 * @regs: the registers kprobe_opt_entry saved
 *
 * kprobe_opt_hit() runs with interrupts masked, as on a BRK hit (lockdep
 * told as by an exception entry), which also gives it the
 * preemption-disabled context it needs.  Unless a pre_handler redirected,
 * an instruction that reads the PC is then simulated on @regs by the
 * handler the BRK path uses, called as that path calls it (one that does
 * nothing is left to the detour's B back).
 *
 * Context: a detour, in any context the probed code runs in.
 * Return: non-zero if a pre_handler redirected or the instruction was
 * simulated: kprobe_opt_entry then resumes at regs->pc with regs->pstate.
 */
asmlinkage int kprobe_opt_callback(struct kprobe_point *kpp,
				   struct pt_regs *regs)
{
	unsigned long flags;
	bool redirect, lockdep_turned_off;

	/* Raw, with lockdep told as on an exception: see kprobes.h */
	raw_local_irq_save(flags);
	lockdep_turned_off = kprobe_lockdep_irqs_off();
	kprobe_sw_pan_enter(regs);
	redirect = kprobe_opt_hit(kpp, regs);
	if (!redirect && kpp->opt.simulate) {
		kpp->opt.simulate(kpp->opcode, (long)kpp->addr, regs);
		redirect = true;
	}
	kprobe_sw_pan_exit(regs);
	kprobe_lockdep_irqs_restore(lockdep_turned_off);
	raw_local_irq_restore(flags);
	if (!redirect)
		return 0;
	/*
	 * ERET goes back to the kernel's own exception level (EL2 where it
	 * runs there, with VHE) with SP_ELx, like a breakpoint exception.
	 */
	regs->pstate &= ~(PSR_MODE_MASK | PSR_MODE32_BIT | PSR_BTYPE_MASK |
			  DBG_SPSR_SS | PSR_IL_BIT);
	regs->pstate |= is_kernel_in_hyp_mode() ? PSR_MODE_EL2h : PSR_MODE_EL1h;
	return 1;
}

NOKPROBE_SYMBOL(kprobe_opt_callback);
