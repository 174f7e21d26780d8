// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kretprobes.
 *
 * As test_kprobes.c: each case checks one behaviour, on noinline functions
 * of this file that nothing else calls; concurrency tests run against a
 * deadline.  Built as a module, the cases that need what is not exported
 * (stack_trace_save_regs(), on x86 the instruction decoder) skip.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/stacktrace.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "test_kprobes.h"

static struct {
	atomic_t entries;
	atomic_t returns;
	atomic_t bad_values;
	atomic_t order;			/* handler call sequence, for nesting */
	int first_return;		/* which handler returned first */
	unsigned long ret_addr;		/* as recorded at entry */
	bool trace_has_ret_addr;
	bool trace_has_outer_ret_addr;
	bool trace_has_trampoline;
	bool regs_trace_starts_at_ret;
	unsigned long outer_ret_addr;
	int pre_hits;			/* of a kprobe beside the kretprobe */
	int post_hits;
} kpt_rp;

static noinline __noipa int kpt_rp_target(int a)
{
	return a * 3 + 1;
}

static noinline __noipa int kpt_rp_caller(int a)
{
	return kpt_rp_target(a) + 1;
}

static noinline __noipa int kpt_rp_recursive(int n)
{
	int r = 0;

	if (n)
		r = kpt_rp_recursive(n - 1) + 2;
	/* Keeps the compiler from turning the recursion into a loop */
	barrier_data(&r);
	return r;
}

static int kpt_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpt_rp.entries);
	return 0;
}

static int kpt_rp_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpt_rp.returns);
	return 0;
}

static int kpt_rp_init(struct kunit *test)
{
	memset(&kpt_rp, 0, sizeof(kpt_rp));
	return 0;
}

#define KPT_KRETPROBE(fn, h)	{ .kp.addr = (kprobe_opcode_t *)(fn),	\
				  .entry_handler = kpt_rp_entry,	\
				  .handler = (h) }

static int kpt_rp_check_value(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	int arg = *(int *)ri->data;

	if (regs_return_value(regs) != arg * 3 + 1)
		atomic_inc(&kpt_rp.bad_values);
	if (instruction_pointer(regs) != get_kretprobe_retaddr(ri))
		atomic_inc(&kpt_rp.bad_values);
	if (preemptible())
		atomic_inc(&kpt_rp.bad_values);
	return kpt_rp_return(ri, regs);
}

static int kpt_rp_save_arg(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(int *)ri->data = (int)regs_get_kernel_argument(regs, 0);
	return kpt_rp_entry(ri, regs);
}

static void kpt_kretprobe_return_value(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpt_rp_target,
		.entry_handler = kpt_rp_save_arg,
		.handler = kpt_rp_check_value,
		.data_size = sizeof(int),
	};
	int i;

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, kpt_rp_target(i), i * 3 + 1);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.entries), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

static int kpt_rp_entry_refuses(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	atomic_inc(&kpt_rp.entries);
	return 1;
}

static void kpt_kretprobe_entry_handler_skips(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpt_rp_target,
		.entry_handler = kpt_rp_entry_refuses,
		.handler = kpt_rp_return,
		.maxactive = 1,
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(1), 4);
	/* The refused instance went back: the single one is free again. */
	KUNIT_EXPECT_EQ(test, kpt_rp_target(2), 7);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.entries), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 0);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

static void kpt_kretprobe_bad_registrations(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);
	unsigned int off = kpt_second_insn_offset(kpt_rp_target);

	KUNIT_EXPECT_EQ(test, register_kretprobe(NULL), -EINVAL);
	rp.data_size = KRETPROBE_MAX_DATA_SIZE + 1;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -E2BIG);
	rp.data_size = 0;
	/* Not a function entry */
	rp.kp.addr = NULL;
	rp.kp.symbol_name = "kpt_rp_target";
	rp.kp.offset = off;
	if (KPT_HAVE_DECODER)
		KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	rp.kp.symbol_name = "kpt_no_such_symbol_anywhere";
	rp.kp.offset = 0;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -ENOENT);
	/* Registered twice */
	rp.kp.symbol_name = "kpt_rp_target";
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(1), 4);
	unregister_kretprobe(&rp);
	unregister_kretprobe(&rp);
	unregister_kretprobe(NULL);
	unregister_kretprobes(NULL, 2);
	KUNIT_EXPECT_EQ(test, register_kretprobes(NULL, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 1);
}

