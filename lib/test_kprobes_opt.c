// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kprobes jump optimization (CONFIG_OPTPROBES).
 *
 * The probed functions are written in assembly, so that each case knows
 * which instructions a jump at the probe would replace, and why the
 * optimizer must take it or refuse it.  A hit that goes through an
 * exception runs its handlers in_nmi() on x86 (exc_int3() enters NMI
 * context), a hit through a detour does not: that tells the two apart.
 * Cases that wait for the optimizer call wait_for_kprobe_optimizer();
 * concurrency cases run against a deadline, never a fixed sleep.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/static_call.h>
#include <asm/alternative.h>
#include <asm/asm.h>

/* What the handlers saw; reset before each case */
static struct {
	atomic_t hits;
	atomic_t trapped;	/* hits that came through an exception */
	atomic_t post_hits;
	struct pt_regs regs;	/* as the last hit saw them */
	bool preemptible;
} kpo;

static int kpo_init(struct kunit *test)
{
	memset(&kpo, 0, sizeof(kpo));
	return 0;
}

static int kpo_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpo.hits);
	if (in_nmi())
		atomic_inc(&kpo.trapped);
	kpo.regs = *regs;
	kpo.preemptible = preemptible();
	return 0;
}

static void kpo_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&kpo.post_hits);
}

/* What the functions written in assembly are */
typedef long kpo_asm_fn(long a, long b);

#ifdef CONFIG_X86_64
/*
 * long name(long a, long b): ENDBR, then @insns.  The probes go at
 * KPO_PROBE, the first instruction behind the ENDBR.
 */
#define KPO_ASM(name, insns)						\
	asm(".pushsection .text\n"					\
	    ".type " #name ", @function\n"				\
	    ".balign 16\n"						\
	    #name ":\n"							\
	    "	.byte 0xf3, 0x0f, 0x1e, 0xfa\n"	/* endbr64 */		\
	    insns							\
	    ".size " #name ", .-" #name "\n"				\
	    ".popsection\n")
#define KPO_PROBE	4

#define KPO_RET		"	" ASM_RET

/* A prologue of 8 relocatable bytes: a + 7 */
kpo_asm_fn kpo_target;
KPO_ASM(kpo_target,
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 7(%rdi), %rax\n"
	"	pop %rbp\n"
	KPO_RET);

/* The same shape, for a second point: a + 11 */
kpo_asm_fn kpo_target2;
KPO_ASM(kpo_target2,
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 11(%rdi), %rax\n"
	"	pop %rbp\n"
	KPO_RET);

/* A relative jcc and jmp in the region, retargeted in the detour */
kpo_asm_fn kpo_branches;
KPO_ASM(kpo_branches,
	"	test %rdi, %rdi\n"
	"	jz 1f\n"
	"	jmp 2f\n"
	"1:	mov $100, %rax\n"
	KPO_RET
	"2:	lea 1(%rdi), %rax\n"
	KPO_RET);

/* A RIP-relative load in the region, retargeted in the detour */
static long kpo_data __used = 1000;
kpo_asm_fn kpo_rip_relative;
KPO_ASM(kpo_rip_relative,
	"	mov kpo_data(%rip), %rax\n"
	"	add %rdi, %rax\n"
	KPO_RET);

/*
 * The region would run past the end of the function: a 9-byte nop, then
 * a 3-byte mov that ends the function at 16 bytes, where the next
 * function (16-byte aligned) starts.  Never called; objtool, which would
 * find it running on into the next one, leaves it alone.
 */
#define KPO_SHORT_PROBE	13
kpo_asm_fn kpo_short;
KPO_ASM(kpo_short,
	"	.byte 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n"
	"	mov %rdi, %rax\n");
STACK_FRAME_NON_STANDARD(kpo_short);

/* A call in the region: its return address would be in the detour */
kpo_asm_fn kpo_call;
KPO_ASM(kpo_call,
	"	push %rbp\n"
	"	call kpo_target\n"
	"	pop %rbp\n"
	KPO_RET);

/* An instruction with an exception-table entry in the region */
kpo_asm_fn kpo_extable;
KPO_ASM(kpo_extable,
	"1:	mov (%rdi), %rax\n"
	"	add $1, %rax\n"
	"2:	" ASM_RET
	_ASM_EXTABLE(1b, 2b));

