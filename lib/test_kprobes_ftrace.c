// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kprobes on kernels with the function tracer.
 *
 * x86 (CONFIG_KPROBES_ON_FTRACE): a function's entry is an ftrace call
 * site, and a probe there is served by ftrace.  arm64: the entry is two
 * patchable instructions, the second of which ftrace turns into a call;
 * a probe on the entry takes the first (a BRK there), and the call site
 * itself is refused.  Either way a probe on a function entry works,
 * together with the function tracer on the same function.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/linkage.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <linux/stacktrace.h>

#include "test_kprobes.h"

static struct {
	atomic_t pre_hits;
	atomic_t post_hits;
	atomic_t ops_hits;
	atomic_t nested_hits;
	atomic_t claimant_hits;	/* kpf_claimant_pre() */
	int nested_ret;
	unsigned long pre_ip;
	unsigned long post_ip;
	bool preemptible;
} kpf;

static int kpf_init(struct kunit *test)
{
	memset(&kpf, 0, sizeof(kpf));
	return 0;
}

static noinline __noipa int kpf_target(int a)
{
	return a * 5;
}

/* Called by a pre_handler of a probe on kpf_target() */
static noinline __noipa int kpf_target_nested(int a)
{
	return a ^ 0x5a;
}

#ifdef CONFIG_KPROBES_ON_FTRACE
static noinline __noipa int kpf_target_ipmodify(int a)
{
	return a * 7;
}

/* Patched by a livepatch-like ftrace_ops, to kpf_target_patched() */
static noinline __noipa int kpf_target_livepatched(int a)
{
	return a * 9;
}

static noinline __noipa int kpf_target_patched(int a)
{
	return a * 11;
}

/* Called on every CPU while its probe point moves between ftrace_ops */
static noinline __noipa int kpf_target_moving(int a)
{
	return a * 13;
}
#endif

static int kpf_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpf.pre_hits);
	kpf.pre_ip = instruction_pointer(regs);
	kpf.preemptible = preemptible();
	return 0;
}

static void kpf_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&kpf.post_hits);
	kpf.post_ip = instruction_pointer(regs);
}

/* The address of the ftrace call site of @fn, 0 if it has none */
static unsigned long kpf_ftrace_site(void *fn)
{
#ifdef MODULE
	/*
	 * ftrace_location() is not exported: look for the site in this
	 * module's own tables, between @fn and the end of its symbol.
	 */
	unsigned long start = (unsigned long)fn, size = 0, site = 0;
	unsigned int i;

	if (!kpt_module_sym(NULL, &start, &size))
		return 0;
	for (i = 0; i < THIS_MODULE->num_ftrace_callsites; i++) {
		unsigned long at = ftrace_call_adjust(THIS_MODULE->ftrace_callsites[i]);

		if (at >= start && at < start + size)
			site = at;
	}
	return site;
#else
	return ftrace_location((unsigned long)fn);
#endif
}

#ifdef CONFIG_KPROBES_ON_FTRACE
static unsigned long kpf_hits(struct kprobe *kp, enum kprobe_hit_kind kind)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(kp->point->counts, cpu)->n[kind];
	return sum;
}
#endif

/* A probe on a function entry fires, with the function tracer built in. */
static void kpf_entry_probe_fires(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpf_target",
		.pre_handler = kpf_pre,
		.post_handler = kpf_post,
	};

	KUNIT_ASSERT_NE(test, kpf_ftrace_site(kpf_target), 0UL);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kpf_target(3), 15);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.post_hits), 1);
	KUNIT_EXPECT_FALSE(test, kpf.preemptible);
#ifdef CONFIG_KPROBES_ON_FTRACE
	/* Served by ftrace, with the registers a breakpoint would give */
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, kpf_ftrace_site(kpf_target));
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&kp));
	KUNIT_EXPECT_EQ(test, kpf.pre_ip, (unsigned long)kp.addr + 1);
	KUNIT_EXPECT_EQ(test, kpf.post_ip,
			(unsigned long)kp.addr + MCOUNT_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, kpf_hits(&kp, KPROBE_HIT_FTRACE), 1UL);
#else
	/* Next to the call site, on the instruction before it */
	KUNIT_EXPECT_LT(test, (unsigned long)kp.addr, kpf_ftrace_site(kpf_target));
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&kp));
#endif
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpf_target(3), 15);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 1);
}