static void kpt_kretprobe_default_maxactive(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);

	/* 6.1 callers read the default back, e.g. for their own accounting. */
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, rp.maxactive,
			max_t(int, 10, 2 * num_possible_cpus()));
	unregister_kretprobe(&rp);
}

static void kpt_kretprobe_large_maxactive(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);

	/* Far above what kprobe_events allows, and still fine here */
	rp.maxactive = 20000;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(1), 4);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 1);
	/* More than memory can hold: a quiet -ENOMEM, no allocation splat */
	rp.maxactive = INT_MAX;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -ENOMEM);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(1), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 1);
}

/*
 * Functions that return on another task than they were entered on, or
 * twice from one call
 */
static const char * const kpt_task_switch_symbols[] = {
	"__switch_to",
#ifdef CONFIG_X86
	"__switch_to_asm",
#endif
#ifdef CONFIG_ARM64
	"cpu_switch_to",
#ifdef CONFIG_CPU_PM
	"__cpu_suspend_enter",
#endif
#endif
};

KUNIT_ARRAY_PARAM(kpt_task_switch, kpt_task_switch_symbols, kpt_name_desc);

static void kpt_kretprobe_refuses_task_switch(struct kunit *test)
{
	const char * const *sym = test->param_value;
	struct kretprobe rp = {
		.kp.symbol_name = *sym,
		.handler = kpt_rp_return,
	};

	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	KUNIT_EXPECT_NULL(test, rp.pool);
}

/* As kpt_unregister_twice_and_stranger(), for kretprobes and their pools */
static void kpt_kretprobe_unregister_twice_and_stranger(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);
	struct kretprobe stranger;
	struct kretprobe *rps[] = { &rp, &stranger, &rp };

	memset(&stranger, 0x6b, sizeof(stranger));
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	stranger.kp.flags = rp.kp.flags | 0xffff0000;
	KUNIT_EXPECT_EQ(test, kpt_rp_target(1), 4);
	unregister_kretprobes(rps, ARRAY_SIZE(rps));
	KUNIT_EXPECT_NULL(test, rp.pool);
	KUNIT_EXPECT_NULL(test, stranger.kp.addr);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(1), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 1);
}

/* Its entry probe is not a kprobe to unregister alone: the pool would leak. */
static void kpt_kretprobe_not_unregistered_as_kprobe(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	unregister_kprobe(&rp.kp);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(1), 4);
	KUNIT_EXPECT_NOT_NULL(test, rp.pool);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_NULL(test, rp.pool);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(1), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 1);
}

static void kpt_kretprobe_disable_enable(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&rp), 0);
	kpt_rp_target(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 0);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&rp), 0);
	kpt_rp_target(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 1);
	unregister_kretprobe(&rp);
}

static void kpt_kretprobe_batch_rollback(struct kunit *test)
{
	struct kretprobe a = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);
	struct kretprobe b = KPT_KRETPROBE(kpt_rp_recursive, kpt_rp_return);
	struct kretprobe bad = { .kp.symbol_name = "kpt_rp_target",
				 .kp.offset = 1 };
	struct kretprobe *rps[] = { &a, &b, &bad };

	KUNIT_EXPECT_NE(test, register_kretprobes(rps, ARRAY_SIZE(rps)), 0);
	kpt_rp_target(1);
	kpt_rp_recursive(0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobes(rps, 2), 0);
	kpt_rp_target(1);
	kpt_rp_recursive(0);
	unregister_kretprobes(rps, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 2);
}

static void kpt_kretprobe_recursion(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_recursive, kpt_rp_return);

	rp.maxactive = 20;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_recursive(9), 18);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.entries), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 10);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