/* A fixup that lands inside the region */
kpo_asm_fn kpo_fixup_into;
KPO_ASM(kpo_fixup_into,
	"	mov %rdi, %rax\n"
	"3:	add $1, %rax\n"
	"1:	mov (%rsi), %rdx\n"
	KPO_RET
	_ASM_EXTABLE(1b, 3b));

/* A branch back into the middle of the region */
kpo_asm_fn kpo_jump_into;
KPO_ASM(kpo_jump_into,
	"	mov %rdi, %rax\n"
	"1:	add $1, %rax\n"
	"	cmp $100, %rax\n"
	"	jl 1b\n"
	KPO_RET);

/* An indirect jump somewhere in the function: targets unknown */
kpo_asm_fn kpo_indirect;
KPO_ASM(kpo_indirect,
	"	mov %rdi, %rax\n"
	"	add $1, %rax\n"
	"	jmp *%rsi\n");

/* A jump-label site inside the region */
static __used DEFINE_STATIC_KEY_FALSE(kpo_key);
kpo_asm_fn kpo_jump_label;
KPO_ASM(kpo_jump_label,
	"	mov %rdi, %rax\n"
	"1:	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"	/* nop5 */
	KPO_RET
	"2:	add $2, %rax\n"
	KPO_RET
	".pushsection __jump_table, \"aw\"\n"
	"	.balign 8\n"
	"	.long 1b - .\n"
	"	.long 2b - .\n"
	"	.quad kpo_key - .\n"
	".popsection\n");

/* An int3 in the region, jumped over: 2 + 2 + 1 bytes */
kpo_asm_fn kpo_int3;
KPO_ASM(kpo_int3,
	"	test %esi, %esi\n"
	"	jnz 1f\n"
	"	int3\n"
	"1:	mov %rdi, %rax\n"
	KPO_RET);

/* A ud2 in the region, jumped over: 2 + 2 + 2 bytes */
kpo_asm_fn kpo_ud2;
KPO_ASM(kpo_ud2,
	"	test %esi, %esi\n"
	"	jnz 1f\n"
	"	ud2\n"
	"1:	mov %rdi, %rax\n"
	KPO_RET);

/* The same with a __bug_table entry: a WARN() site */
#ifdef CONFIG_GENERIC_BUG
#ifdef CONFIG_DEBUG_BUGVERBOSE
#define KPO_BUG_ENTRY_SIZE	12	/* addr, file, line, flags */
#define KPO_BUG_FILE_LINE	"	.long 3b - .\n	.word 0\n"
#else
#define KPO_BUG_ENTRY_SIZE	8	/* addr, flags, padding */
#define KPO_BUG_FILE_LINE
#endif
static_assert(sizeof(struct bug_entry) == KPO_BUG_ENTRY_SIZE);
kpo_asm_fn kpo_warn;
KPO_ASM(kpo_warn,
	"	test %esi, %esi\n"
	"	jnz 1f\n"
	"2:	ud2\n"
	"1:	mov %rdi, %rax\n"
	KPO_RET
	".pushsection .rodata.str1.1, \"aMS\", @progbits, 1\n"
	"3:	.string \"kpo_warn\"\n"
	".popsection\n"
	".pushsection __bug_table, \"aw\"\n"
	"4:	.long 2b - .\n"
	KPO_BUG_FILE_LINE
	"	.word " __stringify(BUGFLAG_WARNING) "\n"
	"	.org 4b + " __stringify(KPO_BUG_ENTRY_SIZE) "\n"
	".popsection\n");
#define KPO_WARN	kpo_warn
#else
#define KPO_WARN	NULL
#endif

/* A static call site in the region (static_call(kpo_sc)(a, b)) */
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
DEFINE_STATIC_CALL(kpo_sc, kpo_target);
kpo_asm_fn kpo_static_call;
KPO_ASM(kpo_static_call,
	"	push %rbp\n"
	"	call " STATIC_CALL_TRAMP_STR(kpo_sc) "\n"
	"	pop %rbp\n"
	KPO_RET);
#define KPO_STATIC_CALL	kpo_static_call
#else
#define KPO_STATIC_CALL	NULL
#endif

/* An alternatives site in the region, the same with every feature */
kpo_asm_fn kpo_alternative;
KPO_ASM(kpo_alternative,
	"	mov %rdi, %rax\n"
	ALTERNATIVE("add $1, %rax", "add $1, %rax", X86_FEATURE_ALWAYS)
	KPO_RET);

/*
 * The entry of a traced function, its ftrace call site behind the ENDBR.
 * GCC records the call sites it emits itself; objtool, when it is the one
 * that records them, takes this one too.
 */
