// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kprobes jump optimization (CONFIG_OPTPROBES).
 *
 * The probed functions are written in assembly, so that each case knows
 * which instructions a jump at the probe would replace, and why the
 * optimizer must take it or refuse it.  A hit that goes through an
 * exception is told apart from a hit through a detour by its context: on
 * x86 the int3 handler runs in_nmi() (exc_int3() enters NMI context); on
 * arm64 the BRK handler runs with debug exceptions masked (PSTATE.D, set
 * by the exception and left so by el1_dbg()), which kernel code never
 * does otherwise.
 * Cases that wait for the optimizer call wait_for_kprobe_optimizer();
 * concurrency cases run against a deadline, never a fixed sleep.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpufeature.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/static_call.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <asm/unaligned.h>
#ifdef CONFIG_X86_64
#include <asm/alternative.h>
#include <asm/asm.h>
#include <asm/text-patching.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/asm-extable.h>
#include <asm/insn.h>
#include <asm/sysreg.h>
#include <asm/virt.h>
#endif

#include "test_kprobes.h"

/* What the handlers saw; reset before each case */
static struct {
	atomic_t hits;
	atomic_t trapped;	/* hits that came through an exception */
	atomic_t post_hits;
	struct pt_regs regs;	/* as the last hit saw them */
	unsigned long top;	/* x86: the word at regs.sp then */
	struct pt_regs post_regs;	/* as the last post_handler saw them */
	bool preemptible;
	bool faults_fail;	/* a fault would fail, not sleep */
	u64 pstate_after;	/* arm64: kpo_filled_hit()'s fields behind it */
	unsigned long handler_flags;	/* x86: EFLAGS in the handler */
} kpo;

static int kpo_init(struct kunit *test)
{
	memset(&kpo, 0, sizeof(kpo));
	return 0;
}

/* Is this handler running in the breakpoint exception? */
static bool kpo_in_exception(void)
{
#ifdef CONFIG_ARM64
	return read_sysreg(daif) & PSR_D_BIT;
#else
	return in_nmi();
#endif
}

static int kpo_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpo.hits);
	if (kpo_in_exception())
		atomic_inc(&kpo.trapped);
	kpo.regs = *regs;
#ifdef CONFIG_X86_64
	kpo.top = *(unsigned long *)regs->sp;
#endif
	kpo.preemptible = preemptible();
	kpo.faults_fail = faulthandler_disabled();
	return 0;
}

static void kpo_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&kpo.post_hits);
	kpo.post_regs = *regs;
}

/* What the functions written in assembly are */
typedef long kpo_asm_fn(long a, long b);

#ifdef CONFIG_X86_64
/*
 * long name(long a, long b): ENDBR, then @insns.  The probes go at
 * KPO_PROBE, the first instruction behind the ENDBR.
 */
#define KPO_ASM_IN(section, name, insns)				\
	asm(".pushsection " section ", \"ax\"\n"			\
	    ".type " #name ", @function\n"				\
	    ".balign 16\n"						\
	    #name ":\n"							\
	    "	.byte 0xf3, 0x0f, 0x1e, 0xfa\n"	/* endbr64 */		\
	    insns							\
	    ".size " #name ", .-" #name "\n"				\
	    ".popsection\n")
#define KPO_ASM(name, insns)	KPO_ASM_IN(".text", name, insns)
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

/*
 * a + 7 with the direction flag set, probed behind the std; + 0x400 if DF
 * is still set behind the region.
 */
kpo_asm_fn kpo_target_df;
KPO_ASM(kpo_target_df,
	"	std\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 7(%rdi), %rax\n"
	"	pop %rbp\n"
	"	pushf\n"
	"	pop %rdx\n"
	"	cld\n"
	"	and $0x400, %edx\n"
	"	add %rdx, %rax\n"
	KPO_RET);

/* kpo_target()'s shape in the idle loop's text: a + 7 */
kpo_asm_fn kpo_idle;
KPO_ASM_IN(".cpuidle.text", kpo_idle,
	   "	push %rbp\n"
	   "	mov %rsp, %rbp\n"
	   "	lea 7(%rdi), %rax\n"
	   "	pop %rbp\n"
	   KPO_RET);