static void kpt_kretprobe_recursion_exhausts(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_recursive, kpt_rp_return);

	rp.maxactive = 3;
	rp.maxactive_limit = -1;	/* never grows */
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_recursive(9), 18);
	unregister_kretprobe(&rp);
	/* The three outermost calls are tracked, the seven deeper are not. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 3);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 7);
}

static int kpt_rp_inner_return(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	if (!kpt_rp.first_return)
		kpt_rp.first_return = 1;
	return kpt_rp_return(ri, regs);
}

static int kpt_rp_outer_return(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	if (!kpt_rp.first_return)
		kpt_rp.first_return = 2;
	if (regs_return_value(regs) != 3 * 3 + 2)
		atomic_inc(&kpt_rp.bad_values);
	return kpt_rp_return(ri, regs);
}

static void kpt_kretprobe_nested(struct kunit *test)
{
	struct kretprobe inner = KPT_KRETPROBE(kpt_rp_target, kpt_rp_inner_return);
	struct kretprobe outer = KPT_KRETPROBE(kpt_rp_caller, kpt_rp_outer_return);

	KUNIT_ASSERT_EQ(test, register_kretprobe(&inner), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&outer), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_caller(3), 11);
	unregister_kretprobe(&outer);
	unregister_kretprobe(&inner);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 2);
	KUNIT_EXPECT_EQ(test, kpt_rp.first_return, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
}

static void kpt_kretprobe_two_on_one_function(struct kunit *test)
{
	struct kretprobe a = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);
	struct kretprobe b = {
		.kp.addr = (kprobe_opcode_t *)kpt_rp_target,
		.entry_handler = kpt_rp_save_arg,
		.handler = kpt_rp_check_value,
		.data_size = sizeof(int),
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_caller(4), 14);
	unregister_kretprobe(&a);
	KUNIT_EXPECT_EQ(test, kpt_rp_caller(5), 17);
	unregister_kretprobe(&b);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.entries), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
}

#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
/*
 * Another return hook between two kretprobes of one frame, as the function
 * graph tracer puts there: kpt_rp_tail() tail-calls kpt_rp_tail_target(),
 * whose return address is then already the trampoline (kpt_rp_tail()'s
 * kretprobe).  A kprobe on the target, which runs before the target's own
 * kretprobe, sends that return to kpt_rp_hook, which counts and goes on to
 * what it found there.  So the target returns to the trampoline (its
 * kretprobe), that to the hook, the hook to the trampoline again
 * (kpt_rp_tail()'s kretprobe), and that to the caller.
 */
asmlinkage long kpt_rp_tail(long a);
asmlinkage long kpt_rp_tail_target(long a);
asmlinkage void kpt_rp_hook(void);
static unsigned long kpt_rp_hook_calls __used;
static unsigned long kpt_rp_hook_ret __used;

#ifdef CONFIG_X86_64
asm(".pushsection .text\n"
	".type kpt_rp_tail, @function\n"
	"kpt_rp_tail:\n"
	"	.byte 0xf3, 0x0f, 0x1e, 0xfa\n"		/* endbr64 */
	"	jmp kpt_rp_tail_target\n"
	".size kpt_rp_tail, .-kpt_rp_tail\n"
	".type kpt_rp_hook, @function\n"
	"kpt_rp_hook:\n"
	ANNOTATE_NOENDBR	/* reached by a ret */
	"	incq kpt_rp_hook_calls(%rip)\n"
	"	pushq kpt_rp_hook_ret(%rip)\n"
	"	ret\n"
	".size kpt_rp_hook, .-kpt_rp_hook\n"
	".popsection\n"
	/* A tail call and a return to a pushed address, on purpose */
	".pushsection .discard.func_stack_frame_non_standard, \"aw\"\n"
	".quad kpt_rp_tail\n"
	".quad kpt_rp_hook\n"
	".popsection\n");

static unsigned long *kpt_rp_ret_slot(struct pt_regs *regs)
{
	return (unsigned long *)regs->sp;
}
#else
asm(".pushsection .text\n"
	".type kpt_rp_tail, %function\n"
	"kpt_rp_tail:\n"
	"	b kpt_rp_tail_target\n"
	".size kpt_rp_tail, .-kpt_rp_tail\n"
	".type kpt_rp_hook, %function\n"
	"kpt_rp_hook:\n"
	"	adrp x16, kpt_rp_hook_calls\n"
	"	ldr x17, [x16, :lo12:kpt_rp_hook_calls]\n"
	"	add x17, x17, #1\n"
	"	str x17, [x16, :lo12:kpt_rp_hook_calls]\n"
	"	adrp x16, kpt_rp_hook_ret\n"
	"	ldr x30, [x16, :lo12:kpt_rp_hook_ret]\n"
	"	ret\n"
	".size kpt_rp_hook, .-kpt_rp_hook\n"
	".popsection\n");

static unsigned long *kpt_rp_ret_slot(struct pt_regs *regs)
{
	return (unsigned long *)&regs->regs[30];
}
#endif

asmlinkage __visible noinline __noipa long kpt_rp_tail_target(long a)
{
	return a + 1;
}