#ifdef CONFIG_KPROBES_ON_FTRACE
#ifdef CONFIG_FTRACE_MCOUNT_USE_CC
#define KPO_MCOUNT_LOC	".pushsection __mcount_loc, \"a\", @progbits\n"	\
			"	.quad 1b\n"					\
			".popsection\n"
#else
#define KPO_MCOUNT_LOC
#endif
kpo_asm_fn kpo_fentry;
KPO_ASM(kpo_fentry,
	"1:	call __fentry__\n"
	"	mov %rdi, %rax\n"
	KPO_RET
	KPO_MCOUNT_LOC);
#define KPO_FENTRY	kpo_fentry
#else
#define KPO_FENTRY	NULL
#endif
#endif /* CONFIG_X86_64 */

/*
 * @off bytes into @fn.  Computed at run time: an address inside a function
 * in the code itself is a relocation that IBT's objtool check refuses (no
 * ENDBR there), and these are only ever handed to register_kprobe().
 */
static kprobe_opcode_t *kpo_at(void *fn, unsigned long off)
{
	unsigned long addr = (unsigned long)fn;

	OPTIMIZER_HIDE_VAR(addr);
	return (kprobe_opcode_t *)(addr + off);
}

#define KPO_KPROBE(fn)	{ .addr = kpo_at(fn, KPO_PROBE), .pre_handler = kpo_pre }

static unsigned long kpo_point_hits(struct kprobe *kp, enum kprobe_hit_kind kind)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(kp->point->counts, cpu)->n[kind];
	return sum;
}

/* Wait for the optimizer, then tell whether @kp's point is optimized. */
static bool kpo_optimized(struct kprobe *kp)
{
	wait_for_kprobe_optimizer();
	return kprobe_optimized(kp);
}

/* ---------------------------------------------------------------------- */
/* Hits                                                                    */
/* ---------------------------------------------------------------------- */

static void kpo_hit_takes_no_exception(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	KUNIT_EXPECT_EQ(test, kpo_target(2, 0), 9L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
	KUNIT_EXPECT_EQ(test, kpo_point_hits(&kp, KPROBE_HIT_OPTIMIZED), 2UL);
	KUNIT_EXPECT_FALSE(test, kpo.preemptible);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target(3, 0), 10L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
}

/* The registers an optimized hit sees are those of a breakpoint hit. */
static void kpo_regs_as_on_breakpoint(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);
	struct pt_regs trapped, detoured;

	/* A post_handler keeps the point on its breakpoint. */
	kp.post_handler = kpo_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpo_target(0x1234, 0x5678), 0x123bL);
	trapped = kpo.regs;
	unregister_kprobe(&kp);

	kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target(0x1234, 0x5678), 0x123bL);
	detoured = kpo.regs;
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 1);
	KUNIT_EXPECT_EQ(test, detoured.ip, trapped.ip);
	KUNIT_EXPECT_EQ(test, detoured.ip, (unsigned long)kp.addr + 1);
	KUNIT_EXPECT_EQ(test, detoured.sp, trapped.sp);
	/* The arithmetic flags are the caller's, different for each call */
	KUNIT_EXPECT_EQ(test, detoured.flags & X86_EFLAGS_IF,
			trapped.flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_EQ(test, detoured.cs, trapped.cs);
	KUNIT_EXPECT_EQ(test, detoured.orig_ax, trapped.orig_ax);
	KUNIT_EXPECT_EQ(test, detoured.di, 0x1234UL);
	KUNIT_EXPECT_EQ(test, detoured.si, 0x5678UL);
	KUNIT_EXPECT_EQ(test, detoured.di, trapped.di);
	KUNIT_EXPECT_EQ(test, detoured.si, trapped.si);
	/* The function's return address, where a kretprobe finds it */
	KUNIT_EXPECT_EQ(test, *(unsigned long *)detoured.sp,
			*(unsigned long *)trapped.sp);
}

/* Beyond stock: a pre_handler may redirect an optimized hit. */
static int kpo_pre_redirect(struct kprobe *p, struct pt_regs *regs)
{
	kpo_pre(p, regs);
	/* Return -a from the function, as fail_function does with a value */
	regs->ax = -regs->di;
	regs->ip = *(unsigned long *)regs->sp;
	regs->sp += sizeof(long);
	return 1;
}