/*
 * A byte inside the call site is not an instruction boundary (-EILSEQ,
 * which kprobe_events reports as such); nor, without kprobes on ftrace,
 * is the call site itself a place for a probe.
 */
static void kpf_inside_call_site_refused(struct kunit *test)
{
	unsigned long site = kpf_ftrace_site(kpf_target);
	struct kprobe kp = { .pre_handler = kpf_pre };

	KUNIT_ASSERT_NE(test, site, 0UL);
	kp.addr = (kprobe_opcode_t *)(site + 1);
	kpt_expect_refused(test, &kp, -EILSEQ);
#ifndef CONFIG_KPROBES_ON_FTRACE
	kp.addr = (kprobe_opcode_t *)site;
	kpt_expect_refused(test, &kp, -EBUSY);
#endif
	KUNIT_EXPECT_EQ(test, kpf_target(1), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 0);
}

/* Another user of the function tracer on the same function: both run. */
static void kpf_ops_func(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	atomic_inc(&kpf.ops_hits);
}

static struct ftrace_ops kpf_ops = {
	.func = kpf_ops_func,
};

static void kpf_with_function_tracer(struct kunit *test)
{
	unsigned long site = kpf_ftrace_site(kpf_target);
	struct kprobe kp = {
		.symbol_name = "kpf_target",
		.pre_handler = kpf_pre,
	};

	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&kpf_ops, site, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(&kpf_ops), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpf_target(2), 10);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpf_target(2), 10);
	unregister_ftrace_function(&kpf_ops);
	ftrace_set_filter_ip(&kpf_ops, site, 1, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.ops_hits), 2);
}

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * Where a pre_handler sends the function to return at once.  A handler
 * served by ftrace may change regs->ip but not regs->sp (ftrace restores
 * the stack pointer itself), so it cannot pop the return address; this
 * does, as fail_function's just_return_func does.
 */
asmlinkage void kpf_just_return(void);
asm(".pushsection .text, \"ax\"\n"
	".type kpf_just_return, @function\n"
	"kpf_just_return:\n"
	ANNOTATE_NOENDBR
	ASM_RET
	".size kpf_just_return, . - kpf_just_return\n"
	".popsection\n");

/* A pre_handler that returns from the function, as fail_function does */
static int kpf_pre_return(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpf.pre_hits);
	regs_set_return_value(regs, -42);
	regs->ip = (unsigned long)kpf_just_return;
	return 1;
}

static void kpf_pre_handler_redirects(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpf_target",
		.pre_handler = kpf_pre_return,
		.post_handler = kpf_post,
	};

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpf_target(3), -42);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpf_target(3), 15);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.post_hits), 0);
}

/*
 * Only one user may claim a function's instruction pointer: a probe with
 * a post_handler (how fail_function asks for it) conflicts with another
 * such user; a probe without one does not.
 */
static struct ftrace_ops kpf_ipmodify_ops = {
	.func = kpf_ops_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/* A kprobe on kpf_target_ipmodify() that needs no claim */
#define KPF_IPMODIFY_TRACER						\
	{ .symbol_name = "kpf_target_ipmodify", .pre_handler = kpf_pre }

/* Let kpf_ipmodify_ops hold the claim on @site, or fail with nothing held */
static int kpf_hold_claim(unsigned long site)
{
	int ret = ftrace_set_filter_ip(&kpf_ipmodify_ops, site, 0, 0);

	if (ret)
		return ret;
	ret = register_ftrace_function(&kpf_ipmodify_ops);
	if (ret)
		ftrace_set_filter_ip(&kpf_ipmodify_ops, site, 1, 0);
	return ret;
}

static void kpf_release_claim(unsigned long site)
{
	unregister_ftrace_function(&kpf_ipmodify_ops);
	ftrace_set_filter_ip(&kpf_ipmodify_ops, site, 1, 0);
}

static void kpf_ipmodify_conflict(struct kunit *test)
{
	unsigned long site = kpf_ftrace_site(kpf_target_ipmodify);
	struct kprobe tracer = KPF_IPMODIFY_TRACER;
	struct kprobe modifier = {
		.symbol_name = "kpf_target_ipmodify",
		.pre_handler = kpf_pre,
		.post_handler = kpf_post,
	};

	KUNIT_ASSERT_EQ(test, kpf_hold_claim(site), 0);
	kpt_expect_refused(test, &modifier, -EBUSY);
	KUNIT_EXPECT_EQ(test, register_kprobe(&tracer), 0);
	/* Joining it would need the claim too. */
	modifier.addr = NULL;
	kpt_expect_refused(test, &modifier, -EBUSY);
	KUNIT_EXPECT_EQ(test, kpf_target_ipmodify(1), 7);
	unregister_kprobe(&tracer);
	kpf_release_claim(site);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.ops_hits), 1);
	/* Free again: the claim can be had. */
	modifier.addr = NULL;
	KUNIT_EXPECT_EQ(test, register_kprobe(&modifier), 0);
	KUNIT_EXPECT_EQ(test, kpf_target_ipmodify(1), 7);
	unregister_kprobe(&modifier);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.post_hits), 1);
}