/* What kpo_pre_calls() emulates a call to: counts, clobbers nothing */
static int kpo_emulated_calls __used;
kpo_asm_fn kpo_called;
KPO_ASM(kpo_called,
	"	incl kpo_emulated_calls(%rip)\n"
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
 * Only the kernel's sites are refused: a module's alternatives are applied
 * before its text can be probed and are not kept (see x86's opt.c).
 */
#ifdef MODULE
#define KPO_ALTERNATIVE	NULL
#else
#define KPO_ALTERNATIVE	kpo_alternative
#endif

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

#ifdef CONFIG_ARM64
/* long name(long a, long b): @insns.  The probes go KPO_PROBE bytes in. */
#define KPO_ASM_IN(section, name, insns)				\
	asm(".pushsection " section ", \"ax\"\n"			\
	    ".type " #name ", %function\n"				\
	    ".balign 16\n"						\
	    #name ":\n"							\
	    insns							\
	    ".size " #name ", .-" #name "\n"				\
	    ".popsection\n")
#define KPO_ASM(name, insns)	KPO_ASM_IN(".text", name, insns)
#define KPO_PROBE	0

/* A function with a frame: a + 7; the probe replaces the stp */
kpo_asm_fn kpo_target;
KPO_ASM(kpo_target,
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	add x0, x0, #7\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n");

/* kpo_target() in the idle loop's text: a + 7 */
kpo_asm_fn kpo_idle;
KPO_ASM_IN(".cpuidle.text", kpo_idle,
	   "	stp x29, x30, [sp, #-16]!\n"
	   "	mov x29, sp\n"
	   "	add x0, x0, #7\n"
	   "	ldp x29, x30, [sp], #16\n"
	   "	ret\n");

/* The same shape, for a second point: a + 11 */
kpo_asm_fn kpo_target2;
KPO_ASM(kpo_target2,
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	add x0, x0, #11\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n");

/* a + 7 + b, with 16 bytes of stack; KPO_SP_POP gives them back */
kpo_asm_fn kpo_sp_frame;
KPO_ASM(kpo_sp_frame,
	"	sub sp, sp, #16\n"
	"	add x0, x0, #7\n"
	"	add sp, sp, #16\n"
	"	add x0, x0, x1\n"
	"	ret\n");
#define KPO_SP_POP	8

/*
 * long kpo_call_filled(long a, long b, kpo_asm_fn *fn): fn(a, b) with
 * every other register, and the flags, set to known values, so that two
 * hits can be compared register by register (x18 too, unless it is the
 * shadow call stack).
 */
#ifdef CONFIG_SHADOW_CALL_STACK
#define KPO_SET_X18	""
#else
#define KPO_SET_X18	"	mov x18, #0x1212\n"
#endif
typedef long kpo_filler_fn(long a, long b, kpo_asm_fn *fn);
kpo_filler_fn kpo_call_filled;
KPO_ASM(kpo_call_filled,
	"	stp x29, x30, [sp, #-96]!\n"
	"	mov x29, sp\n"
	"	stp x19, x20, [sp, #16]\n"
	"	stp x21, x22, [sp, #32]\n"
	"	stp x23, x24, [sp, #48]\n"
	"	stp x25, x26, [sp, #64]\n"
	"	stp x27, x28, [sp, #80]\n"
	"	mov x16, x2\n"
	"	mov x2, #0x202\n"
	"	mov x3, #0x303\n"
	"	mov x4, #0x404\n"
	"	mov x5, #0x505\n"
	"	mov x6, #0x606\n"
	"	mov x7, #0x707\n"
	"	mov x8, #0x808\n"
	"	mov x9, #0x909\n"
	"	mov x10, #0xa0a\n"
	"	mov x11, #0xb0b\n"
	"	mov x12, #0xc0c\n"
	"	mov x13, #0xd0d\n"
	"	mov x14, #0xe0e\n"
	"	mov x15, #0xf0f\n"
	"	mov x17, #0x1111\n"
	KPO_SET_X18
	"	mov x19, #0x1313\n"
	"	mov x20, #0x1414\n"
	"	mov x21, #0x1515\n"
	"	mov x22, #0x1616\n"
	"	mov x23, #0x1717\n"
	"	mov x24, #0x1818\n"
	"	mov x25, #0x1919\n"
	"	mov x26, #0x1a1a\n"
	"	mov x27, #0x1b1b\n"
	"	mov x28, #0x1c1c\n"
	"	cmp x0, x0\n"		/* NZCV = 0110 */
	"	blr x16\n"
	"	ldp x19, x20, [sp, #16]\n"
	"	ldp x21, x22, [sp, #32]\n"
	"	ldp x23, x24, [sp, #48]\n"
	"	ldp x25, x26, [sp, #64]\n"
	"	ldp x27, x28, [sp, #80]\n"
	"	ldp x29, x30, [sp], #96\n"
	"	ret\n");

/*
 * One function per instruction that reads the PC, probed on that
 * instruction (the offset in the table below), each with a result that
 * shows whether it did what it does in place.
 */
kpo_asm_fn kpo_b;
KPO_ASM(kpo_b,
	"	b 1f\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	mov x0, #2\n"
	"	ret\n");

/* x30 must be the original return address, not one in the detour */
kpo_asm_fn kpo_bl;
KPO_ASM(kpo_bl,
	"	mov x9, x30\n"
	"	bl 1f\n"
	"	mov x30, x9\n"
	"	add x0, x0, #100\n"
	"	ret\n"
	"1:	add x0, x0, #5\n"
	"	ret\n");

/* The flags of the cmp must reach the b.ne through the detour */
kpo_asm_fn kpo_bcond;
KPO_ASM(kpo_bcond,
	"	cmp x0, #0\n"
	"	b.ne 1f\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	mov x0, #2\n"
	"	ret\n");

kpo_asm_fn kpo_cbz;
KPO_ASM(kpo_cbz,
	"	cbz x0, 1f\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	mov x0, #2\n"
	"	ret\n");

/* The 32-bit form: only w0 counts */
kpo_asm_fn kpo_cbnz;
KPO_ASM(kpo_cbnz,
	"	cbnz w0, 1f\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	mov x0, #2\n"
	"	ret\n");

kpo_asm_fn kpo_tbz;
KPO_ASM(kpo_tbz,
	"	tbz x0, #3, 1f\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	mov x0, #2\n"
	"	ret\n");

kpo_asm_fn kpo_tbnz;
KPO_ASM(kpo_tbnz,
	"	tbnz x0, #40, 1f\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	mov x0, #2\n"
	"	ret\n");

kpo_asm_fn kpo_adr;
KPO_ASM(kpo_adr,
	"	adr x1, 1f\n"
	"	ldr x0, [x1]\n"
	"	ret\n"
	"	.balign 8\n"
	"1:	.quad 4242\n");

static long kpo_adrp_data __used = 4343;
kpo_asm_fn kpo_adrp;
KPO_ASM(kpo_adrp,
	"	adrp x1, kpo_adrp_data\n"
	"	add x1, x1, :lo12:kpo_adrp_data\n"
	"	ldr x0, [x1]\n"
	"	ret\n");

kpo_asm_fn kpo_ldr_lit;
KPO_ASM(kpo_ldr_lit,
	"	ldr x0, 1f\n"
	"	ret\n"
	"	.balign 8\n"
	"1:	.quad 0x123456789abcdef0\n");

/* Zero-extended */
kpo_asm_fn kpo_ldr_lit32;
KPO_ASM(kpo_ldr_lit32,
	"	ldr w0, 1f\n"
	"	ret\n"
	"1:	.word 0x89abcdef\n");

/* Sign-extended */
kpo_asm_fn kpo_ldrsw_lit;
KPO_ASM(kpo_ldrsw_lit,
	"	ldrsw x0, 1f\n"
	"	ret\n"
	"1:	.word 0x80000005\n");

kpo_asm_fn kpo_prfm_lit;
KPO_ASM(kpo_prfm_lit,
	"	prfm pldl1keep, 1f\n"
	"	add x0, x0, #1\n"
	"	ret\n"
	"	.balign 8\n"
	"1:	.quad 0\n");

/* Instructions that do nothing: the detour only branches back */
kpo_asm_fn kpo_nop;
KPO_ASM(kpo_nop,
	"	nop\n"
	"	add x0, x0, #1\n"
	"	ret\n");

kpo_asm_fn kpo_bti_c;
KPO_ASM(kpo_bti_c,
	"	hint #34\n"		/* bti c */
	"	add x0, x0, #2\n"
	"	ret\n");

/*
 * An authentication of the return address, copied to the detour: it must
 * run there with the sp and x30 it has in place, or the return faults
 * (a NOP where the kernel does not use pointer authentication)
 */
kpo_asm_fn kpo_autiasp;
KPO_ASM(kpo_autiasp,
	"	hint #25\n"		/* paciasp */
	"	hint #29\n"		/* autiasp */
	"	add x0, x0, #1\n"
	"	ret\n");

kpo_asm_fn kpo_br;
KPO_ASM(kpo_br,
	"	adr x1, 1f\n"
	"	br x1\n"
	"	mov x0, #1\n"
	"	ret\n"
	"1:	add x0, x0, #9\n"
	"	ret\n");

kpo_asm_fn kpo_blr;
KPO_ASM(kpo_blr,
	"	stp x29, x30, [sp, #-16]!\n"
	"	adr x1, 1f\n"
	"	blr x1\n"
	"	ldp x29, x30, [sp], #16\n"
	"	add x0, x0, #1\n"
	"	ret\n"
	"1:	add x0, x0, #9\n"
	"	ret\n");

kpo_asm_fn kpo_ret;
KPO_ASM(kpo_ret,
	"	add x0, x0, #3\n"
	"	ret\n");

/* An instruction with an exception-table entry.  Never called. */
kpo_asm_fn kpo_extable;
KPO_ASM(kpo_extable,
	"1:	ldr x0, [x0]\n"
	"2:	ret\n"
	__ASM_EXTABLE_RAW("1b", "2b", __stringify(EX_TYPE_KACCESS_ERR_ZERO), "0"));

/* BLR x30: the target is read before x30 becomes the return address */
kpo_asm_fn kpo_blr_x30;
KPO_ASM(kpo_blr_x30,
	"	stp x29, x30, [sp, #-16]!\n"
	"	adr x30, 1f\n"
	"	blr x30\n"
	"	ldp x29, x30, [sp], #16\n"
	"	add x0, x0, #1\n"
	"	ret\n"
	"1:	add x0, x0, #9\n"
	"	ret\n");

/* LDR XZR, literal: the load goes nowhere, x0 is left alone */
kpo_asm_fn kpo_ldr_xzr;
KPO_ASM(kpo_ldr_xzr,
	"	.inst 0x5800005f\n"	/* ldr xzr, 1f */
	"	ret\n"
	"1:	.quad 0\n");

/* More nops than the kernel image has detours: a + 0 */
#define KPO_SLED_LEN	(KPROBE_OPT_IMAGE_DETOURS + 2)
kpo_asm_fn kpo_sled;
KPO_ASM(kpo_sled,
	"	.rept " __stringify(KPO_SLED_LEN) "\n"
	"	nop\n"
	"	.endr\n"
	"	ret\n");

/*
 * The PSTATE fields that only some CPUs have, which the SPSR of a
 * breakpoint exception keeps: their names for MRS and MSR (register), and
 * the encoding of MSR (immediate), which 6.1's sysreg.h lacks for some.
 * long kpo_pstate_FIELD(long a, long b) sets FIELD, runs an ADR at
 * KPO_PSTATE_PROBE (an instruction that a detour simulates and leaves
 * with ERET), returns FIELD as it is behind it, and puts it back as it
 * was.  Called only where the system has the feature: the MSR and MRS
 * are UNDEFINED otherwise.
 */
#define KPO_SYS_DIT		"s3_3_c4_c2_5"
#define KPO_SYS_SSBS		"s3_3_c4_c2_6"
#define KPO_SYS_TCO		"s3_3_c4_c2_7"
#define KPO_SYSREG_DIT		sys_reg(3, 3, 4, 2, 5)
#define KPO_SYSREG_SSBS		sys_reg(3, 3, 4, 2, 6)
#define KPO_SYSREG_TCO		sys_reg(3, 3, 4, 2, 7)
#define KPO_SET_PSTATE(op1, op2)					\
	__emit_inst(0xd500401f | pstate_field(op1, op2) | (1 << PSTATE_Imm_shift))
#define KPO_PSTATE_PROBE	2	/* in instructions */

kpo_asm_fn kpo_pstate_dit;
KPO_ASM(kpo_pstate_dit,
	"	mrs x2, " KPO_SYS_DIT "\n"
	KPO_SET_PSTATE(3, 2)
	"	adr x1, 1f\n"
	"	mrs x0, " KPO_SYS_DIT "\n"
	"	msr " KPO_SYS_DIT ", x2\n"
	"1:	ret\n");

kpo_asm_fn kpo_pstate_ssbs;
KPO_ASM(kpo_pstate_ssbs,
	"	mrs x2, " KPO_SYS_SSBS "\n"
	KPO_SET_PSTATE(3, 1)
	"	adr x1, 1f\n"
	"	mrs x0, " KPO_SYS_SSBS "\n"
	"	msr " KPO_SYS_SSBS ", x2\n"
	"1:	ret\n");

kpo_asm_fn kpo_pstate_tco;
KPO_ASM(kpo_pstate_tco,
	"	mrs x2, " KPO_SYS_TCO "\n"
	KPO_SET_PSTATE(3, 4)
	"	adr x1, 1f\n"
	"	mrs x0, " KPO_SYS_TCO "\n"
	"	msr " KPO_SYS_TCO ", x2\n"
	"1:	ret\n");
#endif /* CONFIG_ARM64 */

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

/*
 * A handler's user access that faults fails, as on a breakpoint hit,
 * instead of sleeping with interrupts masked: the preemption count says
 * the handlers cannot sleep.
 */
static void kpo_handler_faults_fail(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);

	if (!IS_ENABLED(CONFIG_PREEMPT_COUNT))
		kunit_skip(test, "no preemption count");
	kp.post_handler = kpo_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 1);
	KUNIT_EXPECT_TRUE(test, kpo.faults_fail);
	unregister_kprobe(&kp);

	kpo.faults_fail = false;
	kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	if (kpo_optimized(&kp)) {
		KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 1);
		KUNIT_EXPECT_TRUE(test, kpo.faults_fail);
	} else {
		KUNIT_FAIL(test, "not optimized");
	}
	unregister_kprobe(&kp);
}

/* The text an optimized point's jump takes: its size, and where it goes */
#ifdef CONFIG_X86_64
#define KPO_JUMP_SIZE		JMP32_INSN_SIZE
#define KPO_DETOUR_SIZE		KPROBE_INSN_SLOT_SIZE

/* Return: where the JMP rel32 at @addr goes, or 0 if it is not one */
static unsigned long kpo_jump_target(const kprobe_opcode_t *addr)
{
	if (addr[0] != JMP32_INSN_OPCODE)
		return 0;
	return (unsigned long)addr + JMP32_INSN_SIZE +
	       get_unaligned((const s32 *)(addr + 1));
}
#endif
#ifdef CONFIG_ARM64
#define KPO_JUMP_SIZE		AARCH64_INSN_SIZE
#define KPO_DETOUR_SIZE		KPROBE_OPT_DETOUR_SIZE

/* Return: where the B at @addr goes, or 0 if it is not one */
static unsigned long kpo_jump_target(const kprobe_opcode_t *addr)
{
	u32 insn = le32_to_cpu(*(__le32 *)addr);

	if (!aarch64_insn_is_b(insn))
		return 0;
	return (unsigned long)addr +
	       sign_extend64((insn & GENMASK(25, 0)) << 2, 27);
}
#endif

/*
 * An optimized point's text is a jump into its own detour; once the point
 * is no longer optimized, its text is what it was before the probe.
 */
static void kpo_text_is_jump_to_detour(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);
	u8 orig[KPO_JUMP_SIZE];
	unsigned long detour, target;

	memcpy(orig, kp.addr, sizeof(orig));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	detour = (unsigned long)kp.point->opt.detour;
	target = kpo_jump_target(kp.addr);
	KUNIT_EXPECT_NE(test, detour, 0UL);
	KUNIT_EXPECT_GE(test, target, detour);
	KUNIT_EXPECT_LT(test, target, detour + KPO_DETOUR_SIZE);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, memcmp(orig, kp.addr, sizeof(orig)), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, memcmp(orig, kp.addr, sizeof(orig)), 0);
}