static void kpo_pre_handler_redirects(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);

	kp.pre_handler = kpo_pre_redirect;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target(5, 0), -5L);
	KUNIT_EXPECT_EQ(test, kpo_target(6, 0), -6L);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
	KUNIT_EXPECT_EQ(test, kpo_target(5, 0), 12L);
}

/* Relative branches and RIP-relative operands run right from the detour. */
static void kpo_relocated_region(struct kunit *test)
{
	struct kprobe a = KPO_KPROBE(kpo_branches);
	struct kprobe b = KPO_KPROBE(kpo_rip_relative);

	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&a));
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&b));
	KUNIT_EXPECT_EQ(test, kpo_branches(0, 0), 100L);
	KUNIT_EXPECT_EQ(test, kpo_branches(5, 0), 6L);
	KUNIT_EXPECT_EQ(test, kpo_rip_relative(5, 0), 1005L);
	unregister_kprobe(&a);
	unregister_kprobe(&b);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
}

/* ---------------------------------------------------------------------- */
/* What keeps a point on its breakpoint                                    */
/* ---------------------------------------------------------------------- */

struct kpo_refusal {
	const char *name;
	kpo_asm_fn *fn;
	unsigned int offset;
	enum kprobe_opt_refusal why;
	bool hit;		/* call fn(1, 1): the probe still hits */
};

static const struct kpo_refusal kpo_refusals[] = {
	{ "crosses_function", kpo_short, KPO_SHORT_PROBE,
	  KPROBE_OPT_CROSSES_FUNCTION },
	{ "call", kpo_call, KPO_PROBE, KPROBE_OPT_UNRELOCATABLE },
	{ "extable_entry", kpo_extable, KPO_PROBE, KPROBE_OPT_EXTABLE },
	{ "fixup_lands_inside", kpo_fixup_into, KPO_PROBE, KPROBE_OPT_EXTABLE },
	{ "jump_into_region", kpo_jump_into, KPO_PROBE, KPROBE_OPT_JUMP_INTO },
	{ "indirect_jump", kpo_indirect, KPO_PROBE, KPROBE_OPT_INDIRECT_JUMP },
	{ "jump_label_site", kpo_jump_label, KPO_PROBE, KPROBE_OPT_RESERVED },
#ifdef CONFIG_X86_64
	{ "int3", kpo_int3, KPO_PROBE, KPROBE_OPT_UNRELOCATABLE, true },
	{ "ud2", kpo_ud2, KPO_PROBE, KPROBE_OPT_UNRELOCATABLE, true },
	{ "bug_site", KPO_WARN, KPO_PROBE, KPROBE_OPT_RESERVED, true },
	{ "static_call_site", KPO_STATIC_CALL, KPO_PROBE, KPROBE_OPT_RESERVED,
	  true },
	{ "alternatives_site", kpo_alternative, KPO_PROBE, KPROBE_OPT_RESERVED,
	  true },
	/* Served by ftrace: never looked at by the optimizer */
	{ "ftrace_site", KPO_FENTRY, KPO_PROBE, KPROBE_OPT_UNTRIED, true },
#endif
};

static void kpo_refusal_desc(const struct kpo_refusal *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpo_refusal, kpo_refusals, kpo_refusal_desc);

static void kpo_refused(struct kunit *test)
{
	const struct kpo_refusal *r = test->param_value;
	struct kprobe kp = {
		.addr = kpo_at(r->fn, r->offset),
		.pre_handler = kpo_pre,
	};

	if (!r->fn)
		kunit_skip(test, "no such site in this kernel");
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kp.point->opt_refused, (u8)r->why);
	if (r->hit) {
		/* Through the int3, or ftrace's call (not an exception) */
		r->fn(1, 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped),
				kp.point->ftrace ? 0 : 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 1);
	}
	unregister_kprobe(&kp);
}

/* Two points where one's jump would cover the other: neither, until. */
static void kpo_probe_inside_region(struct kunit *test)
{
	struct kprobe outer = KPO_KPROBE(kpo_target);
	struct kprobe inner = { .addr = kpo_at(kpo_target, KPO_PROBE + 1),
				.pre_handler = kpo_pre };	/* the mov */

	KUNIT_ASSERT_EQ(test, register_kprobe(&outer), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&outer));
	/* Registering inside the region undoes the jump before it returns. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&inner), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&outer));
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&outer));
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&inner));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
	/* When it goes, the outer one is optimized again. */
	unregister_kprobe(&inner);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&outer));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	unregister_kprobe(&outer);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 2);
}