static int kpt_rp_hook_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long *slot = kpt_rp_ret_slot(regs);

	kpt_rp_hook_ret = *slot;
	*slot = (unsigned long)kpt_rp_hook;
	return 0;
}

/* Which return handler ran, in order: 1 for the target's, 2 for the tail's */
static int kpt_rp_seq_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	int n = atomic_inc_return(&kpt_rp.order);

	if (regs_return_value(regs) != 6)
		atomic_inc(&kpt_rp.bad_values);
	if (n == 1)
		kpt_rp.first_return = READ_ONCE(kpt_rp_hook_calls) ? -1 : 1;
	else if (!READ_ONCE(kpt_rp_hook_calls))
		kpt_rp.first_return = -2;	/* the hook was skipped */
	atomic_inc(&kpt_rp.returns);
	return 0;
}

static void kpt_kretprobe_foreign_hook_between(struct kunit *test)
{
	struct kprobe hook = {
		.addr = (kprobe_opcode_t *)kpt_rp_tail_target,
		.pre_handler = kpt_rp_hook_pre,
	};
	struct kretprobe target = {
		.kp.addr = (kprobe_opcode_t *)kpt_rp_tail_target,
		.handler = kpt_rp_seq_return,
	};
	struct kretprobe tail = {
		.kp.addr = (kprobe_opcode_t *)kpt_rp_tail,
		.handler = kpt_rp_seq_return,
	};

	WRITE_ONCE(kpt_rp_hook_calls, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&tail), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&hook), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&target), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_tail(5), 6L);
	unregister_kretprobe(&target);
	unregister_kprobe(&hook);
	unregister_kretprobe(&tail);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpt_rp_hook_calls), 1UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 2);
	KUNIT_EXPECT_EQ(test, kpt_rp.first_return, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_tail(5), 6L);
}
#endif

static int kpt_rp_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpt_rp.pre_hits++;
	return 0;
}

static void kpt_rp_kprobe_post(struct kprobe *p, struct pt_regs *regs,
			       unsigned long flags)
{
	kpt_rp.post_hits++;
}

static void kpt_kprobe_and_kretprobe_on_one_function(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);
	struct kprobe kp = { .addr = (kprobe_opcode_t *)kpt_rp_target,
			     .pre_handler = kpt_rp_kprobe_pre,
			     .post_handler = kpt_rp_kprobe_post };

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(2), 7);
	KUNIT_EXPECT_EQ(test, kpt_rp_target(3), 10);
	unregister_kretprobe(&rp);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_rp.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_rp.post_hits, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.entries), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 2);
}

/* Stack traces from a return handler */

#define KPT_TRACE_DEPTH	32

/*
 * is_kretprobe_trampoline(), by name where the symbol is not exported: its
 * first byte, what kretprobes put in return slots (a return address inside
 * it is the trampoline's own frame, calling the handler)
 */
static bool kpt_is_trampoline(unsigned long addr)
{
	if (KPT_BUILTIN)
		return is_kretprobe_trampoline(addr);
	return kpt_sym_starts(addr, "kretprobe_trampoline+0x0/");
}

static void kpt_rp_scan_trace(unsigned long *trace, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (trace[i] == kpt_rp.ret_addr)
			kpt_rp.trace_has_ret_addr = true;
		if (kpt_rp.outer_ret_addr && trace[i] == kpt_rp.outer_ret_addr)
			kpt_rp.trace_has_outer_ret_addr = true;
		if (kpt_is_trampoline(trace[i]))
			kpt_rp.trace_has_trampoline = true;
	}
}

static int kpt_rp_record_ret_addr(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	kpt_rp.ret_addr = get_kretprobe_retaddr(ri);
	return kpt_rp_entry(ri, regs);
}

static int kpt_rp_record_outer_ret_addr(struct kretprobe_instance *ri,
					struct pt_regs *regs)
{
	kpt_rp.outer_ret_addr = get_kretprobe_retaddr(ri);
	return kpt_rp_entry(ri, regs);
}

static int kpt_rp_trace(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long trace[KPT_TRACE_DEPTH];
	unsigned int n;

	n = stack_trace_save(trace, KPT_TRACE_DEPTH, 0);
	kpt_rp_scan_trace(trace, n);
	return kpt_rp_return(ri, regs);
}