#ifdef CONFIG_X86_64
/* kpo_target() from one call site, so that both hits see one return address */
static noinline long kpo_call_target(long a, long b)
{
	long ret = kpo_target(a, b);

	OPTIMIZER_HIDE_VAR(ret);	/* a call, not a tail call */
	return ret;
}

/* The registers an optimized hit sees are those of a breakpoint hit. */
static void kpo_regs_as_on_breakpoint(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);
	struct pt_regs trapped, detoured;
	unsigned long trapped_top, detoured_top;

	/* A post_handler keeps the point on its breakpoint. */
	kp.post_handler = kpo_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpo_call_target(0x1234, 0x5678), 0x123bL);
	trapped = kpo.regs;
	trapped_top = kpo.top;
	unregister_kprobe(&kp);

	kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_call_target(0x1234, 0x5678), 0x123bL);
	detoured = kpo.regs;
	detoured_top = kpo.top;
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
	/*
	 * The function's return address, where a kretprobe finds it: read
	 * by the handler, as the stack below ours is dead once the function
	 * returned (a KASAN check call writes its own return address there).
	 */
	KUNIT_EXPECT_EQ(test, detoured_top, trapped_top);
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

/* The first hit emulates "call kpo_called" at the probe; the second goes on */
static int kpo_pre_calls(struct kprobe *p, struct pt_regs *regs)
{
	kpo_pre(p, regs);
	if (atomic_read(&kpo.hits) > 1)
		return 0;
	regs->sp -= sizeof(long);
	*(unsigned long *)regs->sp = (unsigned long)p->addr;
	regs->ip = (unsigned long)kpo_called;
	return 1;
}

/*
 * A pre_handler that redirects may push a word onto the probed stack, as
 * one that emulates a call does: the hit resumes at regs->ip with the word
 * on top of the stack, as a breakpoint hit would.
 */
static void kpo_pre_handler_pushes(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);

	kp.pre_handler = kpo_pre_calls;
	kpo_emulated_calls = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target(5, 0), 12L);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpo_emulated_calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
	unregister_kprobe(&kp);
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

static int kpo_pre_flags(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpo.hits);
	if (kpo_in_exception())
		atomic_inc(&kpo.trapped);
	kpo.regs = *regs;
	kpo.handler_flags = native_save_fl();
	return 0;
}

/*
 * Where the probed code runs with the direction flag set, the handlers run
 * with it clear, as the C they are written in requires and as on a
 * breakpoint hit; they see it set in regs->flags, and the probed code gets
 * it back.
 */
static void kpo_handlers_run_with_df_clear(struct kunit *test)
{
	struct kprobe kp = {
		.addr = kpo_at(kpo_target_df, KPO_PROBE + 1),
		.pre_handler = kpo_pre_flags,
	};

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target_df(1, 0), 0x408L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
	KUNIT_EXPECT_TRUE(test, kpo.regs.flags & X86_EFLAGS_DF);
	KUNIT_EXPECT_FALSE(test, kpo.handler_flags & X86_EFLAGS_DF);
	unregister_kprobe(&kp);
}
#endif /* CONFIG_X86_64 */

#ifdef CONFIG_ARM64
static bool kpo_has_dit(void)
{
	return cpu_have_named_feature(DIT);
}

static bool kpo_has_ssbs(void)
{
	return cpus_have_const_cap(ARM64_SSBS);
}

static bool kpo_has_tco(void)
{
	return system_supports_mte();
}

/* A PSTATE field that only some CPUs have */
struct kpo_pstate_field {
	const char *name;
	bool (*present)(void);
	u64 bit;		/* in the SPSR, and as its MRS reads it */
	kpo_asm_fn *fn;		/* sets it, then runs an ADR */
};

static const struct kpo_pstate_field kpo_pstate_fields[] = {
	{ "dit", kpo_has_dit, PSR_DIT_BIT, kpo_pstate_dit },
	{ "ssbs", kpo_has_ssbs, PSR_SSBS_BIT, kpo_pstate_ssbs },
	{ "tco", kpo_has_tco, PSR_TCO_BIT, kpo_pstate_tco },
};