static int kpf_claimant_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpf.claimant_hits);
	return 0;
}

static int kpf_claim_caller(void *unused)
{
	while (!kthread_should_stop()) {
		kpf_target_ipmodify(1);
		cond_resched();
	}
	return 0;
}

/*
 * A kprobe whose post_handler needs a claim that is refused never runs,
 * not even for a moment on a point the plain ftrace_ops serves while
 * another CPU calls the function: it joins the point, or is enabled
 * there, only once the claim is had.
 */
static void kpf_refused_claim_runs_nothing(struct kunit *test)
{
	unsigned long site = kpf_ftrace_site(kpf_target_ipmodify);
	struct kprobe tracer = KPF_IPMODIFY_TRACER;
	struct kprobe claimant = {
		.pre_handler = kpf_claimant_pre,
		.post_handler = kpf_post,
	};
	struct task_struct *caller;
	unsigned long deadline;
	int i, ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	KUNIT_ASSERT_EQ(test, kpf_hold_claim(site), 0);
	if (register_kprobe(&tracer)) {
		KUNIT_FAIL(test, "register_kprobe() failed");
		goto out_ops;
	}
	caller = kthread_create(kpf_claim_caller, NULL, "kpf_claim_caller");
	if (IS_ERR(caller)) {
		KUNIT_FAIL(test, "no caller thread");
		goto out_tracer;
	}
	kthread_bind(caller, cpumask_any_but(cpu_online_mask,
					     raw_smp_processor_id()));
	wake_up_process(caller);
	for (i = 0; i < 20; i++) {
		claimant.symbol_name = "kpf_target_ipmodify";
		claimant.addr = NULL;
		claimant.flags = 0;
		ret = register_kprobe(&claimant);
		KUNIT_EXPECT_EQ(test, ret, -EBUSY);
		if (!ret) {
			unregister_kprobe(&claimant);
			break;
		}
		/* Registered disabled, which needs no claim, then enabled */
		claimant.addr = NULL;
		claimant.flags = KPROBE_FLAG_DISABLED;
		if (register_kprobe(&claimant)) {
			KUNIT_FAIL(test, "register_kprobe(disabled) failed");
			break;
		}
		KUNIT_EXPECT_EQ(test, enable_kprobe(&claimant), -EBUSY);
		KUNIT_EXPECT_TRUE(test, kprobe_disabled(&claimant));
		unregister_kprobe(&claimant);
	}
	/* The caller got to run, whatever the scheduler did meanwhile */
	deadline = jiffies + 2 * HZ;
	while (!atomic_read(&kpf.pre_hits) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	kthread_stop(caller);
	KUNIT_EXPECT_GT(test, atomic_read(&kpf.pre_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.claimant_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.post_hits), 0);
out_tracer:
	unregister_kprobe(&tracer);
out_ops:
	kpf_release_claim(site);
}

static void kpf_disable_enable_aggregate(struct kunit *test)
{
	struct kprobe a = { .symbol_name = "kpf_target", .pre_handler = kpf_pre };
	struct kprobe b = { .symbol_name = "kpf_target", .post_handler = kpf_post };

	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpf_target(1), 5);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, kpf_target(1), 5);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpf_target(1), 5);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, kpf_target(1), 5);
	unregister_kprobe(&a);
	unregister_kprobe(&b);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.post_hits), 2);
}

/*
 * A livepatch claims the function's instruction pointer and sends it to
 * the new version.  A probe without a post_handler shares the function
 * with it; whichever ftrace_ops runs first, the new version runs.
 */