static int kpt_rp_trace_regs(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	unsigned long trace[KPT_TRACE_DEPTH];
	unsigned int n;

	/* Not exported: a module's kretprobe_stack_trace skips this one */
	n = KPT_BUILTIN ? stack_trace_save_regs(regs, trace, KPT_TRACE_DEPTH, 0) : 0;
	kpt_rp.regs_trace_starts_at_ret = n && trace[0] == kpt_rp.ret_addr;
	kpt_rp_scan_trace(trace, n);
	return kpt_rp_return(ri, regs);
}

static const bool kpt_trace_regs_params[] = { false, true };

static void kpt_trace_desc(const bool *regs, char *desc)
{
	strscpy(desc, *regs ? "stack_trace_save_regs" : "stack_trace_save",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_trace, kpt_trace_regs_params, kpt_trace_desc);

static void kpt_kretprobe_stack_trace(struct kunit *test)
{
	bool use_regs = *(const bool *)test->param_value;
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpt_rp_target,
		.entry_handler = kpt_rp_record_ret_addr,
		.handler = use_regs ? kpt_rp_trace_regs : kpt_rp_trace,
	};

	if (use_regs && !KPT_BUILTIN)
		kunit_skip(test, "stack_trace_save_regs() is not exported");
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_caller(1), 5);
	unregister_kretprobe(&rp);
	KUNIT_ASSERT_EQ(test, atomic_read(&kpt_rp.returns), 1);
	/* The real return address, inside kpt_rp_caller(), is there... */
	KUNIT_EXPECT_TRUE(test, kpt_rp.trace_has_ret_addr);
	/* ...and the trampoline's address never stands in for one. */
	KUNIT_EXPECT_FALSE(test, kpt_rp.trace_has_trampoline);
	if (use_regs)
		KUNIT_EXPECT_TRUE(test, kpt_rp.regs_trace_starts_at_ret);
}

static void kpt_kretprobe_nested_stack_trace(struct kunit *test)
{
	bool use_regs = *(const bool *)test->param_value;
	struct kretprobe inner = {
		.kp.addr = (kprobe_opcode_t *)kpt_rp_target,
		.entry_handler = kpt_rp_record_ret_addr,
		.handler = use_regs ? kpt_rp_trace_regs : kpt_rp_trace,
	};
	struct kretprobe outer = {
		.kp.addr = (kprobe_opcode_t *)kpt_rp_caller,
		.entry_handler = kpt_rp_record_outer_ret_addr,
		.handler = kpt_rp_return,
	};

	if (use_regs && !KPT_BUILTIN)
		kunit_skip(test, "stack_trace_save_regs() is not exported");
	KUNIT_ASSERT_EQ(test, register_kretprobe(&outer), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&inner), 0);
	KUNIT_EXPECT_EQ(test, kpt_rp_caller(2), 8);
	unregister_kretprobe(&inner);
	unregister_kretprobe(&outer);
	KUNIT_ASSERT_EQ(test, atomic_read(&kpt_rp.returns), 2);
	/* Both frames, each behind a trampoline, show their real callers. */
	KUNIT_EXPECT_TRUE(test, kpt_rp.trace_has_ret_addr);
	KUNIT_EXPECT_TRUE(test, kpt_rp.trace_has_outer_ret_addr);
	KUNIT_EXPECT_FALSE(test, kpt_rp.trace_has_trampoline);
}

/* Calls that sleep inside the probed function */

static DECLARE_COMPLETION(kpt_rp_release);
static DECLARE_WAIT_QUEUE_HEAD(kpt_rp_entered);
static atomic_t kpt_rp_sleepers;

static noinline __noipa int kpt_rp_sleeper(int a)
{
	atomic_inc(&kpt_rp_sleepers);
	wake_up(&kpt_rp_entered);
	wait_for_completion(&kpt_rp_release);
	return a + 7;
}

static int kpt_rp_sleeper_thread(void *arg)
{
	if (kpt_rp_sleeper((long)arg) != (long)arg + 7)
		atomic_inc(&kpt_rp.bad_values);
	return 0;
}

/*
 * Wait until the growth that @pool's last take asked for has run: the
 * irq_work queued from the hit, then the work item it queued.
 */
static void kpt_rp_pool_settle(struct kretprobe_pool *pool)
{
	irq_work_sync(&pool->grow_irq_work);
	flush_work(&pool->grow_work);
}