/* Those of kpo_pstate_fields[] the system has */
static u64 kpo_pstate_present(void)
{
	u64 bits = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(kpo_pstate_fields); i++)
		if (kpo_pstate_fields[i].present())
			bits |= kpo_pstate_fields[i].bit;
	return bits;
}

/* The fields @bits of PSTATE (of kpo_pstate_present()) */
static u64 kpo_pstate_read(u64 bits)
{
	u64 val = 0;

	if (bits & PSR_DIT_BIT)
		val |= read_sysreg_s(KPO_SYSREG_DIT) & PSR_DIT_BIT;
	if (bits & PSR_SSBS_BIT)
		val |= read_sysreg_s(KPO_SYSREG_SSBS) & PSR_SSBS_BIT;
	if (bits & PSR_TCO_BIT)
		val |= read_sysreg_s(KPO_SYSREG_TCO) & PSR_TCO_BIT;
	return val;
}

/* Set the fields @bits of PSTATE to those of @val */
static void kpo_pstate_write(u64 bits, u64 val)
{
	if (bits & PSR_DIT_BIT)
		write_sysreg_s(val & PSR_DIT_BIT, KPO_SYSREG_DIT);
	if (bits & PSR_SSBS_BIT)
		write_sysreg_s(val & PSR_SSBS_BIT, KPO_SYSREG_SSBS);
	if (bits & PSR_TCO_BIT)
		write_sysreg_s(val & PSR_TCO_BIT, KPO_SYSREG_TCO);
}

/*
 * fn() through kpo_call_filled(), with every PSTATE field of
 * kpo_pstate_fields[] the system has set (the kernel runs with DIT, and
 * usually SSBS, clear), so that a hit's pstate shows whether they were
 * saved, and kpo.pstate_after whether they came back.  Preemption is off:
 * a task switch does not switch these fields.
 */
static noinline long kpo_filled_hit(kpo_asm_fn *fn)
{
	u64 bits = kpo_pstate_present(), old;
	long ret;

	preempt_disable();
	old = kpo_pstate_read(bits);
	kpo_pstate_write(bits, bits);
	ret = kpo_call_filled(0x1234, 0x5678, fn);
	kpo.pstate_after = kpo_pstate_read(bits);
	kpo_pstate_write(bits, old);
	preempt_enable();
	return ret;
}

/* The registers an optimized hit sees are those of a BRK hit. */
static void kpo_regs_as_on_breakpoint(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);
	struct pt_regs trapped, detoured;
	int i;

	/* A post_handler keeps the point on its BRK. */
	kp.post_handler = kpo_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpo_filled_hit(kpo_target), 0x123bL);
	trapped = kpo.regs;
	unregister_kprobe(&kp);

	kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_filled_hit(kpo_target), 0x123bL);
	detoured = kpo.regs;
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 1);
	for (i = 0; i < 31; i++)
		KUNIT_EXPECT_EQ_MSG(test, detoured.regs[i], trapped.regs[i],
				    "x%d", i);
	KUNIT_EXPECT_EQ(test, detoured.regs[0], 0x1234UL);
	KUNIT_EXPECT_EQ(test, detoured.regs[28], 0x1c1cUL);
	KUNIT_EXPECT_EQ(test, detoured.sp, trapped.sp);
	KUNIT_EXPECT_EQ(test, detoured.pc, trapped.pc);
	KUNIT_EXPECT_EQ(test, detoured.pc, (unsigned long)kp.addr);
	/*
	 * All of pstate, the fields only some CPUs have included (set by
	 * kpo_filled_hit()), but BTYPE: it tells how the BRK was reached,
	 * not what the code may do.
	 */
	KUNIT_EXPECT_EQ(test, detoured.pstate & ~PSR_BTYPE_MASK,
			trapped.pstate & ~PSR_BTYPE_MASK);
	KUNIT_EXPECT_EQ(test, detoured.pstate & PSR_Z_BIT, (u64)PSR_Z_BIT);
	/* The kernel's own exception level: EL2 with VHE */
	KUNIT_EXPECT_EQ(test, detoured.pstate & PSR_MODE_MASK,
			is_kernel_in_hyp_mode() ? (u64)PSR_MODE_EL2h :
						  (u64)PSR_MODE_EL1h);
	KUNIT_EXPECT_EQ(test, detoured.pstate & kpo_pstate_present(),
			kpo_pstate_present());
	KUNIT_EXPECT_EQ(test, kpo.pstate_after, kpo_pstate_present());
	/* With pseudo-NMIs, from the PMR the probed code had */
	KUNIT_EXPECT_EQ(test, interrupts_enabled(&detoured),
			interrupts_enabled(&trapped));
	KUNIT_EXPECT_TRUE(test, interrupts_enabled(&detoured));
	if (system_uses_irq_prio_masking())
		KUNIT_EXPECT_EQ(test, detoured.pmr_save, trapped.pmr_save);
	/* The frame record an unwinder starts from, as exception entry makes */
	KUNIT_EXPECT_EQ(test, detoured.stackframe[0], trapped.stackframe[0]);
	KUNIT_EXPECT_EQ(test, detoured.stackframe[1], trapped.stackframe[1]);
}

/* A pre_handler may redirect an optimized hit: return -a to the caller. */
static int kpo_pre_redirect(struct kprobe *p, struct pt_regs *regs)
{
	kpo_pre(p, regs);
	regs->regs[0] = -regs->regs[0];
	instruction_pointer_set(regs, regs->regs[30]);
	return 1;
}

/* Run the replaced "sub sp" on @regs, and resume at the matching "add sp" */
static int kpo_pre_moves_sp(struct kprobe *p, struct pt_regs *regs)
{
	kpo_pre(p, regs);
	regs->regs[0] = -regs->regs[0];
	regs->sp -= 16;
	instruction_pointer_set(regs,
				(unsigned long)kpo_at(kpo_sp_frame, KPO_SP_POP));
	return 1;
}

/*
 * A redirect with a new SP resumes on it, with every register: x0 and x1,
 * which come back last, go into the result; the caller's survive.
 */
static void kpo_pre_handler_moves_sp(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_sp_frame);

	kp.pre_handler = kpo_pre_moves_sp;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	if (!kpo_optimized(&kp)) {
		KUNIT_FAIL(test, "not optimized");
		goto out;
	}
	KUNIT_EXPECT_EQ(test, kpo_sp_frame(5, 0), -5L);
	KUNIT_EXPECT_EQ(test, kpo_filled_hit(kpo_sp_frame), 0x5678L - 0x1234L);
	KUNIT_EXPECT_EQ(test, kpo.pstate_after, kpo_pstate_present());
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
out:
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpo_sp_frame(5, 3), 15L);
}

static void kpo_pre_handler_redirects(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);

	kp.pre_handler = kpo_pre_redirect;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_target(5, 0), -5L);
	KUNIT_EXPECT_EQ(test, kpo_target(6, 0), -6L);
	/* Every register comes back: the caller's are intact, and pstate. */
	KUNIT_EXPECT_EQ(test, kpo_filled_hit(kpo_target), -0x1234L);
	KUNIT_EXPECT_EQ(test, kpo.pstate_after, kpo_pstate_present());
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 3);
	KUNIT_EXPECT_EQ(test, kpo_target(5, 0), 12L);
}

/*
 * Each instruction that reads the PC, simulated on the detour's pt_regs
 * by the BRK path's simulation; those that do nothing (NOP, BTI C and
 * PRFM literal, simulated by moving the PC on the BRK path), which the
 * detour skips; and AUTIASP, which the detour runs
 */
struct kpo_sim {
	const char *name;
	kpo_asm_fn *fn;
	unsigned int offset;	/* of the probed instruction, in instructions */
	long a[2];		/* two calls, */
	long ret[2];		/* and what each returns */
};