static void kpf_livepatch_func(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	atomic_inc(&kpf.ops_hits);
	ftrace_instruction_pointer_set(fregs, (unsigned long)kpf_target_patched);
}

static struct ftrace_ops kpf_livepatch_ops = {
	.func = kpf_livepatch_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static const char * const kpf_livepatch_orders[] = {
	"probe-first", "livepatch-first",
};

KUNIT_ARRAY_PARAM(kpf_livepatch_order, kpf_livepatch_orders, kpt_name_desc);

static void kpf_probe_keeps_livepatch(struct kunit *test)
{
	bool probe_first = *(const char * const *)test->param_value ==
			   kpf_livepatch_orders[0];
	unsigned long site = kpf_ftrace_site(kpf_target_livepatched);
	struct kprobe kp = {
		.symbol_name = "kpf_target_livepatched",
		.pre_handler = kpf_pre,
	};

	KUNIT_ASSERT_NE(test, site, 0UL);
	if (probe_first)
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&kpf_livepatch_ops, site, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, register_ftrace_function(&kpf_livepatch_ops), 0);
	if (!probe_first)
		KUNIT_EXPECT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpf_target_livepatched(2), 22);
	KUNIT_EXPECT_EQ(test, kpf_target_livepatched(3), 33);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpf_target_livepatched(2), 22);
	unregister_ftrace_function(&kpf_livepatch_ops);
	ftrace_set_filter_ip(&kpf_livepatch_ops, site, 1, 0);
	KUNIT_EXPECT_EQ(test, kpf_target_livepatched(2), 18);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.ops_hits), 3);
}

/*
 * A kprobe with a post_handler that comes and goes moves the point
 * between kprobes' two ftrace_ops while every CPU calls the function: no
 * call runs the other kprobe's handler twice, and each is a hit or counted
 * as missed, but for the calls in flight on a CPU as the point enters or
 * leaves its moving state, which may be counted either way (taking the
 * point out of ftrace and back, as before, lost every call meanwhile).
 */
static DEFINE_PER_CPU(unsigned long, kpf_moving_hits);
static atomic_t kpf_moving_stop;
static atomic_long_t kpf_moving_calls;
static atomic_t kpf_moving_doubles;

static int kpf_pre_moving(struct kprobe *p, struct pt_regs *regs)
{
	__this_cpu_inc(kpf_moving_hits);
	return 0;
}

static int kpf_moving_caller(void *unused)
{
	unsigned long before, after;

	while (!atomic_read(&kpf_moving_stop)) {
		preempt_disable();
		before = __this_cpu_read(kpf_moving_hits);
		kpf_target_moving(1);
		after = __this_cpu_read(kpf_moving_hits);
		preempt_enable();
		if (after - before > 1)
			atomic_inc(&kpf_moving_doubles);
		atomic_long_inc(&kpf_moving_calls);
		cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kpf_point_moves_between_ops(struct kunit *test)
{
	unsigned long deadline = jiffies + 10 * HZ, hits = 0, calls, seen, slack;
	struct kprobe a = {
		.symbol_name = "kpf_target_moving",
		.pre_handler = kpf_pre_moving,
	};
	struct kprobe b = {
		.symbol_name = "kpf_target_moving",
		.post_handler = kpf_post,
	};
	struct task_struct **callers;
	int rounds = 0, cpu;

	atomic_set(&kpf_moving_stop, 0);
	atomic_long_set(&kpf_moving_calls, 0);
	atomic_set(&kpf_moving_doubles, 0);
	for_each_possible_cpu(cpu)
		per_cpu(kpf_moving_hits, cpu) = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(&a));
	callers = kpt_start_per_cpu(test, kpf_moving_caller, "kpf_moving/%u");
	KUNIT_ASSERT_NOT_NULL(test, callers);
	while (rounds < 20 && time_before(jiffies, deadline)) {
		b.addr = NULL;
		b.flags = 0;
		if (register_kprobe(&b))
			break;
		unregister_kprobe(&b);
		rounds++;
	}
	kpt_stop_per_cpu(callers, &kpf_moving_stop);
	unregister_kprobe(&a);
	for_each_possible_cpu(cpu)
		hits += per_cpu(kpf_moving_hits, cpu);
	calls = atomic_long_read(&kpf_moving_calls);
	/* Two moves a round, each with two changes of state */
	slack = 4UL * num_online_cpus() * rounds;
	kunit_info(test, "%d rounds, %lu calls, %lu hits, %lu missed\n",
		   rounds, calls, hits, a.nmissed);
	KUNIT_EXPECT_GT(test, rounds, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf_moving_doubles), 0);
	seen = hits + a.nmissed;
	KUNIT_EXPECT_LE(test, seen > calls ? seen - calls : calls - seen, slack);
}
#endif /* CONFIG_KPROBES_ON_FTRACE */