/*
 * Start @n threads in kpt_rp_sleeper(), probed by @rp, one at a time: each
 * is inside, and the pool growth its call asked for has run, before the
 * next starts.  So a call finds no free instance only when the pool cannot
 * grow, whatever the scheduling.  Return: how many threads are inside.
 */
static int kpt_rp_start_sleepers(struct kretprobe *rp,
				 struct task_struct **tasks, int n)
{
	unsigned long deadline = jiffies + 20 * HZ;
	struct task_struct *task;
	int i;

	reinit_completion(&kpt_rp_release);
	atomic_set(&kpt_rp_sleepers, 0);
	for (i = 0; i < n; i++) {
		task = kthread_run(kpt_rp_sleeper_thread, (void *)(long)i,
				   "kpt_rp_sleeper/%d", i);
		if (IS_ERR(task))
			break;
		tasks[i] = get_task_struct(task);
		if (!wait_event_timeout(kpt_rp_entered,
					atomic_read(&kpt_rp_sleepers) > i,
					max_t(long, deadline - jiffies, 1)))
			return i + 1;
		kpt_rp_pool_settle(rp->pool);
	}
	return i;
}

/* Release and reap the @n threads kpt_rp_start_sleepers() started. */
static void kpt_rp_stop_sleepers(struct task_struct **tasks, int n)
{
	int i;

	complete_all(&kpt_rp_release);
	for (i = 0; i < n; i++) {
		kthread_stop(tasks[i]);
		put_task_struct(tasks[i]);
	}
}

static void kpt_kretprobe_maxactive_exhausted(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_sleeper, kpt_rp_return);
	struct task_struct *tasks[5];
	int started;

	rp.maxactive = 2;
	rp.maxactive_limit = -1;	/* never grows */
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	started = kpt_rp_start_sleepers(&rp, tasks, ARRAY_SIZE(tasks));
	/* Two calls hold the two instances; three more find none. */
	KUNIT_EXPECT_EQ(test, rp.nmissed, 3);
	kpt_rp_stop_sleepers(tasks, started);
	KUNIT_ASSERT_EQ(test, started, ARRAY_SIZE(tasks));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 2);
	/* Back in the pool: two more calls are tracked. */
	complete_all(&kpt_rp_release);
	kpt_rp_sleeper(1);
	kpt_rp_sleeper(2);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 4);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
}

/*
 * Many more tasks inside the function than the default maxactive: the
 * pool grows as they come in, and every call is tracked.
 */
#define KPT_RP_MANY	500

static void kpt_kretprobe_pool_grows(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_sleeper, kpt_rp_return);
	struct task_struct **tasks;
	int started;

	tasks = kunit_kcalloc(test, KPT_RP_MANY, sizeof(*tasks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	started = kpt_rp_start_sleepers(&rp, tasks, KPT_RP_MANY);
	kpt_rp_stop_sleepers(tasks, started);
	KUNIT_ASSERT_EQ(test, started, KPT_RP_MANY);
	unregister_kretprobe(&rp);
	kunit_info(test, "%d calls from %d tasks, pool of %d at first\n",
		   atomic_read(&kpt_rp.returns), KPT_RP_MANY, rp.maxactive);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), KPT_RP_MANY);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
}

/* Entries on a CPU that is going offline */
static atomic_t kpt_rp_dying_entries;

static int kpt_rp_count_dying(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	if (!cpu_online(smp_processor_id()))
		atomic_inc(&kpt_rp_dying_entries);
	return 0;
}

/*
 * rcutree_dying_cpu() runs on a CPU going offline after the last run of
 * its irq_work list (smpcfd_dying_cpu()).  With one instance, its entry
 * there finds the CPU's list empty, which elsewhere asks for growth: no
 * request may be left pending on that CPU (unregister_kretprobe() would
 * spin in irq_work_sync() until the CPU came back).
 */
static void kpt_kretprobe_grows_from_dying_cpu(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "rcutree_dying_cpu",
		.entry_handler = kpt_rp_count_dying,
		.handler = kpt_rp_return,
		.maxactive = 1,
	};
	unsigned long deadline;
	int cpu = cpumask_last(cpu_online_mask);
	bool pending;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU) || !cpu)
		kunit_skip(test, "needs a CPU to take offline");
	atomic_set(&kpt_rp_dying_entries, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	if (remove_cpu(cpu)) {
		unregister_kretprobe(&rp);
		kunit_skip(test, "CPU %d cannot go offline", cpu);
	}
	deadline = jiffies + 10 * HZ;
	while ((pending = irq_work_is_pending(&rp.pool->grow_irq_work)) &&
	       time_before(jiffies, deadline))
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&kpt_rp_dying_entries), 0);
	KUNIT_EXPECT_FALSE(test, pending);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