static const struct kpo_sim kpo_sims[] = {
	{ "b", kpo_b, 0, { 0, 1 }, { 2, 2 } },
	{ "bl", kpo_bl, 1, { 0, 10 }, { 105, 115 } },
	{ "b.cond", kpo_bcond, 1, { 0, 5 }, { 1, 2 } },
	{ "cbz", kpo_cbz, 0, { 0, 5 }, { 2, 1 } },
	{ "cbnz", kpo_cbnz, 0, { 1L << 32, 5 }, { 1, 2 } },
	{ "tbz", kpo_tbz, 0, { 8, 4 }, { 1, 2 } },
	{ "tbnz", kpo_tbnz, 0, { 1L << 40, 1 }, { 2, 1 } },
	{ "adr", kpo_adr, 0, { 0, 0 }, { 4242, 4242 } },
	{ "adrp", kpo_adrp, 0, { 0, 0 }, { 4343, 4343 } },
	{ "ldr_literal", kpo_ldr_lit, 0, { 0, 0 },
	  { 0x123456789abcdef0L, 0x123456789abcdef0L } },
	{ "ldr_literal_w", kpo_ldr_lit32, 0, { 0, 0 },
	  { 0x89abcdefL, 0x89abcdefL } },
	{ "ldrsw_literal", kpo_ldrsw_lit, 0, { 0, 0 },
	  { -0x7ffffffbL, -0x7ffffffbL } },
	{ "prfm_literal", kpo_prfm_lit, 0, { 1, 2 }, { 2, 3 } },
	{ "nop", kpo_nop, 0, { 1, 2 }, { 2, 3 } },
#ifndef CONFIG_ARM64_BTI_KERNEL	/* else a landing pad: not optimized */
	{ "bti_c", kpo_bti_c, 0, { 1, 2 }, { 3, 4 } },
#endif
	{ "autiasp", kpo_autiasp, 1, { 1, 2 }, { 2, 3 } },
	{ "br", kpo_br, 1, { 1, 2 }, { 10, 11 } },
	{ "blr", kpo_blr, 2, { 1, 2 }, { 11, 12 } },
	{ "blr_x30", kpo_blr_x30, 2, { 1, 2 }, { 11, 12 } },
	{ "ldr_literal_xzr", kpo_ldr_xzr, 0, { 3, 4 }, { 3, 4 } },
	{ "ret", kpo_ret, 1, { 1, 2 }, { 4, 5 } },
};

static void kpo_sim_desc(const struct kpo_sim *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpo_sim, kpo_sims, kpo_sim_desc);

static void kpo_simulated_insn(struct kunit *test)
{
	const struct kpo_sim *r = test->param_value;
	struct kprobe kp = {
		.addr = kpo_at(r->fn, r->offset * AARCH64_INSN_SIZE),
		.pre_handler = kpo_pre,
	};
	int i;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, r->fn(r->a[i], 0), r->ret[i]);
	KUNIT_EXPECT_EQ(test, kpo.regs.pc, (unsigned long)kp.addr);
	KUNIT_EXPECT_EQ(test, kpo_point_hits(&kp, KPROBE_HIT_OPTIMIZED), 2UL);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
	/* And the same without the probe */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, r->fn(r->a[i], 0), r->ret[i]);
}

/* What a pre_handler on the target of kpo_bl's BL saw */
static struct pt_regs kpo_target_regs;

static int kpo_pre_target(struct kprobe *p, struct pt_regs *regs)
{
	kpo_target_regs = *regs;
	return 0;
}

/* Only there to keep the target's point on its BRK */
static void kpo_post_target(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
}

/* kpo_bl: the BL, and its target, in instructions */
#define KPO_BL_INSN	1
#define KPO_BL_TARGET	5

/*
 * The simulation in a detour is the BRK path's: a pre_handler sees the
 * same registers, and the BL leaves the same x30 and pc behind it, as
 * seen by the BRK path's post_handler and by a probe on its target.
 */
static void kpo_simulated_as_on_breakpoint(struct kunit *test)
{
	struct kprobe kp = {
		.addr = kpo_at(kpo_bl, KPO_BL_INSN * AARCH64_INSN_SIZE),
		.pre_handler = kpo_pre,
		.post_handler = kpo_post,
	};
	struct kprobe target = {
		.addr = kpo_at(kpo_bl, KPO_BL_TARGET * AARCH64_INSN_SIZE),
		.pre_handler = kpo_pre_target,
		.post_handler = kpo_post_target,
	};
	unsigned long ret_addr = (unsigned long)kp.addr + AARCH64_INSN_SIZE;
	/* Four of them do not fit a frame with KASAN's redzones. */
	struct {
		struct pt_regs trapped, trapped_at, detoured, detoured_at;
	} *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	memset(&kpo_target_regs, 0, sizeof(kpo_target_regs));
	KUNIT_ASSERT_EQ(test, register_kprobe(&target), 0);

	/* A post_handler keeps the BL on its BRK. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpo_filled_hit(kpo_bl), 0x1234L + 105);
	KUNIT_EXPECT_EQ(test, kpo_point_hits(&kp, KPROBE_HIT_EMULATED), 1UL);
	r->trapped = kpo.regs;
	r->trapped_at = kpo_target_regs;
	KUNIT_EXPECT_EQ(test, kpo.post_regs.regs[30], ret_addr);
	KUNIT_EXPECT_EQ(test, kpo.post_regs.pc, (unsigned long)target.addr);
	unregister_kprobe(&kp);

	kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	memset(&kpo_target_regs, 0, sizeof(kpo_target_regs));
	KUNIT_EXPECT_EQ(test, kpo_filled_hit(kpo_bl), 0x1234L + 105);
	KUNIT_EXPECT_EQ(test, kpo_point_hits(&kp, KPROBE_HIT_OPTIMIZED), 1UL);
	r->detoured = kpo.regs;
	r->detoured_at = kpo_target_regs;
	unregister_kprobe(&kp);
	unregister_kprobe(&target);

	/* One BRK hit on the BL, one detoured; two BRK hits on the target */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.post_hits), 1);

	/* Before the BL: what the pre_handler sees */
	for (i = 0; i < 31; i++)
		KUNIT_EXPECT_EQ_MSG(test, r->detoured.regs[i], r->trapped.regs[i],
				    "x%d", i);
	KUNIT_EXPECT_EQ(test, r->detoured.sp, r->trapped.sp);
	KUNIT_EXPECT_EQ(test, r->detoured.pc, r->trapped.pc);
	KUNIT_EXPECT_EQ(test, r->detoured.pc, (unsigned long)kp.addr);
	KUNIT_EXPECT_EQ(test, r->detoured.pstate & ~PSR_BTYPE_MASK,
			r->trapped.pstate & ~PSR_BTYPE_MASK);
	KUNIT_EXPECT_EQ(test, r->detoured.pstate & kpo_pstate_present(),
			kpo_pstate_present());

	/* Behind it: where the simulation left the CPU, ERET and all */
	for (i = 0; i < 31; i++)
		KUNIT_EXPECT_EQ_MSG(test, r->detoured_at.regs[i],
				    r->trapped_at.regs[i], "x%d", i);
	KUNIT_EXPECT_EQ(test, r->detoured_at.regs[30], ret_addr);
	KUNIT_EXPECT_EQ(test, r->detoured_at.pc, r->trapped_at.pc);
	KUNIT_EXPECT_EQ(test, r->detoured_at.pc, (unsigned long)target.addr);
	KUNIT_EXPECT_EQ(test, r->detoured_at.sp, r->trapped_at.sp);
	KUNIT_EXPECT_EQ(test, r->detoured_at.pstate & ~PSR_BTYPE_MASK,
			r->trapped_at.pstate & ~PSR_BTYPE_MASK);
	KUNIT_EXPECT_EQ(test, r->detoured_at.pstate & kpo_pstate_present(),
			kpo_pstate_present());
	KUNIT_EXPECT_EQ(test, kpo.pstate_after, kpo_pstate_present());
}

static void kpo_pstate_field_desc(const struct kpo_pstate_field *f,
				  char *desc)
{
	strscpy(desc, f->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpo_pstate_field, kpo_pstate_fields, kpo_pstate_field_desc);

/*
 * A PSTATE field the probed code set is what the pre_handler sees, and
 * is still set behind a simulated instruction, which a detour leaves
 * with ERET, as behind a BRK hit.
 */
static void kpo_pstate_kept_on_eret(struct kunit *test)
{
	const struct kpo_pstate_field *f = test->param_value;
	struct kprobe kp = {
		.addr = kpo_at(f->fn, KPO_PSTATE_PROBE * AARCH64_INSN_SIZE),
		.pre_handler = kpo_pre,
	};
	long ret;

	if (!f->present())
		kunit_skip(test, "the system does not have %s", f->name);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&kp));
	/* The field is not switched with the task */
	preempt_disable();
	ret = f->fn(0, 0);
	preempt_enable();
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
	KUNIT_EXPECT_EQ(test, kpo.regs.pstate & f->bit, f->bit);
	KUNIT_EXPECT_EQ(test, (u64)ret, f->bit);
	/* And without the probe */
	preempt_disable();
	ret = f->fn(0, 0);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, (u64)ret, f->bit);
}