/*
 * A probe hit while this CPU runs a handler is missed: its handlers do not
 * run and its nmissed counts it.  On x86 both probes are served by ftrace,
 * so the inner hit comes through the ftrace callback from within the
 * outer one; on arm64 both are breakpoints beside the ftrace call sites.
 */
static struct kprobe kpf_nested_kp;

static int kpf_pre_calls_nested(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpf.pre_hits);
	kpf.nested_ret = kpf_target_nested(atomic_read(&kpf.pre_hits));
	return 0;
}

static int kpf_pre_nested(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpf.nested_hits);
	return 0;
}

static void kpf_reentry_counts_missed(struct kunit *test)
{
	struct kprobe outer = {
		.symbol_name = "kpf_target",
		.pre_handler = kpf_pre_calls_nested,
	};
	int i;

	kpf_nested_kp = (struct kprobe) {
		.symbol_name = "kpf_target_nested",
		.pre_handler = kpf_pre_nested,
	};
	KUNIT_ASSERT_NE(test, kpf_ftrace_site(kpf_target_nested), 0UL);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpf_nested_kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&outer), 0);
#ifdef CONFIG_KPROBES_ON_FTRACE
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&outer));
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&kpf_nested_kp));
#endif
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, kpf_target(i), i * 5);
	/* The nested function still ran, and returned the right value. */
	KUNIT_EXPECT_EQ(test, kpf.nested_ret, 5 ^ 0x5a);
	/* Outside a handler the nested probe fires. */
	KUNIT_EXPECT_EQ(test, kpf_target_nested(1), 1 ^ 0x5a);
#ifdef CONFIG_KPROBES_ON_FTRACE
	KUNIT_EXPECT_EQ(test, kpf_hits(&kpf_nested_kp, KPROBE_HIT_MISSED), 5UL);
	KUNIT_EXPECT_EQ(test, kpf_hits(&kpf_nested_kp, KPROBE_HIT_FTRACE), 1UL);
#endif
	unregister_kprobe(&outer);
	unregister_kprobe(&kpf_nested_kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.pre_hits), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.nested_hits), 1);
	KUNIT_EXPECT_EQ(test, kpf_nested_kp.nmissed, 5UL);
	KUNIT_EXPECT_EQ(test, outer.nmissed, 0UL);
}

#ifdef CONFIG_KRETPROBES
static int kpf_rp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs) == 20)
		atomic_inc(&kpf.post_hits);
	return 0;
}

static void kpf_kretprobe_on_entry(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpf_target",
		.handler = kpf_rp_handler,
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpf_target(4), 20);
	KUNIT_EXPECT_EQ(test, kpf_target(4), 20);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf.post_hits), 2);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

#ifdef CONFIG_FPROBE
/*
 * A kretprobe and an fprobe's exit handler on one stack: each diverts a
 * return, the one to kprobes' trampoline, the other to the rethook's.  A
 * stack trace taken in the handler of the inner one must show the real
 * return addresses of both frames, the unwinder keeping its place in each
 * list of instances apart, and neither trampoline.
 */
static struct {
	const char *caller;	/* "function+" of the probed one's caller */
	const char *test;	/* the name of the test case */
	bool has_caller;	/* an address in @caller */
	bool has_test;		/* an address in @test */
	bool has_trampoline;	/* a trampoline standing for a return address */
	atomic_t traces;
	atomic_t outer_returns;
	unsigned long rp_ip;	/* regs->ip the kretprobe's handler saw */
	unsigned long rp_retaddr;	/* and get_kretprobe_retaddr() */
	unsigned long fp_ip;	/* regs->ip the fprobe's exit handler saw */
} kpf_rh;

static noinline __noipa int kpf_rh_target(int a)
{
	return a * 13 + 1;
}

static noinline __noipa int kpf_rh_caller(int a)
{
	return kpf_rh_target(a) + 1;
}