/* Called on any CPU, returns on @cpu */
static noinline __noipa int kpt_rp_return_on(int cpu)
{
	set_cpus_allowed_ptr(current, cpumask_of(cpu));
	return cpu * 3 + 1;
}

/*
 * Calls that enter on one CPU and return on another drain the first CPU's
 * free list into the second's, with one instance in use at a time: the
 * pool must not grow for that, only when many instances are in use.
 */
#define KPT_RP_MIGRATIONS	100

static void kpt_kretprobe_pool_stays_for_migrations(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_return_on, kpt_rp_return);
	int from = cpumask_first(cpu_online_mask);
	int to = cpumask_next(from, cpu_online_mask);
	int i, wrong = 0, nr_instances;

	if (to >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	/* This test's own thread: its affinity goes with it. */
	for (i = 0; i < KPT_RP_MIGRATIONS; i++) {
		set_cpus_allowed_ptr(current, cpumask_of(from));
		if (kpt_rp_return_on(to) != to * 3 + 1)
			wrong++;
		kpt_rp_pool_settle(rp.pool);
	}
	nr_instances = READ_ONCE(rp.pool->nr_instances);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, nr_instances, rp.maxactive);
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), KPT_RP_MIGRATIONS);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

static void kpt_kretprobe_unregister_while_active(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_sleeper, kpt_rp_return);
	struct task_struct *tasks[3];
	int started;

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	started = kpt_rp_start_sleepers(&rp, tasks, ARRAY_SIZE(tasks));
	unregister_kretprobe(&rp);
	/* The calls still return, to the right place, with no handler run. */
	kpt_rp_stop_sleepers(tasks, started);
	KUNIT_ASSERT_EQ(test, started, ARRAY_SIZE(tasks));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.entries), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.returns), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
}

static DECLARE_COMPLETION(kpt_rp_exiting);

static noinline __noipa int kpt_rp_maybe_exit(int exit)
{
	if (exit)
		kthread_complete_and_exit(&kpt_rp_exiting, 0);
	return 1;
}

static int kpt_rp_exit_thread(void *unused)
{
	return kpt_rp_maybe_exit(1);
}

static void kpt_kretprobe_task_exits_inside(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_maybe_exit, kpt_rp_return);
	unsigned long deadline = jiffies + 10 * HZ;
	struct task_struct *task;
	int missed;

	rp.maxactive = 1;
	rp.maxactive_limit = -1;	/* never grows */
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	reinit_completion(&kpt_rp_exiting);
	task = kthread_run(kpt_rp_exit_thread, NULL, "kpt_rp_exit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&kpt_rp_exiting);
	/* Its only instance comes back when the dead task is freed. */
	do {
		rcu_barrier();
		missed = rp.nmissed;
		kpt_rp_maybe_exit(0);
	} while (rp.nmissed != missed && time_before(jiffies, deadline));
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rp.nmissed, missed);
	KUNIT_EXPECT_GE(test, atomic_read(&kpt_rp.returns), 1);
}

/* Every CPU calls a kretprobed function at once. */
static atomic_t kpt_rp_smp_stop;