/* A probe on the next instruction is outside the region: both jump. */
static void kpo_adjacent_points(struct kunit *test)
{
	struct kprobe first = KPO_KPROBE(kpo_target);
	struct kprobe second = { .addr = kpo_at(kpo_target, KPO_PROBE +
						AARCH64_INSN_SIZE), /* the mov */
				 .pre_handler = kpo_pre };

	KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
	KUNIT_ASSERT_TRUE(test, kpo_optimized(&first));
	KUNIT_ASSERT_EQ(test, register_kprobe(&second), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&first));
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&second));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	unregister_kprobe(&second);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&first));
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	unregister_kprobe(&first);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), 0);
}

/*
 * With every detour of the kernel image taken, the next point stays a
 * BRK probe, refused with KPROBE_OPT_NO_DETOUR, and works as one.
 */
static void kpo_no_detour(struct kunit *test)
{
	struct kprobe *kps, **ptrs;
	int i, optimized = 0, no_detour = 0;

	/* A module's text takes its detours elsewhere, without this limit */
	if (IS_MODULE(CONFIG_KPROBES_SANITY_TEST))
		kunit_skip(test, "the image's detours serve the kernel's text only");
	kps = kunit_kcalloc(test, KPO_SLED_LEN, sizeof(*kps), GFP_KERNEL);
	ptrs = kunit_kcalloc(test, KPO_SLED_LEN, sizeof(*ptrs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	KUNIT_ASSERT_NOT_NULL(test, ptrs);
	for (i = 0; i < KPO_SLED_LEN; i++) {
		kps[i].addr = kpo_at(kpo_sled, i * AARCH64_INSN_SIZE);
		kps[i].pre_handler = kpo_pre;
		ptrs[i] = &kps[i];
	}
	KUNIT_ASSERT_EQ(test, register_kprobes(ptrs, KPO_SLED_LEN), 0);
	wait_for_kprobe_optimizer();
	for (i = 0; i < KPO_SLED_LEN; i++) {
		if (kprobe_optimized(&kps[i]))
			optimized++;
		else if (kps[i].point->opt_refused == KPROBE_OPT_NO_DETOUR)
			no_detour++;
	}
	KUNIT_EXPECT_LE(test, optimized, KPROBE_OPT_IMAGE_DETOURS);
	KUNIT_EXPECT_GE(test, no_detour, KPO_SLED_LEN - KPROBE_OPT_IMAGE_DETOURS);
	KUNIT_EXPECT_EQ(test, optimized + no_detour, KPO_SLED_LEN);
	KUNIT_EXPECT_EQ(test, kpo_sled(7, 0), 7L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), KPO_SLED_LEN);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.trapped), no_detour);
	unregister_kprobes(ptrs, KPO_SLED_LEN);
	/*
	 * Give the detours back before the next case needs one: a point
	 * goes after an RCU-tasks grace period, from a work item.
	 */
	if (IS_ENABLED(CONFIG_TASKS_RCU))
		rcu_barrier_tasks();
	else
		rcu_barrier();
	flush_scheduled_work();
	kunit_info(test, "%d optimized, %d without a detour\n", optimized,
		   no_detour);
}
#endif /* CONFIG_ARM64 */

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
#ifdef CONFIG_X86_64
	{ "crosses_function", kpo_short, KPO_SHORT_PROBE,
	  KPROBE_OPT_CROSSES_FUNCTION },
	{ "call", kpo_call, KPO_PROBE, KPROBE_OPT_UNRELOCATABLE },
	{ "extable_entry", kpo_extable, KPO_PROBE, KPROBE_OPT_EXTABLE },
	{ "fixup_lands_inside", kpo_fixup_into, KPO_PROBE, KPROBE_OPT_EXTABLE },
	{ "jump_into_region", kpo_jump_into, KPO_PROBE, KPROBE_OPT_JUMP_INTO },
	{ "indirect_jump", kpo_indirect, KPO_PROBE, KPROBE_OPT_INDIRECT_JUMP },
	{ "jump_label_site", kpo_jump_label, KPO_PROBE, KPROBE_OPT_RESERVED },
	{ "int3", kpo_int3, KPO_PROBE, KPROBE_OPT_UNRELOCATABLE, true },
	{ "ud2", kpo_ud2, KPO_PROBE, KPROBE_OPT_UNRELOCATABLE, true },
	{ "bug_site", KPO_WARN, KPO_PROBE, KPROBE_OPT_RESERVED, true },
	{ "static_call_site", KPO_STATIC_CALL, KPO_PROBE, KPROBE_OPT_RESERVED,
	  true },
	{ "alternatives_site", KPO_ALTERNATIVE, KPO_PROBE, KPROBE_OPT_RESERVED,
	  true },
	/* Served by ftrace: never looked at by the optimizer */
	{ "ftrace_site", KPO_FENTRY, KPO_PROBE, KPROBE_OPT_UNTRIED, true },
#endif
#ifdef CONFIG_ARM64
	{ "extable_entry", kpo_extable, KPO_PROBE, KPROBE_OPT_EXTABLE },
#endif
	/* Only the kernel's own .cpuidle.text is the idle loop's */
	{ "idle_text", KPT_BUILTIN ? kpo_idle : NULL, KPO_PROBE,
	  KPROBE_OPT_IDLE, true },
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

#ifdef CONFIG_X86_64
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
#endif

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

/* Points registered together are optimized in one batch, and unoptimized in one. */
static void kpo_batch(struct kunit *test)
{
	struct kprobe a = KPO_KPROBE(kpo_target), b = KPO_KPROBE(kpo_target2);
	struct kprobe *kps[] = { &a, &b };
	unsigned long batches, removed;

	/* Nothing of an earlier case may still be on its way. */
	wait_for_kprobe_optimizer();
	batches = kprobe_opt_batches(false);
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&a));
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&b));
	/* Both jumps in one batch: one wait for grace periods, one patching */
	KUNIT_EXPECT_EQ(test, kprobe_opt_batches(false) - batches, 1UL);
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0) + kpo_target2(1, 0), 20L);
	removed = kprobe_opt_batches(true);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	/* And both go in one batch, not one per point */
	KUNIT_EXPECT_EQ(test, kprobe_opt_batches(true) - removed, 1UL);
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

/* Return: the threads, indexed by CPU, or NULL if there was no memory */
static struct task_struct **kpo_start_callers(struct kunit *test)
{
	atomic_set(&kpo_stop, 0);
	atomic_long_set(&kpo_calls, 0);
	atomic_set(&kpo_bad, 0);
	return kpt_start_per_cpu(test, kpo_caller, "kpo_caller/%u");
}

/*
 * Optimize, unoptimize, disable and enable in a loop while every CPU calls
 * the function: the probe that stays enabled counts every call.
 */
static void kpo_stress(struct kunit *test)
{
	struct kprobe counter = KPO_KPROBE(kpo_target);
	struct kprobe toggler = KPO_KPROBE(kpo_target);
	unsigned long deadline = jiffies + 3 * HZ;
	struct task_struct **workers;
	long calls_before, calls_after;
	int rounds = 0, hits, ret;
	bool toggler_registered;
	unsigned long flags;

	toggler.pre_handler = NULL;
	toggler.post_handler = kpo_post;
	toggler.flags = KPROBE_FLAG_DISABLED;
	workers = kpo_start_callers(test);
	KUNIT_ASSERT_NOT_NULL(test, workers);
	ret = register_kprobe(&toggler);
	toggler_registered = !ret;
	while (!ret && time_before(jiffies, deadline) && rounds < 40) {
		ret = register_kprobe(&counter);
		if (ret)
			break;
		/*
		 * The count of calls and that of hits are read together:
		 * this task preempted between the two would see the calls
		 * of the other CPUs meanwhile on one side only.
		 */
		local_irq_save(flags);
		atomic_set(&kpo.hits, 0);
		calls_before = atomic_long_read(&kpo_calls);
		local_irq_restore(flags);
		/* Optimized, then not (post_handler), then again */
		KUNIT_EXPECT_TRUE(test, kpo_optimized(&counter));
		KUNIT_EXPECT_EQ(test, enable_kprobe(&toggler), 0);
		KUNIT_EXPECT_FALSE(test, kprobe_optimized(&counter));
		KUNIT_EXPECT_EQ(test, disable_kprobe(&toggler), 0);
		KUNIT_EXPECT_TRUE(test, kpo_optimized(&counter));
		/* Before the counter goes: calls go on while it is disabled. */
		local_irq_save(flags);
		hits = atomic_read(&kpo.hits);
		calls_after = atomic_long_read(&kpo_calls);
		local_irq_restore(flags);
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
	kpt_stop_per_cpu(workers, &kpo_stop);
	if (toggler_registered)
		unregister_kprobe(&toggler);
	KUNIT_EXPECT_EQ(test, ret, 0);
	kunit_info(test, "%d rounds, %ld calls\n", rounds,
		   atomic_long_read(&kpo_calls));
	KUNIT_EXPECT_GT(test, rounds, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_bad), 0);
}