static void kpf_rh_trace(void)
{
	unsigned long trace[32];
	unsigned int i, n;

	n = stack_trace_save(trace, ARRAY_SIZE(trace), 0);
	for (i = 0; i < n; i++) {
		if (kpt_sym_starts(trace[i], kpf_rh.caller))
			kpf_rh.has_caller = true;
		if (kpt_sym_starts(trace[i], kpf_rh.test))
			kpf_rh.has_test = true;
		if (kpt_sym_starts(trace[i], "kretprobe_trampoline+0x0/") ||
		    kpt_sym_starts(trace[i], "arch_rethook_trampoline+0x0/"))
			kpf_rh.has_trampoline = true;
	}
	atomic_inc(&kpf_rh.traces);
}

static int kpf_rh_rp_trace(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpf_rh_trace();
	return 0;
}

static int kpf_rh_rp_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpf_rh.rp_ip = instruction_pointer(regs);
	kpf_rh.rp_retaddr = get_kretprobe_retaddr(ri);
	atomic_inc(&kpf_rh.outer_returns);
	return 0;
}

static void kpf_rh_fp_trace(struct fprobe *fp, unsigned long entry_ip,
			    struct pt_regs *regs, void *entry_data)
{
	kpf_rh_trace();
}

static void kpf_rh_fp_count(struct fprobe *fp, unsigned long entry_ip,
			    struct pt_regs *regs, void *entry_data)
{
	kpf_rh.fp_ip = instruction_pointer(regs);
	atomic_inc(&kpf_rh.outer_returns);
}

/*
 * Register @fp on *@fp_addr and @rp, @fp first or last; if either fails,
 * fail the test with neither left registered.  No assertion may end the
 * test thread with a hook on a function its stack called.
 */
static bool kpf_rh_hook(struct kunit *test, struct kretprobe *rp,
			struct fprobe *fp, unsigned long *fp_addr,
			bool fprobe_first)
{
	if (fprobe_first && register_fprobe_ips(fp, fp_addr, 1)) {
		KUNIT_FAIL(test, "register_fprobe_ips() failed");
		return false;
	}
	if (register_kretprobe(rp)) {
		if (fprobe_first)
			unregister_fprobe(fp);
		KUNIT_FAIL(test, "register_kretprobe() failed");
		return false;
	}
	if (!fprobe_first && register_fprobe_ips(fp, fp_addr, 1)) {
		unregister_kretprobe(rp);
		KUNIT_FAIL(test, "register_fprobe_ips() failed");
		return false;
	}
	return true;
}

static const char * const kpf_two_hooks_orders[] = {
	"kretprobe-inside-fprobe", "fprobe-inside-kretprobe",
};

KUNIT_ARRAY_PARAM(kpf_two_hooks_order, kpf_two_hooks_orders, kpt_name_desc);

static void kpf_two_return_hooks_trace(struct kunit *test)
{
	bool kretprobe_inside = test->param_value == &kpf_two_hooks_orders[0];
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)(kretprobe_inside ?
					       kpf_rh_target : kpf_rh_caller),
		.handler = kretprobe_inside ? kpf_rh_rp_trace : kpf_rh_rp_count,
	};
	struct fprobe fp = {
		.exit_handler = kretprobe_inside ? kpf_rh_fp_count : kpf_rh_fp_trace,
	};
	unsigned long fp_addr = (unsigned long)(kretprobe_inside ?
						kpf_rh_caller : kpf_rh_target);

	memset(&kpf_rh, 0, sizeof(kpf_rh));
	kpf_rh.caller = "kpf_rh_caller+";
	kpf_rh.test = __func__;
	if (!kpf_rh_hook(test, &rp, &fp, &fp_addr, true))
		return;
	KUNIT_EXPECT_EQ(test, kpf_rh_caller(3), 41);
	unregister_kretprobe(&rp);
	unregister_fprobe(&fp);
	KUNIT_ASSERT_EQ(test, atomic_read(&kpf_rh.traces), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf_rh.outer_returns), 1);
	/* Both frames show their real callers... */
	KUNIT_EXPECT_TRUE(test, kpf_rh.has_caller);
	KUNIT_EXPECT_TRUE(test, kpf_rh.has_test);
	/* ...and no trampoline stands in for either. */
	KUNIT_EXPECT_FALSE(test, kpf_rh.has_trampoline);
}