static int kpt_rp_smp_worker(void *unused)
{
	int i = 0;

	while (!atomic_read(&kpt_rp_smp_stop)) {
		if (kpt_rp_target(i) != i * 3 + 1)
			atomic_inc(&kpt_rp.bad_values);
		i++;
		cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kpt_kretprobe_all_cpus(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);
	unsigned long deadline = jiffies + HZ;
	struct task_struct **workers;
	int ret;

	atomic_set(&kpt_rp_smp_stop, 0);
	workers = kpt_start_per_cpu(test, kpt_rp_smp_worker, "kpt_rp_smp/%u");
	KUNIT_ASSERT_NOT_NULL(test, workers);
	/* Calls are tracked from here: entries and returns count from 0. */
	ret = register_kretprobe(&rp);
	while (!ret && time_before(jiffies, deadline) &&
	       atomic_read(&kpt_rp.returns) < 20000)
		schedule_timeout_uninterruptible(1);
	kpt_stop_per_cpu(workers, &kpt_rp_smp_stop);
	KUNIT_ASSERT_EQ(test, ret, 0);
	unregister_kretprobe(&rp);
	kunit_info(test, "%d calls tracked, %d missed\n",
		   atomic_read(&kpt_rp.returns), rp.nmissed);
	KUNIT_EXPECT_GT(test, atomic_read(&kpt_rp.returns), 0);
	/* Every tracked entry had its return. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.entries),
			atomic_read(&kpt_rp.returns));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
}

/*
 * Register and unregister while every CPU calls the function: instances
 * come back while their pool is detached.  A pool that misses one of them
 * is never freed, which the guest's kmemleak scan reports.
 */
static void kpt_kretprobe_unregister_races_returns(struct kunit *test)
{
	struct kretprobe rp = KPT_KRETPROBE(kpt_rp_target, kpt_rp_return);
	unsigned long deadline = jiffies + 2 * HZ;
	struct task_struct **workers;
	int rounds = 0, ret = 0;

	atomic_set(&kpt_rp_smp_stop, 0);
	workers = kpt_start_per_cpu(test, kpt_rp_smp_worker, "kpt_rp_race/%u");
	KUNIT_ASSERT_NOT_NULL(test, workers);
	while (time_before(jiffies, deadline) && rounds < 200) {
		rp.maxactive = 1 + rounds % 4;
		ret = register_kretprobe(&rp);
		if (ret)
			break;
		cond_resched();
		unregister_kretprobe(&rp);
		KUNIT_EXPECT_NULL(test, rp.pool);
		rounds++;
	}
	kpt_stop_per_cpu(workers, &kpt_rp_smp_stop);
	KUNIT_EXPECT_EQ(test, ret, 0);
	kunit_info(test, "%d rounds, %d returns seen\n", rounds,
		   atomic_read(&kpt_rp.returns));
	KUNIT_EXPECT_GT(test, rounds, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_rp.bad_values), 0);
}

static struct kunit_case kretprobes_testcases[] = {
	KUNIT_CASE(kpt_kretprobe_return_value),
	KUNIT_CASE(kpt_kretprobe_entry_handler_skips),
	KUNIT_CASE(kpt_kretprobe_bad_registrations),
	KUNIT_CASE(kpt_kretprobe_default_maxactive),
	KUNIT_CASE(kpt_kretprobe_large_maxactive),
	KUNIT_CASE_PARAM(kpt_kretprobe_refuses_task_switch,
			 kpt_task_switch_gen_params),
	KUNIT_CASE(kpt_kretprobe_unregister_twice_and_stranger),
	KUNIT_CASE(kpt_kretprobe_not_unregistered_as_kprobe),
	KUNIT_CASE(kpt_kretprobe_disable_enable),
	KUNIT_CASE(kpt_kretprobe_batch_rollback),
	KUNIT_CASE(kpt_kretprobe_recursion),
	KUNIT_CASE(kpt_kretprobe_recursion_exhausts),
	KUNIT_CASE(kpt_kretprobe_nested),
	KUNIT_CASE(kpt_kretprobe_two_on_one_function),
#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
	KUNIT_CASE(kpt_kretprobe_foreign_hook_between),
#endif
	KUNIT_CASE(kpt_kprobe_and_kretprobe_on_one_function),
	KUNIT_CASE_PARAM(kpt_kretprobe_stack_trace, kpt_trace_gen_params),
	KUNIT_CASE_PARAM(kpt_kretprobe_nested_stack_trace, kpt_trace_gen_params),
	KUNIT_CASE(kpt_kretprobe_maxactive_exhausted),
	KUNIT_CASE(kpt_kretprobe_pool_grows),
	KUNIT_CASE(kpt_kretprobe_pool_stays_for_migrations),
	KUNIT_CASE(kpt_kretprobe_grows_from_dying_cpu),
	KUNIT_CASE(kpt_kretprobe_unregister_while_active),
	KUNIT_CASE(kpt_kretprobe_task_exits_inside),
	KUNIT_CASE(kpt_kretprobe_all_cpus),
	KUNIT_CASE(kpt_kretprobe_unregister_races_returns),
	{}
};

static struct kunit_suite kretprobes_test_suite = {
	.name = "kretprobes_test",
	.init = kpt_rp_init,
	.test_cases = kretprobes_testcases,
};

kunit_test_suites(&kretprobes_test_suite);

MODULE_DESCRIPTION("KUnit tests for kretprobes");
MODULE_LICENSE("GPL");