/*
 * A pre_handler holds a CPU inside the detour while the point changes: the
 * change must wait for the hit in flight, and the hit must not see the
 * change half done.
 */
static atomic_t kpo_inside, kpo_changing, kpo_saw_change, kpo_left;
static atomic_t kpo_stop_at_leave, kpo_left_at_stop;

/*
 * Stays until the change has been under way for 100 ms (two seconds at
 * most), so that the change has to wait for it.  Nothing but the handler
 * itself may end the wait: on arm64 it runs with interrupts masked, and the
 * change waits for its CPU (kick_all_cpus_sync(), stop_machine(), RCU)
 * while it keeps the other CPUs busy.  Timed by the clocksource, not by
 * jiffies, which stand still meanwhile if this CPU is the one that
 * advances them; with its NMI-safe reader, as on a breakpoint hit the
 * handler runs in NMI context (x86).
 */
static int kpo_pre_linger(struct kprobe *p, struct pt_regs *regs)
{
	u64 now = ktime_get_mono_fast_ns(), deadline = now + 2 * NSEC_PER_SEC;
	u64 until = 0;

	kpo_pre(p, regs);
	atomic_set(&kpo_inside, 1);
	for (; now < deadline; now = ktime_get_mono_fast_ns()) {
		if (!until && atomic_read(&kpo_changing))
			until = now + 100 * NSEC_PER_MSEC;
		if (until && now >= until)
			break;
		cpu_relax();
	}
	atomic_set(&kpo_saw_change, !!until);
	atomic_set(&kpo_stop_at_leave, atomic_read(&kpo_stop));
	atomic_set(&kpo_left, 1);
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

/* What kpo_change_thread() does to the point, and what came of it */
struct kpo_change {
	int (*change)(struct kprobe *kp);
	struct kprobe *kp;
	int ret;
};

/* Once the caller is inside the handler (or after two seconds), changes. */
static int kpo_change_thread(void *data)
{
	u64 deadline = ktime_get_ns() + 2 * NSEC_PER_SEC;
	struct kpo_change *c = data;

	/* Jiffies may stand still meanwhile (kpo_pre_linger()): no jiffy sleeps */
	while (!atomic_read(&kpo_inside) && ktime_get_ns() < deadline)
		usleep_range(1000, 2000);
	atomic_set(&kpo_changing, 1);
	c->ret = c->change(c->kp);
	atomic_set(&kpo_left_at_stop, atomic_read(&kpo_left));
	atomic_set(&kpo_stop, 1);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Registers @lingerer (optimized, kpo_pre_linger()) on kpo_target, has a
 * thread on another CPU call it once, and applies @c while that call
 * lingers in the detour.  Returns false, the test failed and nothing
 * left registered, if that could not be set up; else true, with @lingerer
 * registered unless @c unregistered it.
 */
static bool kpo_change_while_inside(struct kunit *test,
				    struct kprobe *lingerer,
				    struct kpo_change *c)
{
	struct task_struct *caller, *changer;
	unsigned int here, there;
	u64 deadline;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	lingerer->pre_handler = kpo_pre_linger;
	atomic_set(&kpo_inside, 0);
	atomic_set(&kpo_changing, 0);
	atomic_set(&kpo_saw_change, 0);
	atomic_set(&kpo_left, 0);
	atomic_set(&kpo_stop_at_leave, 0);
	atomic_set(&kpo_left_at_stop, 0);
	atomic_set(&kpo_stop, 0);
	atomic_set(&kpo_bad, 0);
	/*
	 * Each thread on a CPU of its own, made before anything lingers: a
	 * task queued on the CPU held in the handler would not run until the
	 * handler left (kthreadd making a thread, for one).
	 */
	here = get_cpu();
	put_cpu();
	there = cpumask_any_but(cpu_online_mask, here);
	changer = kthread_create(kpo_change_thread, c, "kpo_changer");
	if (IS_ERR(changer)) {
		KUNIT_FAIL(test, "no changer thread");
		return false;
	}
	kthread_bind(changer, here);
	caller = kthread_create(kpo_call_once, NULL, "kpo_inside");
	if (IS_ERR(caller)) {
		kthread_stop(changer);
		KUNIT_FAIL(test, "no caller thread");
		return false;
	}
	kthread_bind(caller, there);
	ret = register_kprobe(lingerer);
	if (ret || !kpo_optimized(lingerer)) {
		kthread_stop(caller);
		kthread_stop(changer);
		if (!ret)
			unregister_kprobe(lingerer);
		KUNIT_FAIL(test, "no optimized probe: %d", ret);
		return false;
	}
	wake_up_process(changer);
	wake_up_process(caller);
	/* Up to 2 s for the hit, then the change's grace periods */
	deadline = ktime_get_ns() + 30 * NSEC_PER_SEC;
	while (!atomic_read(&kpo_stop) && ktime_get_ns() < deadline)
		usleep_range(1000, 2000);
	/* The handler left because of the change, which then finished. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_inside), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_saw_change), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_stop_at_leave), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_left_at_stop), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_stop), 1);
	kthread_stop(changer);
	kthread_stop(caller);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_bad), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.hits), 1);
	return true;
}

static int kpo_unregister(struct kprobe *kp)
{
	unregister_kprobe(kp);
	return 0;
}

/* unregister_kprobe() does not return before the handler has left. */
static void kpo_unregister_while_inside(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);
	struct kpo_change c = { .change = kpo_unregister, .kp = &kp };

	kpo_change_while_inside(test, &kp, &c);
}

static atomic_t kpo_first_hits, kpo_joiner_pre_hits;

static int kpo_first_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpo_first_hits);
	return 0;
}

static int kpo_joiner_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpo_joiner_pre_hits);
	return 0;
}

/*
 * A kprobe with a post_handler joins the point while a hit is in its
 * detour, walking the point's list (two kprobes: a point with one calls
 * it directly): the hit, which runs no post_handler, must not run the
 * joiner's pre_handler either.  The next hit runs both, on the breakpoint
 * (and lingers its 100 ms again).
 */
static void kpo_post_handler_joins_while_inside(struct kunit *test)
{
	struct kprobe first = KPO_KPROBE(kpo_target);
	struct kprobe kp = KPO_KPROBE(kpo_target);
	struct kprobe joiner = KPO_KPROBE(kpo_target);
	struct kpo_change c = { .change = register_kprobe, .kp = &joiner };

	first.pre_handler = kpo_first_pre;
	joiner.pre_handler = kpo_joiner_pre;
	joiner.post_handler = kpo_post;
	atomic_set(&kpo_first_hits, 0);
	atomic_set(&kpo_joiner_pre_hits, 0);
	/* Before @first: kunit_skip() would leave it registered */
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
	if (!kpo_change_while_inside(test, &kp, &c)) {
		unregister_kprobe(&first);
		return;
	}
	KUNIT_EXPECT_EQ(test, c.ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_first_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_joiner_pre_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.post_hits), 0);
	if (!c.ret) {
		KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
		KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpo_joiner_pre_hits), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpo.post_hits), 1);
		unregister_kprobe(&joiner);
	}
	unregister_kprobe(&kp);
	unregister_kprobe(&first);
}

/*
 * Registers @kp, optimized, then disables it: the jump goes without a
 * wait, and tasks may still be in the detour (opt_vacating).  Returns
 * false, the test failed and @kp unregistered, if it was not optimized.
 */