static void kpo_post_handler_unoptimizes(struct kunit *test)
{
	struct kprobe a = KPO_KPROBE(kpo_target);
	struct kprobe b = KPO_KPROBE(kpo_target);

	b.pre_handler = NULL;
	b.post_handler = kpo_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&a));
	/* Done before register_kprobe() returns */
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&a));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.post_hits), 1);
	/* A disabled post_handler does not count */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b), 0);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&a));
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&a));
	unregister_kprobe(&b);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&a));
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&a));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	unregister_kprobe(&a);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 1);
}

static void kpo_disable_enable(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
}

/* Points registered together are optimized in one batch. */
static void kpo_batch(struct kunit *test)
{
	struct kprobe a = KPO_KPROBE(kpo_target), b = KPO_KPROBE(kpo_target2);
	struct kprobe *kps[] = { &a, &b };

	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&a));
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&b));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0) + kpo_target2(1, 0), 20L);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
}

/* ---------------------------------------------------------------------- */
/* kretprobes                                                              */
/* ---------------------------------------------------------------------- */

#ifdef CONFIG_KRETPROBES
static int kpo_rp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs) == 12)
		atomic_inc(&kpo.post_hits);
	return 0;
}

static void kpo_kretprobe_optimized_entry(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = kpo_at(kpo_target, KPO_PROBE),
		.handler = kpo_rp_handler,
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&rp.kp));
	KUNIT_EXPECT_EQ(test, kpo_target(5, 0), 12L);
	KUNIT_EXPECT_EQ(test, kpo_target(5, 0), 12L);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.post_hits), 2);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}
#endif

/* ---------------------------------------------------------------------- */
/* Concurrency                                                             */
/* ---------------------------------------------------------------------- */

static atomic_t kpo_stop;
static atomic_long_t kpo_calls;
static atomic_t kpo_bad;

static int kpo_caller(void *unused)
{
	long i = 0;

	while (!atomic_read(&kpo_stop)) {
		if (kpo_target(i, 0) != i + 7)
			atomic_inc(&kpo_bad);
		atomic_long_inc(&kpo_calls);
		/*
		 * Sleep now and then: the optimizer waits for every task to
		 * switch voluntarily (an RCU-tasks grace period).
		 */
		if (!(++i % 256))
			usleep_range(50, 100);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kpo_start_callers(struct task_struct **workers)
{
	int cpu;

	atomic_set(&kpo_stop, 0);
	atomic_long_set(&kpo_calls, 0);
	atomic_set(&kpo_bad, 0);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		workers[cpu] = kthread_create_on_cpu(kpo_caller, NULL, cpu,
						     "kpo_caller/%u");
		if (IS_ERR(workers[cpu]))
			workers[cpu] = NULL;
		else
			wake_up_process(workers[cpu]);
	}
	cpus_read_unlock();
}

static void kpo_stop_callers(struct task_struct **workers)
{
	int cpu;

	atomic_set(&kpo_stop, 1);
	for_each_possible_cpu(cpu) {
		if (workers[cpu])
			kthread_stop(workers[cpu]);
	}
}

/*
 * Optimize, unoptimize, disable and enable in a loop while every CPU calls
 * the function: the probe that stays enabled counts every call.
 */
static void kpo_stress(struct kunit *test)
{
	struct task_struct *workers[NR_CPUS] = {};
	struct kprobe counter = KPO_KPROBE(kpo_target);
	struct kprobe toggler = KPO_KPROBE(kpo_target);
	unsigned long deadline = jiffies + 3 * HZ;
	long calls_before, calls_after;
	int rounds = 0, hits;

	toggler.pre_handler = NULL;
	toggler.post_handler = kpo_post;
	toggler.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, register_kprobe(&toggler), 0);
	kpo_start_callers(workers);
	while (time_before(jiffies, deadline) && rounds < 40) {
		KUNIT_ASSERT_EQ(test, register_kprobe(&counter), 0);
		calls_before = atomic_long_read(&kpo_calls);
		atomic_set(&kpo.hits, 0);
		/* Optimized, then not (post_handler), then again */
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_EQ(test, enable_kprobe(&toggler), 0);
		KUNIT_EXPECT_EQ(test, disable_kprobe(&toggler), 0);
		wait_for_kprobe_optimizer();
		/* Before the counter goes: calls go on while it is disabled. */
		hits = atomic_read(&kpo.hits);
		calls_after = atomic_long_read(&kpo_calls);
		KUNIT_EXPECT_EQ(test, disable_kprobe(&counter), 0);
		/* Every call made while it was enabled, and a few in flight */
		KUNIT_EXPECT_GE(test, (long)hits,
				calls_after - calls_before - 2 * num_online_cpus());
		KUNIT_EXPECT_LE(test, (long)hits,
				calls_after - calls_before + 2 * num_online_cpus());
		if (hits < calls_after - calls_before - 2 * num_online_cpus())
			kunit_info(test, "round %d: %ld calls, %d hits, %lu missed; emulated %lu boosted %lu stepped %lu optimized %lu nested %lu\n",
				   rounds, calls_after - calls_before, hits,
				   counter.nmissed,
				   kpo_point_hits(&counter, KPROBE_HIT_EMULATED),
				   kpo_point_hits(&counter, KPROBE_HIT_BOOSTED),
				   kpo_point_hits(&counter, KPROBE_HIT_STEPPED),
				   kpo_point_hits(&counter, KPROBE_HIT_OPTIMIZED),
				   kpo_point_hits(&counter, KPROBE_HIT_MISSED));
		KUNIT_EXPECT_EQ(test, enable_kprobe(&counter), 0);
		unregister_kprobe(&counter);
		rounds++;
	}
	kpo_stop_callers(workers);
	unregister_kprobe(&toggler);
	kunit_info(test, "%d rounds, %ld calls\n", rounds,
		   atomic_long_read(&kpo_calls));
	KUNIT_EXPECT_GT(test, rounds, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_bad), 0);
}