/*
 * Both on one function: its return goes through both trampolines, one
 * after the other, and what the outer one saved is the inner one's
 * address.  A stack trace taken inside the function must undo both.
 * Which one hooks the return first follows the order of their ftrace_ops;
 * registering them in both orders covers both, where ftrace calls the
 * newest ops first and kprobes' ops come and go with their probes (a
 * kprobe on ftrace kept elsewhere fixes the order: both cases then test
 * the same one).
 */
static noinline __noipa int kpf_rh_both_target(int a)
{
	kpf_rh_trace();
	return a * 13 + 1;
}

static noinline __noipa int kpf_rh_both_caller(int a)
{
	return kpf_rh_both_target(a) + 1;
}

static const char * const kpf_one_function_orders[] = {
	"fprobe-registered-first", "kretprobe-registered-first",
};

KUNIT_ARRAY_PARAM(kpf_one_function_order, kpf_one_function_orders,
		  kpt_name_desc);

static void kpf_two_return_hooks_one_function(struct kunit *test)
{
	bool fprobe_first = test->param_value == &kpf_one_function_orders[0];
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpf_rh_both_target,
		.handler = kpf_rh_rp_count,
	};
	struct fprobe fp = { .exit_handler = kpf_rh_fp_count };
	unsigned long fp_addr = (unsigned long)kpf_rh_both_target;

	memset(&kpf_rh, 0, sizeof(kpf_rh));
	kpf_rh.caller = "kpf_rh_both_caller+";
	kpf_rh.test = __func__;
	if (!kpf_rh_hook(test, &rp, &fp, &fp_addr, fprobe_first))
		return;
	KUNIT_EXPECT_EQ(test, kpf_rh_both_caller(3), 41);
	unregister_kretprobe(&rp);
	unregister_fprobe(&fp);
	KUNIT_ASSERT_EQ(test, atomic_read(&kpf_rh.traces), 1);
	/* Both hooks saw the return... */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf_rh.outer_returns), 2);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	/* ...and the trace went through both to the real callers. */
	KUNIT_EXPECT_TRUE(test, kpf_rh.has_caller);
	KUNIT_EXPECT_TRUE(test, kpf_rh.has_test);
	KUNIT_EXPECT_FALSE(test, kpf_rh.has_trampoline);
	/*
	 * Both handlers are shown the real return, whichever hook took it
	 * first and saved the other's trampoline.
	 */
	KUNIT_EXPECT_TRUE(test, kpt_sym_starts(kpf_rh.rp_ip,
					       "kpf_rh_both_caller+"));
	KUNIT_EXPECT_EQ(test, kpf_rh.rp_retaddr, kpf_rh.rp_ip);
	KUNIT_EXPECT_EQ(test, kpf_rh.fp_ip, kpf_rh.rp_ip);
}
#endif /* CONFIG_FPROBE */
#endif

static struct kunit_case kpf_cases[] = {
	KUNIT_CASE(kpf_entry_probe_fires),
	KUNIT_CASE(kpf_inside_call_site_refused),
	KUNIT_CASE(kpf_with_function_tracer),
	KUNIT_CASE(kpf_reentry_counts_missed),
#ifdef CONFIG_KPROBES_ON_FTRACE
	KUNIT_CASE(kpf_pre_handler_redirects),
	KUNIT_CASE(kpf_ipmodify_conflict),
	KUNIT_CASE(kpf_refused_claim_runs_nothing),
	KUNIT_CASE(kpf_disable_enable_aggregate),
	KUNIT_CASE_PARAM(kpf_probe_keeps_livepatch, kpf_livepatch_order_gen_params),
	KUNIT_CASE(kpf_point_moves_between_ops),
#endif
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(kpf_kretprobe_on_entry),
#ifdef CONFIG_FPROBE
	KUNIT_CASE_PARAM(kpf_two_return_hooks_trace, kpf_two_hooks_order_gen_params),
	KUNIT_CASE_PARAM(kpf_two_return_hooks_one_function,
			 kpf_one_function_order_gen_params),
#endif
#endif
	{}
};

static struct kunit_suite kpf_suite = {
	.name = "kprobes_ftrace_test",
	.init = kpf_init,
	.test_cases = kpf_cases,
};

kunit_test_suites(&kpf_suite);

MODULE_DESCRIPTION("KUnit tests for kprobes with the function tracer");
MODULE_LICENSE("GPL");