static bool kpo_vacated(struct kunit *test, struct kprobe *kp)
{
	if (register_kprobe(kp)) {
		KUNIT_FAIL(test, "not registered");
		return false;
	}
	KUNIT_EXPECT_FALSE(test, kp->point->opt_vacating);
	if (!kpo_optimized(kp)) {
		unregister_kprobe(kp);
		KUNIT_FAIL(test, "not optimized");
		return false;
	}
	KUNIT_EXPECT_EQ(test, disable_kprobe(kp), 0);
	KUNIT_EXPECT_TRUE(test, kp->point->opt_vacating);
	return true;
}

/*
 * A task preempted between a jump and its detour's handlers may still be
 * there after the jump went without a wait (a disable): a kprobe with a
 * post_handler that joins later waits for it, and only then.
 */
static void kpo_post_handler_waits_for_vacating_detour(struct kunit *test)
{
	struct kprobe kp = KPO_KPROBE(kpo_target);
	struct kprobe joiner = KPO_KPROBE(kpo_target);
	struct kprobe plain = KPO_KPROBE(kpo_target);

	joiner.post_handler = kpo_post;
	if (!kpo_vacated(test, &kp))
		return;
	/* A kprobe without a post_handler does not wait. */
	KUNIT_EXPECT_EQ(test, register_kprobe(&plain), 0);
	KUNIT_EXPECT_TRUE(test, kp.point->opt_vacating);
	KUNIT_EXPECT_EQ(test, register_kprobe(&joiner), 0);
	KUNIT_EXPECT_FALSE(test, kp.point->opt_vacating);
	KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo.post_hits), 1);
	unregister_kprobe(&joiner);
	unregister_kprobe(&plain);
	unregister_kprobe(&kp);
}

static struct kprobe *kpo_pair[2];

/* @kp and a second kprobe with a post_handler, on another point */
static int kpo_register_pair(struct kprobe *kp)
{
	return register_kprobes(kpo_pair, ARRAY_SIZE(kpo_pair));
}

static void kpo_unregister_pair(struct kprobe *kp)
{
	unregister_kprobes(kpo_pair, ARRAY_SIZE(kpo_pair));
}

/* A registration that must wait for the tasks of one or two detours */
struct kpo_joining {
	const char *name;
	int (*join)(struct kprobe *kp);
	void (*leave)(struct kprobe *kp);
	bool pair;
};

static const struct kpo_joining kpo_joinings[] = {
	{ "register_kprobe", register_kprobe, unregister_kprobe, false },
	{ "register_kprobes", kpo_register_pair, kpo_unregister_pair, true },
};

static void kpo_joining_desc(const struct kpo_joining *j, char *desc)
{
	strscpy(desc, j->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpo_joining, kpo_joinings, kpo_joining_desc);

static int kpo_register_thread(void *data)
{
	struct kpo_change *c = data;

	c->ret = c->change(c->kp);
	atomic_set(&kpo_stop, 1);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Are the addresses of the kprobes @j registers held, kprobe_mutex free? */
static bool kpo_joining_held(const struct kpo_joining *j, struct kprobe *kp,
			     struct kprobe *kp2)
{
	return kprobe_opt_hold_seen(kp->addr) &&
	       (!j->pair || kprobe_opt_hold_seen(kp2->addr));
}

/*
 * The same wait, for kprobes that register_kprobe() registers, or
 * register_kprobes() on two points (one wait for both), leaves
 * kprobe_mutex free: this thread holds the wait open with an RCU
 * read-side critical section, and takes the mutex meanwhile.
 */
static void kpo_post_handler_waits_without_mutex(struct kunit *test)
{
	const struct kpo_joining *j = test->param_value;
	struct kprobe kp = KPO_KPROBE(kpo_target);
	struct kprobe kp2 = KPO_KPROBE(kpo_target2);
	struct kprobe joiner = KPO_KPROBE(kpo_target);
	struct kprobe second = KPO_KPROBE(kpo_target2);
	struct kpo_change c = { .change = j->join, .kp = &joiner };
	struct task_struct *thread;
	bool held_while_free = false;
	int joined_early;
	u64 deadline;

	joiner.post_handler = kpo_post;
	second.post_handler = kpo_post;
	kpo_pair[0] = &joiner;
	kpo_pair[1] = &second;
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	if (!kpo_vacated(test, &kp))
		return;
	if (j->pair && !kpo_vacated(test, &kp2)) {
		unregister_kprobe(&kp);
		return;
	}
	atomic_set(&kpo_stop, 0);
	thread = kthread_create(kpo_register_thread, &c, "kpo_joiner");
	if (IS_ERR(thread)) {
		KUNIT_FAIL(test, "no thread");
		goto out;
	}
	kthread_bind(thread, cpumask_any_but(cpu_online_mask,
					     raw_smp_processor_id()));
	/* No sleep in here: the deadline is the clock's */
	rcu_read_lock();
	wake_up_process(thread);
	deadline = ktime_get_ns() + 2 * NSEC_PER_SEC;
	while (!held_while_free && ktime_get_ns() < deadline) {
		held_while_free = kpo_joining_held(j, &kp, &kp2);
		cpu_relax();
	}
	joined_early = atomic_read(&kpo_stop);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, held_while_free);
	KUNIT_EXPECT_EQ(test, joined_early, 0);
	deadline = ktime_get_ns() + 30 * NSEC_PER_SEC;
	while (!atomic_read(&kpo_stop) && ktime_get_ns() < deadline)
		usleep_range(1000, 2000);
	kthread_stop(thread);
	KUNIT_EXPECT_EQ(test, c.ret, 0);
	KUNIT_EXPECT_FALSE(test, kp.point->opt_vacating);
	if (j->pair)
		KUNIT_EXPECT_FALSE(test, kp2.point->opt_vacating);
	if (!c.ret) {
		KUNIT_EXPECT_EQ(test, kpo_target(1, 0), 8L);
		if (j->pair)
			KUNIT_EXPECT_EQ(test, kpo_target2(1, 0), 12L);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpo.post_hits),
				j->pair ? 2 : 1);
		j->leave(&joiner);
	}
out:
	if (j->pair)
		unregister_kprobe(&kp2);
	unregister_kprobe(&kp);
}

static struct kunit_case kpo_cases[] = {
	KUNIT_CASE(kpo_hit_takes_no_exception),
	KUNIT_CASE(kpo_handler_faults_fail),
	KUNIT_CASE(kpo_text_is_jump_to_detour),
	KUNIT_CASE(kpo_regs_as_on_breakpoint),
	KUNIT_CASE(kpo_pre_handler_redirects),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kpo_relocated_region),
	KUNIT_CASE(kpo_handlers_run_with_df_clear),
	KUNIT_CASE(kpo_pre_handler_pushes),
#endif
#ifdef CONFIG_ARM64
	KUNIT_CASE(kpo_pre_handler_moves_sp),
	KUNIT_CASE_PARAM(kpo_simulated_insn, kpo_sim_gen_params),
	KUNIT_CASE(kpo_simulated_as_on_breakpoint),
	KUNIT_CASE_PARAM(kpo_pstate_kept_on_eret, kpo_pstate_field_gen_params),
#endif
	KUNIT_CASE_PARAM(kpo_refused, kpo_refusal_gen_params),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kpo_probe_inside_region),
#endif
#ifdef CONFIG_ARM64
	KUNIT_CASE(kpo_adjacent_points),
	KUNIT_CASE(kpo_no_detour),
#endif
	KUNIT_CASE(kpo_post_handler_unoptimizes),
	KUNIT_CASE(kpo_disable_enable),
	KUNIT_CASE(kpo_batch),
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(kpo_kretprobe_optimized_entry),
#endif
	KUNIT_CASE(kpo_stress),
	KUNIT_CASE(kpo_unregister_while_inside),
	KUNIT_CASE(kpo_post_handler_joins_while_inside),
	KUNIT_CASE(kpo_post_handler_waits_for_vacating_detour),
	KUNIT_CASE_PARAM(kpo_post_handler_waits_without_mutex,
			 kpo_joining_gen_params),
	{}
};

static struct kunit_suite kpo_suite = {
	.name = "kprobes_optimizer_test",
	.init = kpo_init,
	.test_cases = kpo_cases,
};

kunit_test_suites(&kpo_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for kprobes jump optimization");
MODULE_LICENSE("GPL");