/* A pre_handler holds a CPU inside the detour while the probe goes. */
static atomic_t kpo_inside, kpo_release;

static int kpo_pre_linger(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long deadline = jiffies + 2 * HZ;

	kpo_pre(p, regs);
	atomic_set(&kpo_inside, 1);
	while (!atomic_read(&kpo_release) && time_before(jiffies, deadline))
		cpu_relax();
	return 0;
}

static int kpo_call_once(void *unused)
{
	if (kpo_target(3, 0) != 10)
		atomic_inc(&kpo_bad);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int kpo_unregister_thread(void *kp)
{
	unregister_kprobe(kp);
	atomic_set(&kpo_stop, 1);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kpo_unregister_while_inside(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);
	unsigned long deadline = jiffies + 2 * HZ;
	struct task_struct *caller, *remover;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	kp.pre_handler = kpo_pre_linger;
	atomic_set(&kpo_inside, 0);
	atomic_set(&kpo_release, 0);
	atomic_set(&kpo_stop, 0);
	atomic_set(&kpo_bad, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	caller = kthread_run(kpo_call_once, NULL, "kpo_inside");
	KUNIT_ASSERT_FALSE(test, IS_ERR(caller));
	while (!atomic_read(&kpo_inside) && time_before(jiffies, deadline))
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_inside), 1);
	remover = kthread_run(kpo_unregister_thread, &kp, "kpo_remover");
	KUNIT_ASSERT_FALSE(test, IS_ERR(remover));
	/* The removal waits for the handler... */
	schedule_timeout_uninterruptible(HZ / 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_stop), 0);
	/* ...and finishes once it has left. */
	atomic_set(&kpo_release, 1);
	while (!atomic_read(&kpo_stop) && time_before(jiffies, deadline + HZ))
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_stop), 1);
	kthread_stop(remover);
	kthread_stop(caller);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_bad), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 1);
}

static struct kunit_case kpo_cases[] = {
	KUNIT_CASE(kpo_hit_takes_no_exception),
	KUNIT_CASE(kpo_regs_as_on_breakpoint),
	KUNIT_CASE(kpo_pre_handler_redirects),
	KUNIT_CASE(kpo_relocated_region),
	KUNIT_CASE_PARAM(kpo_refused, kpo_refusal_gen_params),
	KUNIT_CASE(kpo_probe_inside_region),
	KUNIT_CASE(kpo_post_handler_unoptimizes),
	KUNIT_CASE(kpo_disable_enable),
	KUNIT_CASE(kpo_batch),
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(kpo_kretprobe_optimized_entry),
#endif
	KUNIT_CASE(kpo_stress),
	KUNIT_CASE(kpo_unregister_while_inside),
	{}
};

static struct kunit_suite kpo_suite = {
	.name = "kprobes_optimizer_test",
	.init = kpo_init,
	.test_cases = kpo_cases,
};

kunit_test_suites(&kpo_suite);

MODULE_DESCRIPTION("KUnit tests for kprobes jump optimization");
MODULE_LICENSE("GPL");
