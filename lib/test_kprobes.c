// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kprobes.
 *
 * Each case checks one behaviour (kretprobes: test_kretprobes.c, the jump
 * optimizer: test_kprobes_opt.c).  Probe targets are noinline functions of
 * this file with distinct names, so nothing else in the kernel hits them;
 * handlers record what they saw in kpt_state, which .init resets.
 * Concurrency tests run against a deadline, never a fixed sleep.
 *
 * Built as a module (CONFIG_KPROBES_SANITY_TEST=m) the file uses only what
 * a module may: the lookups below search the module's own symbol, jump
 * and bug tables where the built-in tests ask kallsyms and the kernel's
 * tables, and the cases that need what is not exported (the blacklist, the
 * jump label index under kprobe_mutex, the freeing of init text,
 * kprobe_running(), on x86 the instruction decoder) skip there.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/static_call_types.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/asm.h>
#include <linux/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/ibt.h>
#include <asm/insn.h>
#include <asm/msr.h>
#include <asm/word-at-a-time.h>
#endif

#include "test_kprobes.h"

/* What the handlers saw; reset before each case */
static struct {
	int pre_hits;
	int post_hits;
	int pre_hits_b;
	int pre_hits_c;
	bool pre_preemptible;
	bool post_preemptible;
	int order_errors;
	long fault_ret;
	char ran[8];
	int nr_ran;
} kpt_state;

static noinline __noipa int kpt_target_add(int a, int b)
{
	return a + b;
}

static noinline __noipa int kpt_target_mul(int a, int b)
{
	return a * b;
}

static noinline __noipa int kpt_target_sub(int a, int b)
{
	return a - b;
}

static noinline __noipa int kpt_target_nested(int a)
{
	return a ^ 0x5a;
}

static noinline __noipa int kpt_target_redirected(int a)
{
	return a + 1000;
}

static noinline __noipa int kpt_replacement(int a)
{
	return -a;
}

static int kpt_pre_count(struct kprobe *p, struct pt_regs *regs)
{
	kpt_state.pre_hits++;
	kpt_state.pre_preemptible = preemptible();
	return 0;
}

static void kpt_post_count(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
	if (kpt_state.post_hits >= kpt_state.pre_hits)
		kpt_state.order_errors++;
	kpt_state.post_hits++;
	kpt_state.post_preemptible = preemptible();
}

static int kpt_pre_count_b(struct kprobe *p, struct pt_regs *regs)
{
	kpt_state.pre_hits_b++;
	return 0;
}

static int kpt_pre_count_c(struct kprobe *p, struct pt_regs *regs)
{
	kpt_state.pre_hits_c++;
	return 0;
}

static int kpt_test_init(struct kunit *test)
{
	memset(&kpt_state, 0, sizeof(kpt_state));
	return 0;
}

/*
 * kprobe_running() reads a per-CPU variable of the core that is not
 * exported: as a module, @fallback stands in and the checks on it are moot.
 */
static struct kprobe *kpt_kprobe_running(struct kprobe *fallback)
{
	return KPT_BUILTIN ? kprobe_running() : fallback;
}

/* The address of this file's symbol @name, 0 if there is none */
static unsigned long kpt_lookup_name(const char *name)
{
#ifdef MODULE
	unsigned long addr = 0, size;

	return kpt_module_sym(name, &addr, &size) ? addr : 0;
#else
	return kallsyms_lookup_name(name);
#endif
}

/* The size of this file's function @fn, 0 if unknown */
static unsigned long kpt_function_size(void *fn)
{
	unsigned long addr = (unsigned long)fn, size;
#ifdef MODULE

	return kpt_module_sym(NULL, &addr, &size) ? size : 0;
#else
	unsigned long off;

	if (!kallsyms_lookup_size_offset(addr, &size, &off) || off)
		return 0;
	return size;
#endif
}

#define KPT_PROBE(fn)	{ .addr = (kprobe_opcode_t *)(fn),		\
			  .pre_handler = kpt_pre_count,			\
			  .post_handler = kpt_post_count }

/* ---------------------------------------------------------------------- */
/* Registration                                                            */
/* ---------------------------------------------------------------------- */

static void kpt_register_addr_fires(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5);
	KUNIT_EXPECT_EQ(test, kpt_target_add(4, 5), 9);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.order_errors, 0);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0UL);
}

static void kpt_register_symbol_fires(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpt_target_mul",
		.pre_handler = kpt_pre_count,
	};

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_NOT_NULL(test, kp.addr);
	KUNIT_EXPECT_EQ(test, kpt_target_mul(6, 7), 42);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
}

static void kpt_register_symbol_offset(struct kunit *test)
{
	unsigned int off = kpt_second_insn_offset(kpt_target_sub);
	struct kprobe kp = {
		.symbol_name = "kpt_target_sub",
		.offset = off,
		.pre_handler = kpt_pre_count,
	};

	if (!KPT_HAVE_DECODER)
		kunit_skip(test, KPT_NO_DECODER);

	KUNIT_ASSERT_NE(test, off, 0U);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)kp.addr, (void *)kpt_target_sub + off);
	KUNIT_EXPECT_EQ(test, kpt_target_sub(10, 4), 6);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	KUNIT_EXPECT_FALSE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
}

static void kpt_entry_skips_endbr(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);
	unsigned long expect = (unsigned long)kpt_target_add;

	OPTIMIZER_HIDE_VAR(expect);
#ifdef CONFIG_X86
	if (is_endbr(*(u32 *)kpt_target_add))
		expect += ENDBR_INSN_SIZE;
#endif
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, expect);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	unregister_kprobe(&kp);
}

static void kpt_on_func_entry(struct kunit *test)
{
	kprobe_opcode_t *fn = (kprobe_opcode_t *)kpt_target_sub;
	unsigned int second = kpt_second_insn_offset(kpt_target_sub);

	/* 0 at an entry, as trace_kprobe and bpf_trace expect */
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpt_target_sub", 0), 0);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(fn, NULL, 0), 0);
#ifdef CONFIG_X86
	/* Just past an ENDBR is where an entry probe goes: still the entry */
	if (is_endbr(*(u32 *)kpt_target_sub)) {
		KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpt_target_sub",
							   ENDBR_INSN_SIZE), 0);
		KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(fn, NULL,
							   ENDBR_INSN_SIZE), 0);
	}
#endif
	/* -EINVAL past the entry */
	if (KPT_HAVE_DECODER) {
		KUNIT_ASSERT_NE(test, second, 0U);
		KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpt_target_sub",
							   second), -EINVAL);
		KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(fn, NULL, second),
				-EINVAL);
	}
	/* -ENOENT for an unknown symbol; -EINVAL for a malformed request */
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpt_no_such_symbol_anywhere",
						   0), -ENOENT);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(fn, "kpt_target_sub", 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, NULL, 0), -EINVAL);
}

static unsigned long kpt_sum_hits(struct kprobe *kp)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(kp->hits, cpu);
	return sum;
}

static unsigned long kpt_point_hits(struct kprobe *kp, enum kprobe_hit_kind kind)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(kp->point->counts, cpu)->n[kind];
	return sum;
}

/* The statistics: each kprobe counts its hits, the point how it served them. */
static void kpt_hit_statistics(struct kunit *test)
{
	struct kprobe a = KPT_PROBE(kpt_target_add);
	struct kprobe b = { .addr = (kprobe_opcode_t *)kpt_target_add,
			    .pre_handler = kpt_pre_count_b };
	unsigned long served = 0;
	int kind;

	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b), 0);
	kpt_target_add(1, 2);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_sum_hits(&a), 3UL);
	KUNIT_EXPECT_EQ(test, kpt_sum_hits(&b), 1UL);
	for (kind = 0; kind < KPROBE_HIT_MISSED; kind++)
		served += kpt_point_hits(&a, kind);
	KUNIT_EXPECT_EQ(test, served, 3UL);
	KUNIT_EXPECT_EQ(test, kpt_point_hits(&a, KPROBE_HIT_MISSED), 0UL);
	/* A post_handler takes a trap after the instruction, or emulation */
	KUNIT_EXPECT_EQ(test, kpt_point_hits(&a, KPROBE_HIT_STEPPED) +
			kpt_point_hits(&a, KPROBE_HIT_EMULATED), 3UL);
	unregister_kprobe(&a);
	unregister_kprobe(&b);
	KUNIT_EXPECT_NULL(test, a.hits);
}

/*
 * A kprobe's hit counter comes from a chunk shared by many kprobes: one
 * given back is handed out again, and starts from zero on every CPU.
 */
static void kpt_hit_counter_recycled(struct kunit *test)
{
	struct kprobe keep = KPT_PROBE(kpt_target_sub);
	struct kprobe a = KPT_PROBE(kpt_target_add);
	struct kprobe b = KPT_PROBE(kpt_target_add);
	unsigned long __percpu *counter;

	/* @keep's counter keeps the chunk that @a's comes from */
	KUNIT_ASSERT_EQ(test, register_kprobe(&keep), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	kpt_target_add(1, 2);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_sum_hits(&a), 2UL);
	counter = a.hits;
	unregister_kprobe(&a);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	/* The first free counter: the one @a gave back */
	KUNIT_EXPECT_PTR_EQ(test, b.hits, counter);
	KUNIT_EXPECT_EQ(test, kpt_sum_hits(&b), 0UL);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_sum_hits(&b), 1UL);
	unregister_kprobe(&b);
	unregister_kprobe(&keep);
}

static void kpt_register_both_addr_and_symbol(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);

	kp.symbol_name = "kpt_target_add";
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
}

static void kpt_register_neither_addr_nor_symbol(struct kunit *test)
{
	struct kprobe kp = { .pre_handler = kpt_pre_count };

	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobe(NULL), -EINVAL);
}

static void kpt_register_unknown_symbol(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpt_no_such_symbol_anywhere",
		.pre_handler = kpt_pre_count,
	};

	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -ENOENT);
}

static void kpt_register_inside_instruction(struct kunit *test)
{
	unsigned int off = kpt_second_insn_offset(kpt_target_sub);
	struct kprobe kp = {
		.symbol_name = "kpt_target_sub",
		.offset = off - 1,
		.pre_handler = kpt_pre_count,
	};

	if (!KPT_HAVE_DECODER)
		kunit_skip(test, KPT_NO_DECODER);

	KUNIT_ASSERT_GT(test, off, 1U);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EILSEQ);
}

static void kpt_register_twice(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
}

static void kpt_reregister_after_unregister(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	unregister_kprobe(&kp);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
}

static void kpt_unregister_unregistered(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);
	struct kprobe *kps[] = { &kp };

	/* Never registered: ignored, but its address is cleared. */
	unregister_kprobe(&kp);
	KUNIT_EXPECT_NULL(test, kp.addr);
	kp.addr = (kprobe_opcode_t *)kpt_target_add;
	unregister_kprobe(NULL);
	unregister_kprobes(NULL, 1);
	unregister_kprobes(&kps[0], -1);
	KUNIT_EXPECT_EQ(test, register_kprobes(NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, enable_kprobe(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 0);
}

/*
 * What a caller may hand to unregister_kprobes() by mistake: one kprobe
 * twice, and one never registered whose fields hold anything (as if
 * allocated without zeroing, or copied from a registered one).  Only the
 * registered one is unregistered, once; the stranger loses its address and
 * nothing of it is followed.
 */
static void kpt_unregister_twice_and_stranger(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);
	struct kprobe stranger;
	struct kprobe *kps[] = { &kp, &stranger, &kp };

	memset(&stranger, 0x6b, sizeof(stranger));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	stranger.flags = kp.flags | 0xffff0000;
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_NULL(test, stranger.addr);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 0);
	/* Unregistered for good: it registers again */
	kp.addr = NULL;
	kp.symbol_name = "kpt_target_add";
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 2), 4);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
}

static void kpt_only_disabled_flag_taken(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);

	kp.flags = KPROBE_FLAG_GONE | KPROBE_FLAG_OPTIMIZED | KPROBE_FLAG_FTRACE;
	kp.nmissed = 99;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kp.flags & (KPROBE_FLAG_GONE |
					     KPROBE_FLAG_OPTIMIZED |
					     KPROBE_FLAG_FTRACE));
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0UL);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
}

/* Symbols that must be refused: kprobes' own code, noinstr, entry code */
static const char * const kpt_refused_symbols[] = {
	"__kprobe_run_pre_handlers",
	"kprobe_point_lookup",
#ifdef CONFIG_TREE_RCU
	/* Called by a hit without a trap before the hit is marked */
	"rcu_is_watching",
#endif
#ifdef CONFIG_PROVE_LOCKING
	/* Called by the exception exit, which a trap on it recursed into */
	"lockdep_hardirqs_on_prepare",
#endif
#ifdef CONFIG_X86
	"kprobe_int3_handler",
	"exc_int3",
	"entry_SYSCALL_64",
#endif
#ifdef CONFIG_ARM64
	"kprobe_brk_handler",
	"do_debug_exception",
	"el1h_64_sync",
#ifdef CONFIG_PREEMPTION
	/* Called by the BRK entry, before the hit is marked */
	"preempt_schedule_notrace",
#endif
#ifdef CONFIG_CPU_PM
	"_cpu_resume",
#endif
#endif
};

KUNIT_ARRAY_PARAM(kpt_refused, kpt_refused_symbols, kpt_name_desc);

static void kpt_register_refused_symbol(struct kunit *test)
{
	const char * const *sym = test->param_value;
	/*
	 * Disabled: a probe that should have been refused is never armed,
	 * as some of these take the kernel down as soon as they are.
	 */
	struct kprobe kp = {
		.symbol_name = *sym,
		.pre_handler = kpt_pre_count,
		.flags = KPROBE_FLAG_DISABLED,
	};

	kpt_expect_refused(test, &kp, -EINVAL);
	/* Refused by the blacklist (an internal: built in only) */
	if (KPT_BUILTIN)
		KUNIT_EXPECT_TRUE(test, within_kprobe_blacklist(kallsyms_lookup_name(*sym)));
}

/*
 * Functions refused under every name they have: static inline helpers the
 * compiler did not inline have one local copy per object file that calls
 * them.  Each copy must be refused, not only the first the symbol table
 * finds (kprobe_blacklist_add_functions()).
 */
static const char * const kpt_refused_copies[] = {
#ifdef CONFIG_ARM64
	"arch_irqs_disabled_flags",
	/* opt.o calls its copy before kprobe_opt_hit() tells a nested hit */
	"arch_local_irq_save",
	"arch_local_irq_restore",
#endif
	"rcu_is_watching",
};

KUNIT_ARRAY_PARAM(kpt_refused_copy, kpt_refused_copies, kpt_name_desc);

/* kallsyms_on_each_symbol() is not exported to modules */
#if IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)
/**
 * struct kpt_copies - what kpt_check_copy() found
 * @name: the name looked for
 * @prefix: match every name that begins with @name
 * @found: functions of that name in the kernel's text
 * @probed: of these, how many took a kprobe
 * @addrs: the first few of these, for the report
 */
struct kpt_copies {
	const char *name;
	bool prefix;
	int found;
	int probed;
	unsigned long addrs[4];
};

static int kpt_check_copy(void *data, const char *name, struct module *mod,
			  unsigned long addr)
{
	struct kpt_copies *c = data;
	/* Never armed, as in kpt_register_refused_symbol() */
	struct kprobe kp = {
		.pre_handler = kpt_pre_count,
		.flags = KPROBE_FLAG_DISABLED,
	};

	if (mod || !core_kernel_text(addr))
		return 0;
	if (c->prefix ? !str_has_prefix(name, c->name) : strcmp(name, c->name))
		return 0;
	c->found++;
	kp.addr = (kprobe_opcode_t *)addr;
	if (register_kprobe(&kp) == 0) {
		unregister_kprobe(&kp);
		if (c->probed < ARRAY_SIZE(c->addrs))
			c->addrs[c->probed] = addr;
		c->probed++;
	}
	return 0;
}

/* Try every function @c names; none may take a kprobe. */
static void kpt_expect_copies_refused(struct kunit *test, struct kpt_copies *c)
{
	int i;

	kallsyms_on_each_symbol(kpt_check_copy, c);
	if (!c->found)
		kunit_skip(test, "no function %s%s in this kernel", c->name,
			   c->prefix ? "*" : "");
	for (i = 0; i < min_t(int, c->probed, ARRAY_SIZE(c->addrs)); i++)
		kunit_info(test, "%pS took a kprobe\n", (void *)c->addrs[i]);
	KUNIT_EXPECT_EQ_MSG(test, c->probed, 0, "%d of %d %s%s probeable",
			    c->probed, c->found, c->name, c->prefix ? "*" : "");
}

static void kpt_register_refused_copies(struct kunit *test)
{
	struct kpt_copies c = { .name = *(const char * const *)test->param_value };

	kpt_expect_copies_refused(test, &c);
}

/*
 * Static call trampolines are static_call_update()'s, which BUG()s on a
 * breakpoint it finds in one: every one of them is refused.
 */
static void kpt_register_refused_static_call_tramps(struct kunit *test)
{
	struct kpt_copies c = {
		.name = STATIC_CALL_TRAMP_PREFIX_STR,
		.prefix = true,
	};

	kpt_expect_copies_refused(test, &c);
}
#else
static void kpt_register_refused_copies(struct kunit *test)
{
	kunit_skip(test, "needs the test built in");
}

static void kpt_register_refused_static_call_tramps(struct kunit *test)
{
	kunit_skip(test, "needs the test built in");
}
#endif

static int kpt_data_word = 42;

static void kpt_register_non_text(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)&kpt_data_word,
		.pre_handler = kpt_pre_count,
	};

	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_data_word, 42);
	/* Addresses no symbol covers: user space, and the first kernel page */
	kp.addr = (kprobe_opcode_t *)0x1000;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	kp.addr = (kprobe_opcode_t *)PAGE_OFFSET;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
}

static DEFINE_STATIC_KEY_FALSE(kpt_key);

static noinline __noipa int kpt_target_jump_label(int a)
{
	if (static_branch_unlikely(&kpt_key))
		return a * 3;
	return a;
}

static noinline __noipa int kpt_target_warn(int a)
{
	WARN_ON_ONCE(a == 0x7eadbeef);
	return a + 2;
}

/* Find the first address in @fn that @pred accepts. */
static void *kpt_find_site(void *fn, bool (*pred)(void *addr))
{
	unsigned long size = kpt_function_size(fn), off;

	for (off = 0; off < size; off++) {
		if (pred(fn + off))
			return fn + off;
	}
	return NULL;
}

static bool kpt_is_jump_label_site(void *addr)
{
#ifdef MODULE
	/* The first byte of one of this module's jump label sites */
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_jump_entries; i++) {
		if (jump_entry_code(&THIS_MODULE->jump_entries[i]) ==
		    (unsigned long)addr)
			return true;
	}
	return false;
#else
	bool ret;

	jump_label_lock();
	ret = jump_label_text_reserved(addr, addr);
	jump_label_unlock();
	return ret;
#endif
}

/*
 * kprobe_jump_label_reserved() answers as jump_label_text_reserved() on
 * every byte around a sample of the kernel's jump label sites.
 */
static void kpt_jump_label_index(struct kunit *test)
{
#ifndef CONFIG_JUMP_LABEL
	kunit_skip(test, "no CONFIG_JUMP_LABEL");
#elif defined(MODULE)
	kunit_skip(test, "the jump label index is internal: built in only");
#else
	unsigned int n = __stop___jump_table - __start___jump_table, i;
	unsigned long code, at;
	int checked = 0;

	mutex_lock(&kprobe_mutex);
	for (i = 0; i < n; i += max(n / 64, 1U)) {
		code = jump_entry_code(__start___jump_table + i);
		for (at = code - 8; at < code + 8; at++) {
			KUNIT_EXPECT_EQ_MSG(test, kprobe_jump_label_reserved(at, at),
					    kpt_is_jump_label_site((void *)at),
					    "at %pS", (void *)at);
			checked++;
		}
	}
	mutex_unlock(&kprobe_mutex);
	KUNIT_EXPECT_GT(test, checked, 0);
#endif
}

static bool kpt_is_bug_site(void *addr)
{
#if defined(MODULE) && defined(CONFIG_GENERIC_BUG)
	/* One of this module's BUG()/WARN() traps */
	const struct bug_entry *bug;
	unsigned long at;
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_bugs; i++) {
		bug = &THIS_MODULE->bug_table[i];
#ifdef CONFIG_GENERIC_BUG_RELATIVE_POINTERS
		at = (unsigned long)&bug->bug_addr_disp + bug->bug_addr_disp;
#else
		at = bug->bug_addr;
#endif
		if (at == (unsigned long)addr)
			return true;
	}
	return false;
#elif defined(MODULE)
	return false;
#else
	return find_bug((unsigned long)addr);
#endif
}

static void kpt_register_jump_label_site(struct kunit *test)
{
	void *site = kpt_find_site(kpt_target_jump_label, kpt_is_jump_label_site);
	struct kprobe kp = { .addr = site, .pre_handler = kpt_pre_count };

	KUNIT_ASSERT_NOT_NULL(test, site);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EBUSY);
	KUNIT_EXPECT_EQ(test, kpt_target_jump_label(5), 5);
}

static void kpt_register_bug_site(struct kunit *test)
{
	void *site = kpt_find_site(kpt_target_warn, kpt_is_bug_site);
	struct kprobe kp = { .addr = site, .pre_handler = kpt_pre_count };

	KUNIT_ASSERT_NOT_NULL(test, site);
	KUNIT_EXPECT_NE(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_warn(1), 3);
}

/* ---------------------------------------------------------------------- */
/* Handlers                                                                */
/* ---------------------------------------------------------------------- */

static void kpt_handlers_preemption_disabled(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);

	kpt_state.pre_preemptible = true;
	kpt_state.post_preemptible = true;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kpt_target_add(1, 2);
	unregister_kprobe(&kp);
	KUNIT_ASSERT_EQ(test, kpt_state.pre_hits, 1);
	KUNIT_EXPECT_FALSE(test, kpt_state.pre_preemptible);
	KUNIT_EXPECT_FALSE(test, kpt_state.post_preemptible);
}

static struct kprobe *kpt_running_seen;

static int kpt_pre_running(struct kprobe *p, struct pt_regs *regs)
{
	kpt_running_seen = kpt_kprobe_running(NULL);
	return 0;
}

static void kpt_kprobe_running_in_handler(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpt_target_add,
		.pre_handler = kpt_pre_running,
	};

	if (!KPT_BUILTIN)
		kunit_skip(test, "kprobe_running() is internal: built in only");
	kpt_running_seen = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kpt_target_add(1, 2);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_PTR_EQ(test, kpt_running_seen, &kp);
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_kprobe_running(NULL));
	preempt_enable();
}

static int kpt_pre_redirect(struct kprobe *p, struct pt_regs *regs)
{
	kpt_state.pre_hits++;
	instruction_pointer_set(regs, (unsigned long)kpt_replacement);
	return 1;
}

static void kpt_pre_handler_redirects(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpt_target_redirected,
		.pre_handler = kpt_pre_redirect,
		.post_handler = kpt_post_count,
	};

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_redirected(7), -7);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_target_redirected(7), 1007);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	/* No replay, so no post_handler. */
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 0);
}

static struct kprobe kpt_nested_kp;

static int kpt_pre_calls_nested(struct kprobe *p, struct pt_regs *regs)
{
	kpt_state.pre_hits++;
	kpt_state.fault_ret = kpt_target_nested(kpt_state.pre_hits);
	return 0;
}

static void kpt_reentry_counts_missed(struct kunit *test)
{
	struct kprobe outer = {
		.addr = (kprobe_opcode_t *)kpt_target_mul,
		.pre_handler = kpt_pre_calls_nested,
	};
	int i;

	kpt_nested_kp = (struct kprobe) {
		.addr = (kprobe_opcode_t *)kpt_target_nested,
		.pre_handler = kpt_pre_count_b,
	};
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpt_nested_kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&outer), 0);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, kpt_target_mul(i, 3), i * 3);
	/* The nested function still ran, and returned the right value. */
	KUNIT_EXPECT_EQ(test, kpt_state.fault_ret, 5 ^ 0x5a);
	/* Outside a handler the nested probe fires normally. */
	kpt_target_nested(1);
	unregister_kprobe(&outer);
	unregister_kprobe(&kpt_nested_kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 5);
	KUNIT_EXPECT_EQ(test, kpt_nested_kp.nmissed, 5UL);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 1);
	KUNIT_EXPECT_EQ(test, outer.nmissed, 0UL);
}

static int kpt_pre_faults(struct kprobe *p, struct pt_regs *regs)
{
	void *unmapped = (void *)kpt_state.fault_ret;
	long val;

	kpt_state.pre_hits++;
	kpt_state.fault_ret = copy_from_kernel_nofault(&val, unmapped,
						       sizeof(val));
	return 0;
}

static void kpt_fault_in_handler(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpt_target_add,
		.pre_handler = kpt_pre_faults,
	};
	void *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, area);
	/* The guard page behind a vmalloc area is never mapped. */
	kpt_state.fault_ret = (long)(area + PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(20, 22), 42);
	unregister_kprobe(&kp);
	vfree(area);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.fault_ret, (long)-EFAULT);
}

/* Only reached through kallsyms: nothing refers to it directly. */
static noinline __noipa __used __init int kpt_init_target(int a)
{
	return a + 3;
}

static void kpt_init_text_becomes_gone(struct kunit *test)
{
#ifdef MODULE
	kunit_skip(test, "kprobe_free_init_mem() is internal: built in only");
#else
	struct kprobe kp = {
		.symbol_name = "kpt_init_target",
		.pre_handler = kpt_pre_count,
	};

	/* KUnit runs at boot, before the init sections are freed. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_gone(&kp));
	/* What the init code calls just before it frees init memory */
	kprobe_free_init_mem();
	KUNIT_EXPECT_TRUE(test, kprobe_gone(&kp));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&kp));
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	unregister_kprobe(&kp);
	/* Unregistered for real: the struct registers again elsewhere. */
	kp.symbol_name = NULL;
	kp.addr = (kprobe_opcode_t *)kpt_target_add;
	kp.flags = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
#endif
}

/* ---------------------------------------------------------------------- */
/* Batches, aggregates, enable and disable                                 */
/* ---------------------------------------------------------------------- */

static void kpt_batch_register_unregister(struct kunit *test)
{
	struct kprobe a = KPT_PROBE(kpt_target_add);
	struct kprobe b = KPT_PROBE(kpt_target_mul);
	struct kprobe c = KPT_PROBE(kpt_target_sub);
	struct kprobe *kps[] = { &a, &b, &c };

	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	kpt_target_add(1, 2);
	kpt_target_mul(1, 2);
	kpt_target_sub(1, 2);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 3);
	kpt_target_add(1, 2);
	kpt_target_mul(1, 2);
	kpt_target_sub(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 3);
}

static void kpt_batch_register_rolls_back(struct kunit *test)
{
	struct kprobe a = KPT_PROBE(kpt_target_add);
	struct kprobe b = KPT_PROBE(kpt_target_mul);
	struct kprobe bad = { .symbol_name = "kpt_no_such_symbol_anywhere" };
	struct kprobe *kps[] = { &a, &b, &bad };

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), -ENOENT);
	kpt_target_add(1, 2);
	kpt_target_mul(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 0);
	/* Rolled back for real: the same structs register again. */
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 2), 0);
	unregister_kprobes(kps, 2);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 0), -EINVAL);
}

static void kpt_aggregate_all_run(struct kunit *test)
{
	struct kprobe a = KPT_PROBE(kpt_target_add);
	struct kprobe b = { .addr = (kprobe_opcode_t *)kpt_target_add,
			    .pre_handler = kpt_pre_count_b };
	struct kprobe c = { .addr = (kprobe_opcode_t *)kpt_target_add,
			    .pre_handler = kpt_pre_count_c };

	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&c), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_c, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 1);

	/* Removing one leaves the others armed. */
	unregister_kprobe(&b);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_c, 2);

	/* Adding one back joins the point. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 2);
	unregister_kprobe(&a);
	unregister_kprobe(&c);
	kpt_target_add(1, 2);
	unregister_kprobe(&b);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 3);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_c, 3);
}

static struct kprobe kpt_order_kp[4];

/* Which kprobe of kpt_order_kp ran, in order: 'a' for the first */
static int kpt_pre_record(struct kprobe *p, struct pt_regs *regs)
{
	if (kpt_state.nr_ran < (int)sizeof(kpt_state.ran) - 1)
		kpt_state.ran[kpt_state.nr_ran++] = 'a' + (p - kpt_order_kp);
	return 0;
}

static const char *kpt_run_recorded(int (*fn)(int, int))
{
	memset(kpt_state.ran, 0, sizeof(kpt_state.ran));
	kpt_state.nr_ran = 0;
	fn(1, 2);
	return kpt_state.ran;
}

/*
 * A point with several kprobes runs the enabled ones in registration
 * order, from an array rebuilt on every change, or from its list where a
 * kprobe without a pre_handler is among them.
 */
static void kpt_aggregate_order(struct kunit *test)
{
	struct kprobe *kp = kpt_order_kp;
	struct kprobe *kps[] = { &kp[0], &kp[1], &kp[2] };
	int i, ret;

	memset(kpt_order_kp, 0, sizeof(kpt_order_kp));
	for (i = 0; i < 4; i++) {
		kp[i].addr = (kprobe_opcode_t *)kpt_target_sub;
		kp[i].pre_handler = kpt_pre_record;
	}
	/* All or none: a failed assertion leaves nothing registered */
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	KUNIT_EXPECT_STREQ(test, kpt_run_recorded(kpt_target_sub), "abc");
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp[1]), 0);
	KUNIT_EXPECT_STREQ(test, kpt_run_recorded(kpt_target_sub), "ac");
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp[1]), 0);
	KUNIT_EXPECT_STREQ(test, kpt_run_recorded(kpt_target_sub), "abc");
	KUNIT_EXPECT_EQ(test, kpt_sum_hits(&kp[1]), 2UL);

	/* No pre_handler: counted, and the others still run */
	kp[3].pre_handler = NULL;
	ret = register_kprobe(&kp[3]);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_STREQ(test, kpt_run_recorded(kpt_target_sub),
				   "abc");
		KUNIT_EXPECT_EQ(test, kpt_sum_hits(&kp[3]), 1UL);
		unregister_kprobe(&kp[3]);
	}
	unregister_kprobe(&kp[0]);
	KUNIT_EXPECT_STREQ(test, kpt_run_recorded(kpt_target_sub), "bc");
	unregister_kprobe(&kp[2]);
	/* Alone again */
	KUNIT_EXPECT_STREQ(test, kpt_run_recorded(kpt_target_sub), "b");
	unregister_kprobe(&kp[1]);
	KUNIT_EXPECT_STREQ(test, kpt_run_recorded(kpt_target_sub), "");
}

static void kpt_disable_enable(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&kp));
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&kp));
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	unregister_kprobe(&kp);
}

static void kpt_register_disabled(struct kunit *test)
{
	struct kprobe kp = KPT_PROBE(kpt_target_add);

	kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	unregister_kprobe(&kp);
}

static void kpt_disable_one_of_aggregate(struct kunit *test)
{
	struct kprobe a = KPT_PROBE(kpt_target_add);
	struct kprobe b = { .addr = (kprobe_opcode_t *)kpt_target_add,
			    .pre_handler = kpt_pre_count_b };

	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a), 0);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 0);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 1);
	/* a's post_handler is disabled with it. */
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b), 0);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 1);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a), 0);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 1);
	/* Both enabled: the walk runs both, and a's post_handler after. */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b), 0);
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 2);
	unregister_kprobe(&a);
	/* Left with b alone, the point has no post_handler to run. */
	kpt_target_add(1, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 3);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 2);
	unregister_kprobe(&b);
}

/* ---------------------------------------------------------------------- */
/* Instruction kinds                                                       */
/* ---------------------------------------------------------------------- */

#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
#define KPT_HAVE_INSN_TESTS
/*
 * Small assembly functions, each with one probed instruction at label 1.
 * kpt_insn_<name>_off holds the label's offset from the function start (a
 * difference of two labels, so no relocation into the middle of code).
 * Each takes two arguments and returns one; the tests find them, and call
 * them, through kallsyms (or the module's symbol table).
 */
#ifdef CONFIG_X86_64
#define KPT_INSN_ENTRY	"	.byte 0xf3, 0x0f, 0x1e, 0xfa\n"	/* endbr64 */
/*
 * objtool leaves them alone, as STACK_FRAME_NON_STANDARD() would: they
 * skip code on purpose (a jump over an instruction the test must not see
 * run), push and pop at will, and nothing unwinds through them.
 */
#define KPT_INSN_OBJTOOL(name)						\
	".pushsection .discard.func_stack_frame_non_standard, \"aw\"\n"	\
	".quad kpt_insn_" #name "\n"					\
	".popsection\n"
#else
#define KPT_INSN_ENTRY	""
#define KPT_INSN_OBJTOOL(name)	""
#endif

#define KPT_INSN_FN(name, before, probed, after)			\
	asm(".pushsection .text\n"					\
	    ".globl kpt_insn_" #name "\n"				\
	    ".type kpt_insn_" #name ", %function\n"				\
	    ".balign 4\n"			\
	    "kpt_insn_" #name ":\n"					\
	    KPT_INSN_ENTRY						\
	    before							\
	    "1:\n"							\
	    probed							\
	    after							\
	    ".size kpt_insn_" #name ", .-kpt_insn_" #name "\n"		\
	    ".popsection\n"						\
	    KPT_INSN_OBJTOOL(name)					\
	    ".pushsection .rodata\n"					\
	    ".balign 4\n"						\
	    "kpt_insn_" #name "_off: .long 1b - kpt_insn_" #name "\n"	\
	    ".popsection\n")

typedef long (*kpt_insn_fn_t)(long a, long b);

/* Find kpt_insn_<name> and the address of its probed instruction. */
static kpt_insn_fn_t kpt_insn_lookup(struct kunit *test, const char *name,
				     kprobe_opcode_t **probed)
{
	char sym[KSYM_NAME_LEN];
	unsigned long fn, off;

	snprintf(sym, sizeof(sym), "kpt_insn_%s", name);
	fn = kpt_lookup_name(sym);
	strlcat(sym, "_off", sizeof(sym));
	off = kpt_lookup_name(sym);
	KUNIT_ASSERT_NE(test, fn, 0UL);
	KUNIT_ASSERT_NE(test, off, 0UL);
	*probed = (kprobe_opcode_t *)(fn + *(const int *)off);
	return (kpt_insn_fn_t)fn;
}

struct kpt_insn_case {
	const char *name;
	long a, b, expect;
	int hits;
};

#define KPT_INSN_CASE_HITS(n, A, B, E, H)	{ #n, A, B, E, H }
#define KPT_INSN_CASE(n, A, B, E)	KPT_INSN_CASE_HITS(n, A, B, E, 1)

/*
 * Instructions that must be refused (and a few with err 0 that must not);
 * their functions never run.
 */
struct kpt_refused_insn {
	const char *name;
	int err;
};

#ifdef CONFIG_X86_64
static long kpt_insn_data __used;

asm(".pushsection .text\n"
	".type kpt_insn_helper, @function\n"
	"kpt_insn_helper:\n"
	"	.byte 0xf3, 0x0f, 0x1e, 0xfa\n"	/* endbr64: called indirectly */
	"	lea 100(%rdi), %rax\n"
	"	ret\n"
	".size kpt_insn_helper, .-kpt_insn_helper\n"
	".popsection\n");

KPT_INSN_FN(rip_load, "	movq %rdi, kpt_insn_data(%rip)\n",
	    "	movq kpt_insn_data(%rip), %rax\n", "	ret\n");
KPT_INSN_FN(rip_store, "",
	    "	movq %rsi, kpt_insn_data(%rip)\n",
	    "	movq kpt_insn_data(%rip), %rax\n	ret\n");
KPT_INSN_FN(push, "", "	push %rdi\n", "	pop %rax\n	ret\n");
KPT_INSN_FN(pop, "	push %rsi\n", "	pop %rax\n", "	ret\n");
KPT_INSN_FN(jmp_short, "	mov %rdi, %rax\n", "	jmp 2f\n",
	    "	mov %rsi, %rax\n2:	ret\n");
KPT_INSN_FN(jmp_near, "	mov %rdi, %rax\n",
	    "	.byte 0xe9\n	.long 2f - . - 4\n",
	    "	mov %rsi, %rax\n2:	ret\n");
KPT_INSN_FN(jcc_short, "	mov %rdi, %rax\n	cmp %rdi, %rsi\n",
	    "	je 2f\n", "	add $1, %rax\n2:	ret\n");
KPT_INSN_FN(jcc_near, "	mov %rdi, %rax\n	cmp %rdi, %rsi\n",
	    "	.byte 0x0f, 0x85\n	.long 2f - . - 4\n",
	    "	add $1, %rax\n2:	ret\n");
KPT_INSN_FN(call, "", "	call kpt_insn_helper\n", "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(call_reg, "	lea kpt_insn_helper(%rip), %rdx\n",
	    "	call *%rdx\n", "	add %rsi, %rax\n	ret\n");
/* Through a register that needs REX.B */
KPT_INSN_FN(call_reg_r11, "	lea kpt_insn_helper(%rip), %r11\n",
	    "	call *%r11\n", "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(jmp_reg_r10, "	lea kpt_insn_helper(%rip), %r10\n",
	    "	jmp *%r10\n", "");
KPT_INSN_FN(jmp_mem, "	lea kpt_insn_helper(%rip), %rdx\n"
	    "	mov %rdx, kpt_insn_data(%rip)\n",
	    "	jmp *kpt_insn_data(%rip)\n", "");
KPT_INSN_FN(call_mem, "	lea kpt_insn_helper(%rip), %rdx\n"
	    "	mov %rdx, kpt_insn_data(%rip)\n",
	    "	call *kpt_insn_data(%rip)\n", "	add %rsi, %rax\n	ret\n");
/*
 * jmp and call through a pointer in memory, in every way 64-bit mode forms
 * its address: base (and REX.B), base + disp8, base + index * scale (and
 * REX.X), rsp (the stack pointer before the call's push), r12 (a SIB byte
 * without index), r13 (a disp8 of 0), disp32 + index (no base), and with a
 * cs prefix (ignored; not notrack, which objtool rejects in kernel text).
 * Each reaches kpt_insn_helper through kpt_insn_data: a call returns into
 * its caller, whose result adds b; a jmp returns for it.
 */
#define KPT_INSN_PTR	"	lea kpt_insn_helper(%rip), %rdx\n"		\
			"	mov %rdx, kpt_insn_data(%rip)\n"
KPT_INSN_FN(call_mem_disp8, KPT_INSN_PTR
	    "	lea kpt_insn_data+16(%rip), %rcx\n",
	    "	call *-16(%rcx)\n", "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(call_mem_sib, KPT_INSN_PTR
	    "	lea kpt_insn_data(%rip), %rcx\n	mov $3, %edx\n",
	    "	call *-24(%rcx, %rdx, 8)\n", "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(call_mem_rex, KPT_INSN_PTR
	    "	lea kpt_insn_data-0x100(%rip), %r8\n	mov $0x40, %r9d\n",
	    "	call *(%r8, %r9, 4)\n", "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(call_mem_rsp, KPT_INSN_PTR "	push %rdx\n",
	    "	call *(%rsp)\n", "	pop %rdx\n	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(call_mem_r12, KPT_INSN_PTR
	    "	push %r12\n	lea kpt_insn_data(%rip), %r12\n",
	    "	call *(%r12)\n", "	pop %r12\n	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(call_mem_r13, KPT_INSN_PTR
	    "	push %r13\n	lea kpt_insn_data(%rip), %r13\n",
	    "	call *(%r13)\n", "	pop %r13\n	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(call_mem_abs, KPT_INSN_PTR "	mov $1, %edx\n",
	    "	call *kpt_insn_data-8(, %rdx, 8)\n",
	    "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(call_mem_cs, KPT_INSN_PTR
	    "	lea kpt_insn_data(%rip), %rcx\n",
	    "	.byte 0x2e\n	call *(%rcx)\n", "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(jmp_mem_r11, KPT_INSN_PTR "	lea kpt_insn_data(%rip), %r11\n",
	    "	jmp *(%r11)\n", "");
KPT_INSN_FN(jmp_mem_sib, KPT_INSN_PTR
	    "	lea kpt_insn_data-16(%rip), %r10\n	mov $4, %ecx\n",
	    "	jmp *8(%r10, %rcx, 2)\n", "");
KPT_INSN_FN(ret, "	lea (%rdi, %rsi), %rax\n", "	ret\n", "");
KPT_INSN_FN(loop, "	xor %eax, %eax\n	mov %rdi, %rcx\n2:	add %rsi, %rax\n",
	    "	loop 2b\n", "	ret\n");
KPT_INSN_FN(rep_movsb,
	    "	push %rdi\n	push %rsi\n	mov %rsp, %rsi\n	sub $16, %rsp\n"
	    "	mov %rsp, %rdi\n	mov $16, %ecx\n",
	    "	rep movsb\n",
	    "	mov (%rsp), %rax\n	add 8(%rsp), %rax\n	add $32, %rsp\n	ret\n");
KPT_INSN_FN(pushf, "", "	pushf\n",
	    "	pop %rax\n	and $0x200, %eax\n	ret\n");
KPT_INSN_FN(popf, "	pushf\n", "	popf\n", "	lea (%rdi, %rsi), %rax\n	ret\n");
KPT_INSN_FN(nop, "	mov %rdi, %rax\n", "	nop\n", "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(cli, "	pushf\n", "	cli\n",
	    "	pushf\n	pop %rax\n	and $0x200, %eax\n	popf\n	ret\n");
KPT_INSN_FN(push_r12, "	push %r12\n	mov %rdi, %r12\n", "	push %r12\n",
	    "	pop %rax\n	pop %r12\n	ret\n");
KPT_INSN_FN(pop_r13, "	push %r13\n	push %rsi\n", "	pop %r13\n",
	    "	mov %r13, %rax\n	pop %r13\n	ret\n");
KPT_INSN_FN(push_rsp, "", "	push %rsp\n",
	    "	pop %rax\n	sub %rsp, %rax\n	ret\n");
/* pop %rsp: the popped value, not the incremented one, lands in %rsp */
KPT_INSN_FN(pop_rsp,
	    "	push %rbp\n	mov %rsp, %rbp\n	push %rbp\n	push %rbp\n",
	    "	pop %rsp\n", "	lea (%rdi, %rsi), %rax\n	pop %rbp\n	ret\n");
/* objtool cannot follow a pop into %rsp */
asmlinkage void kpt_insn_pop_rsp(void);
STACK_FRAME_NON_STANDARD(kpt_insn_pop_rsp);
KPT_INSN_FN(mov_reg, "", "	mov %rdi, %rax\n", "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(mov_reg_8b, "", "	.byte 0x48, 0x8b, 0xc7\n",	/* mov %rdi, %rax */
	    "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(mov_reg32, "	mov $-1, %rax\n", "	mov %edi, %eax\n",
	    "	add %rsi, %rax\n	ret\n");
KPT_INSN_FN(mov_r9_r10, "	push %r10\n	mov %rdi, %r9\n", "	mov %r9, %r10\n",
	    "	lea (%r10, %rsi), %rax\n	pop %r10\n	ret\n");
KPT_INSN_FN(mov_rsp_rbp, "	push %rbp\n", "	mov %rsp, %rbp\n",
	    "	mov %rbp, %rax\n	sub %rsp, %rax\n	add %rdi, %rax\n"
	    "	pop %rbp\n	ret\n");
KPT_INSN_FN(mov_to_rsp, "	push %rbp\n	mov %rsp, %rbp\n", "	mov %rbp, %rsp\n",
	    "	pop %rbp\n	lea (%rdi, %rsi), %rax\n	ret\n");

static const struct kpt_insn_case kpt_insn_cases[] = {
	KPT_INSN_CASE(rip_load, 11, 0, 11),
	KPT_INSN_CASE(rip_store, 0, 12, 12),
	KPT_INSN_CASE(push, 13, 0, 13),
	KPT_INSN_CASE(pop, 0, 14, 14),
	KPT_INSN_CASE(jmp_short, 15, 99, 15),
	KPT_INSN_CASE(jmp_near, 16, 99, 16),
	KPT_INSN_CASE(jcc_short, 17, 17, 17),	/* taken */
	KPT_INSN_CASE(jcc_short, 17, 18, 18),	/* not taken */
	KPT_INSN_CASE(jcc_near, 19, 20, 19),	/* taken */
	KPT_INSN_CASE(jcc_near, 19, 19, 20),	/* not taken */
	KPT_INSN_CASE(call, 1, 2, 103),
	KPT_INSN_CASE(call_reg, 3, 4, 107),
	KPT_INSN_CASE(call_reg_r11, 20, 1, 121),
	KPT_INSN_CASE(jmp_reg_r10, 21, 99, 121),
	KPT_INSN_CASE(jmp_mem, 5, 99, 105),
	KPT_INSN_CASE(call_mem, 6, 1, 107),
	KPT_INSN_CASE(call_mem_disp8, 1, 2, 103),
	KPT_INSN_CASE(call_mem_sib, 3, 4, 107),
	KPT_INSN_CASE(call_mem_rex, 5, 6, 111),
	KPT_INSN_CASE(call_mem_rsp, 7, 8, 115),
	KPT_INSN_CASE(call_mem_r12, 9, 10, 119),
	KPT_INSN_CASE(call_mem_r13, 11, 12, 123),
	KPT_INSN_CASE(call_mem_abs, 13, 14, 127),
	KPT_INSN_CASE(call_mem_cs, 15, 16, 131),
	KPT_INSN_CASE(jmp_mem_r11, 17, 99, 117),
	KPT_INSN_CASE(jmp_mem_sib, 18, 99, 118),
	KPT_INSN_CASE(ret, 20, 22, 42),
	KPT_INSN_CASE_HITS(loop, 4, 5, 20, 4),	/* 3 taken, 1 not */
	KPT_INSN_CASE(rep_movsb, 30, 12, 42),
	KPT_INSN_CASE(pushf, 0, 0, 0x200),	/* the real IF, not the step's */
	KPT_INSN_CASE(popf, 40, 2, 42),
	KPT_INSN_CASE(nop, 40, 3, 43),
	KPT_INSN_CASE(cli, 0, 0, 0),
	KPT_INSN_CASE(push_r12, 21, 0, 21),
	KPT_INSN_CASE(pop_r13, 0, 22, 22),
	KPT_INSN_CASE(push_rsp, 0, 0, 0),	/* the value before the push */
	KPT_INSN_CASE(pop_rsp, 20, 3, 23),
	KPT_INSN_CASE(mov_reg, 20, 4, 24),
	KPT_INSN_CASE(mov_reg_8b, 20, 5, 25),
	KPT_INSN_CASE(mov_reg32, (1L << 32) + 20, 6, 26),
	KPT_INSN_CASE(mov_r9_r10, 20, 7, 27),
	KPT_INSN_CASE(mov_rsp_rbp, 20, 8, 20),
	KPT_INSN_CASE(mov_to_rsp, 20, 9, 29),
};

/*
 * What functions begin with is emulated: with a post_handler, one trap;
 * so are jmp and call through a register or memory.  (mov_to_rsp, a move
 * to the stack pointer, is stepped.)
 */
static const char * const kpt_emulated_insns[] = {
	"push", "pop", "push_r12", "pop_r13", "push_rsp", "pop_rsp",
	"mov_reg", "mov_reg_8b", "mov_reg32", "mov_r9_r10", "mov_rsp_rbp",
	"call_reg", "call_reg_r11", "jmp_reg_r10", "jmp_mem", "call_mem",
	"call_mem_disp8", "call_mem_sib", "call_mem_rex", "call_mem_rsp",
	"call_mem_r12", "call_mem_r13", "call_mem_abs", "call_mem_cs",
	"jmp_mem_r11", "jmp_mem_sib",
};

static const struct kpt_refused_insn kpt_refused_insns[] = {
	{ "hlt", -EINVAL },
	{ "int3", -EINVAL },
	{ "ud2", -EINVAL },
	/* Far jmp and call through memory; near ones through fs, gs, 0x66, 0x67 */
	{ "ljmp_mem", -EINVAL },
	{ "lcall_mem", -EINVAL },
	{ "jmp_mem_gs", -EINVAL },
	{ "call_mem_fs", -EINVAL },
	{ "jmp_mem_16", -EINVAL },
	{ "call_mem_addr32", -EINVAL },
	{ "int_n", -EINVAL },
	/* VMX */
	{ "vmcall", -EINVAL },
	{ "vmlaunch", -EINVAL },
	{ "vmresume", -EINVAL },
	{ "vmxoff", -EINVAL },
	{ "vmxon", -EINVAL },
	{ "vmclear", -EINVAL },
	{ "vmptrld", -EINVAL },
	{ "vmptrst", -EINVAL },
	{ "vmread", -EINVAL },
	{ "vmwrite", -EINVAL },
	{ "vmfunc", -EINVAL },
	{ "invept", -EINVAL },
	{ "invvpid", -EINVAL },
	/* SVM */
	{ "vmrun", -EINVAL },
	{ "vmmcall", -EINVAL },
	{ "vmgexit", -EINVAL },
	{ "vmload", -EINVAL },
	{ "vmsave", -EINVAL },
	{ "stgi", -EINVAL },
	{ "clgi", -EINVAL },
	{ "skinit", -EINVAL },
	{ "invlpga", -EINVAL },
	/* TDX, SGX's VMM leaf, SMX */
	{ "tdcall", -EINVAL },
	{ "seamcall", -EINVAL },
	{ "seamret", -EINVAL },
	{ "seamops", -EINVAL },
	{ "enclv", -EINVAL },
	{ "getsec", -EINVAL },
	/* Their neighbours in the opcode map are accepted. */
	{ "rdrand", 0 },
	{ "invpcid", 0 },
	{ "encls", 0 },
	/* VEX, whose opcode bytes are those of hlt and int1 */
	{ "vpmuludq", 0 },
	{ "vpsllw", 0 },
};

KPT_INSN_FN(hlt, "", "	hlt\n", "	ret\n");
KPT_INSN_FN(int3, "", "	int3\n", "	ret\n");
KPT_INSN_FN(ud2, "", "	ud2\n", "	ret\n");
KPT_INSN_FN(ljmp_mem, "", "	ljmp *(%rdi)\n", "	ret\n");
KPT_INSN_FN(lcall_mem, "", "	lcall *(%rdi)\n", "	ret\n");
KPT_INSN_FN(jmp_mem_gs, "", "	jmp *%gs:(%rdi)\n", "	ret\n");
KPT_INSN_FN(call_mem_fs, "", "	call *%fs:8(%rdi)\n", "	ret\n");
KPT_INSN_FN(jmp_mem_16, "", "	.byte 0x66\n	jmp *(%rdi)\n", "	ret\n");
KPT_INSN_FN(call_mem_addr32, "", "	call *(%edi)\n", "	ret\n");
KPT_INSN_FN(int_n, "", "	int $0x20\n", "	ret\n");
KPT_INSN_FN(vmcall, "", "	vmcall\n", "	ret\n");
KPT_INSN_FN(vmlaunch, "", "	vmlaunch\n", "	ret\n");
KPT_INSN_FN(vmresume, "", "	vmresume\n", "	ret\n");
KPT_INSN_FN(vmxoff, "", "	vmxoff\n", "	ret\n");
KPT_INSN_FN(vmxon, "", "	vmxon (%rdi)\n", "	ret\n");
KPT_INSN_FN(vmclear, "", "	vmclear (%rdi)\n", "	ret\n");
KPT_INSN_FN(vmptrld, "", "	vmptrld (%rdi)\n", "	ret\n");
KPT_INSN_FN(vmptrst, "", "	vmptrst (%rdi)\n", "	ret\n");
KPT_INSN_FN(vmread, "", "	vmread %rdi, %rax\n", "	ret\n");
KPT_INSN_FN(vmwrite, "", "	vmwrite %rsi, %rdi\n", "	ret\n");
KPT_INSN_FN(vmfunc, "", "	vmfunc\n", "	ret\n");
KPT_INSN_FN(invept, "", "	invept (%rsi), %rdi\n", "	ret\n");
KPT_INSN_FN(invvpid, "", "	invvpid (%rsi), %rdi\n", "	ret\n");
KPT_INSN_FN(vmrun, "", "	vmrun\n", "	ret\n");
KPT_INSN_FN(vmmcall, "", "	vmmcall\n", "	ret\n");
KPT_INSN_FN(vmgexit, "", "	vmgexit\n", "	ret\n");
KPT_INSN_FN(vmload, "", "	vmload\n", "	ret\n");
KPT_INSN_FN(vmsave, "", "	vmsave\n", "	ret\n");
KPT_INSN_FN(stgi, "", "	stgi\n", "	ret\n");
KPT_INSN_FN(clgi, "", "	clgi\n", "	ret\n");
KPT_INSN_FN(skinit, "", "	skinit\n", "	ret\n");
KPT_INSN_FN(invlpga, "", "	invlpga\n", "	ret\n");
KPT_INSN_FN(tdcall, "", "	tdcall\n", "	ret\n");
KPT_INSN_FN(seamcall, "", "	seamcall\n", "	ret\n");
KPT_INSN_FN(seamret, "", "	seamret\n", "	ret\n");
KPT_INSN_FN(seamops, "", "	seamops\n", "	ret\n");
KPT_INSN_FN(enclv, "", "	enclv\n", "	ret\n");
KPT_INSN_FN(getsec, "", "	getsec\n", "	ret\n");
KPT_INSN_FN(rdrand, "", "	rdrand %rax\n", "	ret\n");
KPT_INSN_FN(invpcid, "", "	invpcid (%rsi), %rdi\n", "	ret\n");
KPT_INSN_FN(encls, "", "	encls\n", "	ret\n");
KPT_INSN_FN(vpmuludq, "", "	vpmuludq %xmm1, %xmm2, %xmm3\n", "	ret\n");
KPT_INSN_FN(vpsllw, "", "	vpsllw %xmm1, %xmm2, %xmm3\n", "	ret\n");
/* vmovq %xmm0, %rax is VEX 7e: not a jle */
KPT_INSN_FN(vex, "	xor %eax, %eax\n	vmovq %rdi, %xmm0\n",
	    "	vmovq %xmm0, %rax\n", "	add %rsi, %rax\n	ret\n");

/* What kpt_hit_cost() measures: a stepped or boosted, an emulated kind */
#define KPT_COST_STEPPED	"rip_load"
#define KPT_COST_EMULATED	"jcc_near"
KPT_INSN_FN(fault_fixup, "	xor %eax, %eax\n",
	    "2:	movq (%rdi), %rdx\n",
	    "	ret\n3:	mov $1, %eax\n	ret\n"
	    "	.pushsection __ex_table, \"a\"\n	.balign 4\n"
	    "	.long 2b - .\n	.long 3b - .\n	.long 1\n	.popsection\n");

/* The same for a call through memory, whose pointer is the one to fault */
KPT_INSN_FN(call_mem_fault, "	xor %eax, %eax\n",
	    "2:	call *(%rdi)\n",
	    "	ret\n3:	mov $1, %eax\n	ret\n"
	    "	.pushsection __ex_table, \"a\"\n	.balign 4\n"
	    "	.long 2b - .\n	.long 3b - .\n	.long 1\n	.popsection\n");

/* A function that begins with a call through memory: a + 101 */
KPT_INSN_FN(call_mem_first, "", "	call *kpt_insn_data(, %rsi, 8)\n",
	    "	add $1, %rax\n	ret\n");

asmlinkage long kpt_insn_helper(long a);

#else /* CONFIG_ARM64 */
asm(".pushsection .text\n"
	".type kpt_insn_helper, %function\n"
	".balign 4\n"
	"kpt_insn_helper:\n"
	"	add x0, x0, #100\n"
	"	ret\n"
	".size kpt_insn_helper, .-kpt_insn_helper\n"
	".balign 8\n"
	"kpt_insn_datum:\n"
	"	.quad 1000\n"
	".popsection\n");

/* Simulated: they read the PC */
KPT_INSN_FN(b, "	mov x2, x0\n", "	b 2f\n",
	    "	mov x2, x1\n2:	mov x0, x2\n	ret\n");
KPT_INSN_FN(bl, "	stp x29, x30, [sp, #-16]!\n	mov x29, sp\n",
	    "	bl kpt_insn_helper\n",
	    "	add x0, x0, x1\n	ldp x29, x30, [sp], #16\n	ret\n");
KPT_INSN_FN(b_cond, "	mov x2, x0\n	cmp x0, x1\n", "	b.eq 2f\n",
	    "	add x2, x2, #1\n2:	mov x0, x2\n	ret\n");
KPT_INSN_FN(cbz, "	mov x2, #5\n", "	cbz x0, 2f\n",
	    "	mov x2, x1\n2:	mov x0, x2\n	ret\n");
KPT_INSN_FN(cbnz_w, "	mov x2, #5\n", "	cbnz w0, 2f\n",
	    "	mov x2, x1\n2:	mov x0, x2\n	ret\n");
KPT_INSN_FN(tbz, "	mov x2, #7\n", "	tbz x0, #33, 2f\n",
	    "	mov x2, x1\n2:	mov x0, x2\n	ret\n");
KPT_INSN_FN(tbnz, "	mov x2, #7\n", "	tbnz x0, #3, 2f\n",
	    "	mov x2, x1\n2:	mov x0, x2\n	ret\n");
KPT_INSN_FN(br, "	adr x2, 2f\n	mov x3, x0\n", "	br x2\n",
	    "	mov x3, x1\n2:	mov x0, x3\n	ret\n");
KPT_INSN_FN(blr, "	stp x29, x30, [sp, #-16]!\n	mov x29, sp\n"
	    "	adr x2, kpt_insn_helper\n", "	blr x2\n",
	    "	add x0, x0, x1\n	ldp x29, x30, [sp], #16\n	ret\n");
KPT_INSN_FN(ret, "	add x0, x0, x1\n", "	ret\n", "");
KPT_INSN_FN(adr, "", "	adr x2, kpt_insn_datum\n",
	    "	ldr x2, [x2]\n	add x0, x2, x1\n	ret\n");
KPT_INSN_FN(adrp, "", "	adrp x2, kpt_insn_datum\n",
	    "	add x2, x2, :lo12:kpt_insn_datum\n	ldr x2, [x2]\n"
	    "	add x0, x2, x1\n	ret\n");
KPT_INSN_FN(ldr_lit_x, "", "	ldr x2, 3f\n",
	    "	add x0, x2, x1\n	ret\n	.balign 8\n3:	.quad 1000\n");
KPT_INSN_FN(ldr_lit_w, "", "	ldr w2, 3f\n",
	    "	add x0, x2, x1\n	ret\n	.balign 4\n3:	.long 0xfffffff0\n");
KPT_INSN_FN(ldrsw_lit, "", "	ldrsw x2, 3f\n",
	    "	add x0, x2, x1\n	ret\n	.balign 4\n3:	.long -5\n");
/* Simulated: they do nothing (the BTIs unless the kernel uses BTI) */
KPT_INSN_FN(nop, "	mov x2, x0\n", "	nop\n", "	add x0, x2, x1\n	ret\n");
KPT_INSN_FN(bti, "	mov x2, x0\n", "	hint #32\n", "	add x0, x2, x1\n	ret\n");
KPT_INSN_FN(bti_c, "	mov x2, x0\n", "	hint #34\n", "	add x0, x2, x1\n	ret\n");
KPT_INSN_FN(bti_j, "	mov x2, x0\n", "	hint #36\n", "	add x0, x2, x1\n	ret\n");
KPT_INSN_FN(bti_jc, "	mov x2, x0\n", "	hint #38\n", "	add x0, x2, x1\n	ret\n");
/* Stepped out of line (or boosted) */
KPT_INSN_FN(add, "", "	add x0, x0, x1\n", "	ret\n");
KPT_INSN_FN(stp, "", "	stp x0, x1, [sp, #-16]!\n",
	    "	ldp x2, x3, [sp], #16\n	add x0, x2, x3\n	ret\n");
KPT_INSN_FN(ldp, "	stp x0, x1, [sp, #-16]!\n", "	ldp x2, x3, [sp], #16\n",
	    "	add x0, x2, x3\n	ret\n");
KPT_INSN_FN(mov_sp, "", "	mov x2, sp\n",
	    "	mov x3, sp\n	sub x2, x2, x3\n	add x0, x0, x2\n"
	    "	add x0, x0, x1\n	ret\n");
KPT_INSN_FN(mrs_nzcv, "	cmp x0, x0\n", "	mrs x2, nzcv\n",
	    "	lsr x0, x2, #30\n	and x0, x0, #1\n	ret\n");
/* paciasp; ...; autiasp: the copy authenticates with the same sp and x30 */
KPT_INSN_FN(autiasp, "	hint #25\n	mov x2, x0\n", "	hint #29\n",
	    "	add x0, x2, x1\n	ret\n");

static const struct kpt_insn_case kpt_insn_cases[] = {
	KPT_INSN_CASE(b, 11, 99, 11),
	KPT_INSN_CASE(bl, 1, 2, 103),
	KPT_INSN_CASE(b_cond, 12, 12, 12),	/* taken */
	KPT_INSN_CASE(b_cond, 12, 13, 13),	/* not taken */
	KPT_INSN_CASE(cbz, 0, 9, 5),		/* taken */
	KPT_INSN_CASE(cbz, 1, 9, 9),		/* not taken */
	KPT_INSN_CASE(cbnz_w, 1L << 32, 9, 9),	/* w0 == 0: not taken */
	KPT_INSN_CASE(cbnz_w, 1, 9, 5),		/* taken */
	KPT_INSN_CASE(tbz, 1L << 33, 9, 9),	/* bit set: not taken */
	KPT_INSN_CASE(tbz, 0, 9, 7),		/* taken */
	KPT_INSN_CASE(tbnz, 8, 9, 7),		/* taken */
	KPT_INSN_CASE(tbnz, 0, 9, 9),		/* not taken */
	KPT_INSN_CASE(br, 14, 99, 14),
	KPT_INSN_CASE(blr, 3, 4, 107),
	KPT_INSN_CASE(ret, 20, 22, 42),
	KPT_INSN_CASE(adr, 0, 5, 1005),
	KPT_INSN_CASE(adrp, 0, 6, 1006),
	KPT_INSN_CASE(ldr_lit_x, 0, 7, 1007),
	KPT_INSN_CASE(ldr_lit_w, 0, 0, 0xfffffff0),
	KPT_INSN_CASE(ldrsw_lit, 0, 8, 3),
	KPT_INSN_CASE(nop, 40, 6, 46),
	KPT_INSN_CASE(bti, 40, 7, 47),
	KPT_INSN_CASE(bti_c, 40, 8, 48),
	KPT_INSN_CASE(bti_j, 40, 9, 49),
	KPT_INSN_CASE(bti_jc, 40, 10, 50),
	KPT_INSN_CASE(add, 40, 2, 42),
	KPT_INSN_CASE(stp, 40, 3, 43),
	KPT_INSN_CASE(ldp, 40, 4, 44),
	KPT_INSN_CASE(mov_sp, 40, 5, 45),
	KPT_INSN_CASE(mrs_nzcv, 0, 0, 1),
	KPT_INSN_CASE(autiasp, 40, 11, 51),
};

static const struct kpt_refused_insn kpt_refused_insns[] = {
	{ "ldxr", -EINVAL },
	{ "in_exclusive", -EINVAL },
	{ "msr_daif", -EINVAL },
	{ "mrs_daif", -EINVAL },
	{ "mrs_pmr", -EINVAL },
	{ "wfi", -EINVAL },
	{ "ldr_lit_q", -EINVAL },
	{ "brk", -EINVAL },
};

KPT_INSN_FN(ldxr, "", "	ldxr x2, [x0]\n", "	ret\n");
KPT_INSN_FN(in_exclusive, "2:	ldxr x2, [x0]\n", "	add x2, x2, #1\n",
	    "	stxr w3, x2, [x0]\n	cbnz w3, 2b\n	ret\n");
KPT_INSN_FN(msr_daif, "", "	msr daifset, #2\n", "	ret\n");
KPT_INSN_FN(mrs_daif, "", "	mrs x2, daif\n", "	ret\n");
/* ICC_PMR_EL1, as local_save_flags() reads it with pseudo-NMIs (not run) */
KPT_INSN_FN(mrs_pmr, "", "	mrs x2, s3_0_c4_c6_0\n", "	ret\n");
KPT_INSN_FN(wfi, "", "	wfi\n", "	ret\n");
KPT_INSN_FN(ldr_lit_q, "", "	ldr q0, 3f\n",
	    "	ret\n	.balign 16\n3:	.quad 0, 0\n");
KPT_INSN_FN(brk, "", "	brk #0x7ff\n", "	ret\n");

/* A load that faults, with a fixup (KACCESS_ERR_ZERO, no registers) */
KPT_INSN_FN(fault_fixup, "	mov x3, x0\n	mov x0, #0\n",
	    "2:	ldr x2, [x3]\n",
	    "	ret\n3:	mov x0, #1\n	ret\n"
	    "	.pushsection __ex_table, \"a\"\n	.balign 4\n"
	    "	.long 2b - .\n	.long 3b - .\n	.short 3\n	.short 0x3ff\n"
	    "	.popsection\n");

/* What the entries of functions hold: emulated, one trap (see decode-insn.c) */
static const char * const kpt_emulated_insns[] = {
	"nop",
#ifndef CONFIG_ARM64_BTI_KERNEL
	"bti", "bti_c", "bti_j", "bti_jc",
#endif
};

#define KPT_COST_STEPPED	"add"
#define KPT_COST_EMULATED	"b_cond"
#endif

/*
 * A load that faults, with an exception-table fixup: probed, the fault is
 * taken by the out-of-line copy and must still reach the original
 * instruction's fixup.  Returns 1 if the load faulted.
 */

static void kpt_insn_desc(const struct kpt_insn_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s(%ld, %ld)", c->name, c->a, c->b);
}

KUNIT_ARRAY_PARAM(kpt_insn, kpt_insn_cases, kpt_insn_desc);

static void kpt_insn_kinds(struct kunit *test)
{
	const struct kpt_insn_case *c = test->param_value;
	struct kprobe kp = {
		.pre_handler = kpt_pre_count,
		.post_handler = kpt_post_count,
	};
	kpt_insn_fn_t fn = kpt_insn_lookup(test, c->name, &kp.addr);

	/* Unprobed, the function computes the expected value... */
	KUNIT_ASSERT_EQ(test, fn(c->a, c->b), c->expect);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	/* ...and probed, the same, with one hit of each handler. */
	KUNIT_EXPECT_EQ(test, fn(c->a, c->b), c->expect);
	KUNIT_EXPECT_EQ(test, fn(c->a, c->b), c->expect);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2 * c->hits);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 2 * c->hits);
	KUNIT_EXPECT_EQ(test, kpt_state.order_errors, 0);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
}

/* The same without a post_handler: instructions that can be are boosted. */
static void kpt_insn_kinds_boosted(struct kunit *test)
{
	const struct kpt_insn_case *c = test->param_value;
	struct kprobe kp = { .pre_handler = kpt_pre_count };
	kpt_insn_fn_t fn = kpt_insn_lookup(test, c->name, &kp.addr);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, fn(c->a, c->b), c->expect);
	KUNIT_EXPECT_EQ(test, fn(c->a, c->b), c->expect);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2 * c->hits);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
}

static void kpt_emulated_insn_desc(const char * const *name, char *desc)
{
	strscpy(desc, *name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_emulated_insn, kpt_emulated_insns, kpt_emulated_insn_desc);

static const struct kpt_insn_case *kpt_insn_case_find(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kpt_insn_cases); i++) {
		if (!strcmp(kpt_insn_cases[i].name, name))
			return &kpt_insn_cases[i];
	}
	return NULL;
}

/*
 * A post_handler on an instruction that is emulated (x86: a push, a pop, a
 * register move; arm64: NOP, a BTI): one trap
 */
static void kpt_insn_emulated_one_trap(struct kunit *test)
{
	const char * const *name = test->param_value;
	const struct kpt_insn_case *c = kpt_insn_case_find(*name);
	struct kprobe kp = {
		.pre_handler = kpt_pre_count,
		.post_handler = kpt_post_count,
	};
	kpt_insn_fn_t fn = kpt_insn_lookup(test, *name, &kp.addr);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, fn(c->a, c->b), c->expect);
	KUNIT_EXPECT_EQ(test, kpt_point_hits(&kp, KPROBE_HIT_EMULATED), 1UL);
	KUNIT_EXPECT_EQ(test, kpt_point_hits(&kp, KPROBE_HIT_STEPPED), 0UL);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 1);
	unregister_kprobe(&kp);
}

#ifdef CONFIG_X86_64
/* jmp and call through a register, and through memory in every form */
static const char * const kpt_indirect_branch_insns[] = {
	"call_reg", "call_reg_r11", "jmp_reg_r10", "jmp_mem", "call_mem",
	"call_mem_disp8", "call_mem_sib", "call_mem_rex", "call_mem_rsp",
	"call_mem_r12", "call_mem_r13", "call_mem_abs", "call_mem_cs",
	"jmp_mem_r11", "jmp_mem_sib",
};

KUNIT_ARRAY_PARAM(kpt_indirect_branch_insn, kpt_indirect_branch_insns,
		  kpt_emulated_insn_desc);

/* What the handlers of a probe on an indirect jmp or call saw */
static struct {
	unsigned long pre_ip, pre_sp, post_ip, post_sp, pushed;
} kpt_branch;

static int kpt_pre_branch(struct kprobe *p, struct pt_regs *regs)
{
	kpt_branch.pre_ip = regs->ip;
	kpt_branch.pre_sp = regs->sp;
	return kpt_pre_count(p, regs);
}

static void kpt_post_branch(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
	kpt_branch.post_ip = regs->ip;
	kpt_branch.post_sp = regs->sp;
	kpt_branch.pushed = *(unsigned long *)regs->sp;
	kpt_post_count(p, regs, flags);
}

/*
 * The pre_handler sees the registers before an indirect jmp or call
 * (regs->ip just past the int3, as on every hit), the post_handler those
 * after it: regs->ip at the target and, for a call, the return address
 * pushed.
 */
static void kpt_insn_indirect_branch_regs(struct kunit *test)
{
	const char * const *name = test->param_value;
	const struct kpt_insn_case *c = kpt_insn_case_find(*name);
	struct kprobe kp = {
		.pre_handler = kpt_pre_branch,
		.post_handler = kpt_post_branch,
	};
	kpt_insn_fn_t fn = kpt_insn_lookup(test, *name, &kp.addr);
	bool call = !strncmp(*name, "call", 4);
	struct insn insn;

	KUNIT_ASSERT_NOT_NULL(test, c);
	memset(&kpt_branch, 0, sizeof(kpt_branch));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, fn(c->a, c->b), c->expect);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_branch.pre_ip, (unsigned long)kp.addr + 1);
	KUNIT_EXPECT_EQ(test, kpt_branch.post_ip,
			(unsigned long)kpt_insn_helper);
	KUNIT_EXPECT_EQ(test, kpt_branch.post_sp,
			kpt_branch.pre_sp - (call ? sizeof(long) : 0));
	if (call && KPT_HAVE_DECODER &&
	    insn_decode_kernel(&insn, kp.addr) >= 0)
		KUNIT_EXPECT_EQ(test, kpt_branch.pushed,
				(unsigned long)kp.addr + insn.length);
}

/*
 * A call through a pointer that cannot be read: the hit steps a copy,
 * which faults as the original would, and the original's fixup applies.
 * A good pointer is still emulated.
 */
static void kpt_mem_branch_fault(struct kunit *test)
{
	bool with_post = *(const bool *)test->param_value;
	struct kprobe kp = {
		.pre_handler = kpt_pre_count,
		.post_handler = with_post ? kpt_post_count : NULL,
	};
	kpt_insn_fn_t fn = kpt_insn_lookup(test, "call_mem_fault", &kp.addr);
	unsigned long ptr = (unsigned long)kpt_insn_helper;
	void *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_ASSERT_EQ(test, fn((long)(area + PAGE_SIZE), 0), 1L);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, fn((long)&ptr, 0), (long)&ptr + 100);
	KUNIT_EXPECT_EQ(test, fn((long)(area + PAGE_SIZE), 0), 1L);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_kprobe_running(NULL));
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kpt_point_hits(&kp, KPROBE_HIT_EMULATED), 1UL);
	KUNIT_EXPECT_EQ(test, kpt_point_hits(&kp, KPROBE_HIT_STEPPED), 1UL);
	unregister_kprobe(&kp);
	vfree(area);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, with_post ? 1 : 0);
}

static int kpt_rp_mem_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	kpt_state.pre_hits++;
	return 0;
}

static int kpt_rp_mem_return(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	kpt_state.post_hits++;
	kpt_state.fault_ret = regs_return_value(regs);
	return 0;
}

/* A kretprobe on a function that begins with a call through memory */
static void kpt_kretprobe_on_mem_call(struct kunit *test)
{
	struct kretprobe rp = {
		.entry_handler = kpt_rp_mem_entry,
		.handler = kpt_rp_mem_return,
	};
	kprobe_opcode_t *call;
	kpt_insn_fn_t fn = kpt_insn_lookup(test, "call_mem_first", &call);

	kpt_insn_data = (long)kpt_insn_helper;
	rp.kp.addr = (kprobe_opcode_t *)fn;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	if (is_endbr(*(u32 *)fn))
		KUNIT_EXPECT_PTR_EQ(test, rp.kp.addr, call);
	KUNIT_EXPECT_EQ(test, fn(5, 0), 106L);
	KUNIT_EXPECT_EQ(test, fn(6, 0), 107L);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.fault_ret, 107L);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}
#endif

static void kpt_refused_insn_desc(const struct kpt_refused_insn *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_refused_insn, kpt_refused_insns, kpt_refused_insn_desc);

static void kpt_register_refused_insn(struct kunit *test)
{
	const struct kpt_refused_insn *r = test->param_value;
	struct kprobe kp = { .pre_handler = kpt_pre_count };

	kpt_insn_lookup(test, r->name, &kp.addr);
	kpt_expect_refused(test, &kp, r->err);
}

/*
 * With and without a post_handler: an instruction with a fixup is never
 * boosted, since a fault in the boosted copy would find no fixup.
 */
static void kpt_fault_in_stepped_insn(struct kunit *test)
{
	bool with_post = *(const bool *)test->param_value;
	struct kprobe kp = {
		.pre_handler = kpt_pre_count,
		.post_handler = with_post ? kpt_post_count : NULL,
	};
	kpt_insn_fn_t fn = kpt_insn_lookup(test, "fault_fixup", &kp.addr);
	void *area = vmalloc(PAGE_SIZE);
	long ok_word = 5;

	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_ASSERT_EQ(test, fn((long)(area + PAGE_SIZE), 0), 1L);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, fn((long)&ok_word, 0), 0L);
	KUNIT_EXPECT_EQ(test, fn((long)(area + PAGE_SIZE), 0), 1L);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_kprobe_running(NULL));
	preempt_enable();
	unregister_kprobe(&kp);
	vfree(area);
	/* The faulting hit ran its pre_handler; only the good one stepped. */
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, with_post ? 1 : 0);
}

static const bool kpt_post_handler_params[] = { true, false };

static void kpt_post_handler_desc(const bool *with_post, char *desc)
{
	strscpy(desc, *with_post ? "post_handler" : "no post_handler",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_post_handler, kpt_post_handler_params,
		  kpt_post_handler_desc);

#ifdef CONFIG_X86_64
/*
 * Faults other than page faults in a stepped copy: a #GP from rdmsr or
 * wrmsr, a #DE from div.  Each instruction has an exception-table fixup,
 * which must still apply with the instruction probed.  The functions are
 * plain C (the kernel's own MSR accessors); the tests find the probed
 * instruction by decoding them.
 */
static noinline __noipa int kpt_target_rdmsr(u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val);
}

static noinline __noipa int kpt_target_wrmsr(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val);
}

/* a / b, or -EFAULT if b is 0 */
static noinline __noipa long kpt_target_div(unsigned long a, unsigned long b)
{
	unsigned long quot = a, rem = 0;
	long err = 0;

	asm volatile("1:	divq %[b]\n"
		     "	jmp 3f\n"
		     "2:	mov %[efault], %[err]\n"
		     "3:\n"
		     _ASM_EXTABLE(1b, 2b)
		     : "+a" (quot), "+d" (rem), [err] "+r" (err)
		     : [b] "r" (b), [efault] "i" (-EFAULT));
	return err ?: quot;
}

/* The first instruction of @fn that @match accepts, decoding from its start */
static void *kpt_find_insn(void *fn, bool (*match)(struct insn *insn))
{
	unsigned long size = kpt_function_size(fn), off;
	struct insn insn;

	if (!KPT_HAVE_DECODER)
		return NULL;
	for (off = 0; off < size; off += insn.length) {
		if (insn_decode_kernel(&insn, fn + off) < 0)
			return NULL;
		if (match(&insn))
			return fn + off;
	}
	return NULL;
}

static bool kpt_is_0f_op(struct insn *insn, u8 op2)
{
	return insn->opcode.nbytes == 2 && insn->opcode.bytes[0] == 0x0f &&
	       insn->opcode.bytes[1] == op2;
}

static bool kpt_is_rdmsr(struct insn *insn)
{
	return kpt_is_0f_op(insn, 0x32);
}

static bool kpt_is_wrmsr(struct insn *insn)
{
	return kpt_is_0f_op(insn, 0x30);
}

static bool kpt_is_div(struct insn *insn)
{
	if (!KPT_HAVE_DECODER)
		return false;
	return !insn_is_avx(insn) && insn->opcode.nbytes == 1 &&
	       insn->opcode.bytes[0] == 0xf7 &&
	       X86_MODRM_REG(insn->modrm.bytes[0]) == 6;
}

/*
 * MSR accesses that fault: an MSR that does not exist, IA32_PKRS with
 * reserved bits set when written, and a reserved x2APIC register (0x801:
 * a #GP whether or not the APIC is in x2APIC mode).  Which fault depends
 * on the CPU, so the tests take the first that does.  QEMU's TCG before
 * 8.1 reads every MSR without a fault, unknown ones as 0 (none of
 * 0-0x1fff, 0x40000000-, 0xc0000000-, 0xc0010000-0xc00103ff faulted on
 * 7.2): there the rdmsr case skips and only the wrmsr one runs.  Later
 * versions emulate the x2APIC MSRs and fault on 0x801.
 */
static const u32 kpt_bad_msrs[] = { 0xc0dec0de, 0x801, 0x6e1 };
#define KPT_BAD_MSR_VAL		(BIT_ULL(63) | BIT_ULL(32))

static u32 kpt_faulting_msr(bool write)
{
	u64 val;
	int i;

	for (i = 0; i < ARRAY_SIZE(kpt_bad_msrs); i++) {
		if (write ? kpt_target_wrmsr(kpt_bad_msrs[i], KPT_BAD_MSR_VAL) :
			    kpt_target_rdmsr(kpt_bad_msrs[i], &val))
			return kpt_bad_msrs[i];
	}
	return 0;
}

static void kpt_probe_insn(struct kunit *test, struct kprobe *kp, void *fn,
			   bool (*match)(struct insn *insn))
{
	*kp = (struct kprobe) {
		.addr = kpt_find_insn(fn, match),
		.pre_handler = kpt_pre_count,
		.post_handler = kpt_post_count,
	};
	if (!KPT_HAVE_DECODER)
		kunit_skip(test, KPT_NO_DECODER);
	KUNIT_ASSERT_NOT_NULL(test, kp->addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
}

/* After a hit whose copy faulted: no step left behind on this CPU */
static void kpt_expect_no_hit_left(struct kunit *test, struct kprobe *kp)
{
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_kprobe_running(NULL));
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kp->nmissed, 0UL);
}

/*
 * The pre_handlers run once per hit.  The post_handlers run only when the
 * instruction completes: a hit whose copy faults ends at the fault, and
 * execution goes on at the fixup.
 */
static void kpt_rdmsr_fault_fixup(struct kunit *test)
{
	u32 msr = kpt_faulting_msr(false);
	struct kprobe kp;
	u64 val;

	if (!msr)
		kunit_skip(test, "no rdmsr faults on this CPU");
	kpt_probe_insn(test, &kp, kpt_target_rdmsr, kpt_is_rdmsr);
	KUNIT_EXPECT_EQ(test, kpt_target_rdmsr(msr, &val), -EIO);
	KUNIT_EXPECT_EQ(test, kpt_target_rdmsr(MSR_EFER, &val), 0);
	KUNIT_EXPECT_TRUE(test, val & EFER_LMA);
	KUNIT_EXPECT_EQ(test, kpt_target_rdmsr(msr, &val), -EIO);
	kpt_expect_no_hit_left(test, &kp);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 1);
}

static void kpt_wrmsr_fault_fixup(struct kunit *test)
{
	u32 msr = kpt_faulting_msr(true);
	struct kprobe kp;

	if (!msr)
		kunit_skip(test, "no wrmsr faults on this CPU");
	kpt_probe_insn(test, &kp, kpt_target_wrmsr, kpt_is_wrmsr);
	KUNIT_EXPECT_EQ(test, kpt_target_wrmsr(msr, KPT_BAD_MSR_VAL), -EIO);
	KUNIT_EXPECT_EQ(test, kpt_target_wrmsr(msr, KPT_BAD_MSR_VAL), -EIO);
	kpt_expect_no_hit_left(test, &kp);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 0);
}

static noinline __noipa unsigned long kpt_target_zeropad(const void *p)
{
	return load_unaligned_zeropad(p);
}

static noinline __noipa unsigned long kpt_target_load(const unsigned long *p)
{
	return READ_ONCE(*p);
}

static bool kpt_is_load(struct insn *insn)
{
	return insn->opcode.nbytes == 1 && insn->opcode.bytes[0] == 0x8b &&
	       X86_MODRM_MOD(insn->modrm.bytes[0]) != 3;
}

/*
 * The fixup of load_unaligned_zeropad() decodes the faulting load from
 * the text: with a breakpoint there it would fail, and a load running
 * into an unmapped page would oops.  Such a load is refused, and the same
 * load without the fixup is not.
 */
static void kpt_zeropad_load_refused(struct kunit *test)
{
	static const char word[sizeof(long)] __aligned(sizeof(long)) = "kprobes";
	struct kprobe kp = { .pre_handler = kpt_pre_count };

	if (!KPT_HAVE_DECODER)
		kunit_skip(test, KPT_NO_DECODER);
	/* The same load without the fixup is probed */
	kp.addr = kpt_find_insn(kpt_target_load, kpt_is_load);
	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_load((const unsigned long *)word),
			*(unsigned long *)word);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);

	kp = (struct kprobe) { .pre_handler = kpt_pre_count };
	kp.addr = kpt_find_insn(kpt_target_zeropad, kpt_is_load);
	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	kpt_expect_refused(test, &kp, -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_target_zeropad(word), *(unsigned long *)word);
}

/* #DE goes through do_error_trap() and DIE_TRAP, not kprobe_fault_handler() */
static void kpt_div_fault_fixup(struct kunit *test)
{
	struct kprobe kp;

	KUNIT_ASSERT_EQ(test, kpt_target_div(1, 0), (long)-EFAULT);
	kpt_probe_insn(test, &kp, kpt_target_div, kpt_is_div);
	KUNIT_EXPECT_EQ(test, kpt_target_div(84, 2), 42L);
	KUNIT_EXPECT_EQ(test, kpt_target_div(84, 0), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kpt_target_div(85, 5), 17L);
	kpt_expect_no_hit_left(test, &kp);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.order_errors, 0);
}

static struct kprobe kpt_div_kp;

/* The outer hit must be whole again once the nested one has faulted. */
static int kpt_pre_divides(struct kprobe *p, struct pt_regs *regs)
{
	kpt_state.pre_hits++;
	kpt_state.fault_ret = kpt_target_div(1, 0);
	if (kpt_kprobe_running(p) != p)
		kpt_state.order_errors++;
	return 0;
}

/*
 * A probe hit from a pre_handler replays its instruction as a nested hit;
 * when that copy faults, the outer hit gets its state back and finishes,
 * post_handler included.
 */
static void kpt_div_fault_fixup_nested(struct kunit *test)
{
	struct kprobe outer = {
		.addr = (kprobe_opcode_t *)kpt_target_mul,
		.pre_handler = kpt_pre_divides,
		.post_handler = kpt_post_count,
	};

	kpt_div_kp = (struct kprobe) {
		.addr = kpt_find_insn(kpt_target_div, kpt_is_div),
		.pre_handler = kpt_pre_count_b,
		.post_handler = kpt_post_count,
	};
	if (!KPT_HAVE_DECODER)
		kunit_skip(test, KPT_NO_DECODER);
	KUNIT_ASSERT_NOT_NULL(test, kpt_div_kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpt_div_kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&outer), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_mul(6, 7), 42);
	KUNIT_EXPECT_EQ(test, kpt_target_mul(2, 3), 6);
	kpt_expect_no_hit_left(test, &outer);
	unregister_kprobe(&outer);
	unregister_kprobe(&kpt_div_kp);
	KUNIT_EXPECT_EQ(test, kpt_state.fault_ret, (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_state.order_errors, 0);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits_b, 0);
	KUNIT_EXPECT_EQ(test, kpt_div_kp.nmissed, 2UL);
}

/* A VEX instruction is stepped, whatever legacy opcode its byte matches. */
static void kpt_vex_insn(struct kunit *test)
{
	struct kprobe kp = {
		.pre_handler = kpt_pre_count,
		.post_handler = kpt_post_count,
	};
	kpt_insn_fn_t fn = kpt_insn_lookup(test, "vex", &kp.addr);
	long ret;

	if (!boot_cpu_has(X86_FEATURE_AVX))
		kunit_skip(test, "no AVX");
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kernel_fpu_begin();
	ret = fn(40, 2);
	kernel_fpu_end();
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, ret, 42L);
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_state.post_hits, 1);
}
#endif /* CONFIG_X86_64 */

/*
 * Not a pass/fail check: report what a hit costs for the three ways a
 * probed instruction is replayed, for the record in the boot log.
 */
static u64 kpt_ns_per_call(kpt_insn_fn_t fn, long a, long b, int n)
{
	u64 start = ktime_get_ns();
	int i;

	for (i = 0; i < n; i++)
		fn(a, b);
	return div_u64(ktime_get_ns() - start, n);
}

static void kpt_hit_cost(struct kunit *test)
{
	static const struct {
		const char *name, *how;
		bool post;
	} runs[] = {
		{ KPT_COST_STEPPED, "stepped (two traps)", true },
		{ KPT_COST_STEPPED, "boosted (one trap)", false },
		{ KPT_COST_EMULATED, "emulated or simulated (one trap)", false },
	};
	const int n = 2000;
	struct kprobe kp;
	kpt_insn_fn_t fn;
	u64 bare, hit;
	int i;

	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		kp = (struct kprobe) {
			.pre_handler = kpt_pre_count,
			.post_handler = runs[i].post ? kpt_post_count : NULL,
		};
		fn = kpt_insn_lookup(test, runs[i].name, &kp.addr);
		bare = kpt_ns_per_call(fn, 1, 2, n);
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		hit = kpt_ns_per_call(fn, 1, 2, n);
		unregister_kprobe(&kp);
		kunit_info(test, "%s: %llu ns per hit\n", runs[i].how,
			   hit > bare ? hit - bare : 0);
	}
	KUNIT_EXPECT_EQ(test, kpt_state.pre_hits, 3 * n);
}
#endif /* KPT_HAVE_INSN_TESTS */

/* ---------------------------------------------------------------------- */
/* SMP: hits on every CPU while another registers and unregisters          */
/* ---------------------------------------------------------------------- */

static noinline __noipa int kpt_target_smp(int a)
{
	return a * 2 + 1;
}

static DEFINE_PER_CPU(unsigned long, kpt_smp_hits);

static int kpt_pre_smp(struct kprobe *p, struct pt_regs *regs)
{
	this_cpu_inc(kpt_smp_hits);
	return 0;
}

enum { KPT_ARMED, KPT_UNARMED, KPT_CHANGING };

static struct {
	atomic_t phase;
	atomic_t stop;
	atomic_t calls_armed;
	atomic_t calls_unarmed;
	atomic_t missed_hits;
	atomic_t stray_hits;
	atomic_t wrong_results;
} kpt_smp;

static int kpt_smp_worker(void *unused)
{
	unsigned long before, after;
	int p1, p2, ret;

	while (!atomic_read(&kpt_smp.stop)) {
		preempt_disable();
		p1 = atomic_read_acquire(&kpt_smp.phase);
		before = __this_cpu_read(kpt_smp_hits);
		ret = kpt_target_smp(21);
		after = __this_cpu_read(kpt_smp_hits);
		p2 = atomic_read_acquire(&kpt_smp.phase);
		preempt_enable();

		if (ret != 43)
			atomic_inc(&kpt_smp.wrong_results);
		if (p1 == p2 && p1 == KPT_ARMED) {
			atomic_inc(&kpt_smp.calls_armed);
			if (after != before + 1)
				atomic_inc(&kpt_smp.missed_hits);
		} else if (p1 == p2 && p1 == KPT_UNARMED) {
			atomic_inc(&kpt_smp.calls_unarmed);
			if (after != before)
				atomic_inc(&kpt_smp.stray_hits);
		}
		cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Let the workers make a few calls in the current phase, or time out. */
static void kpt_smp_wait_calls(atomic_t *calls, unsigned long deadline)
{
	int target = atomic_read(calls) + 8 * num_online_cpus();

	while (atomic_read(calls) < target && time_before(jiffies, deadline))
		cond_resched();
}

static void kpt_smp_register_unregister_race(struct kunit *test)
{
	struct task_struct **workers;
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpt_target_smp,
		.pre_handler = kpt_pre_smp,
	};
	unsigned long deadline;
	int rounds = 0;

	memset(&kpt_smp, 0, sizeof(kpt_smp));
	atomic_set(&kpt_smp.phase, KPT_UNARMED);
	workers = kpt_start_per_cpu(test, kpt_smp_worker, "kpt_smp/%u");
	KUNIT_ASSERT_NOT_NULL(test, workers);

	deadline = jiffies + 5 * HZ;
	while (time_before(jiffies, deadline) && rounds < 40) {
		atomic_set_release(&kpt_smp.phase, KPT_CHANGING);
		if (register_kprobe(&kp))
			break;
		atomic_set_release(&kpt_smp.phase, KPT_ARMED);
		kpt_smp_wait_calls(&kpt_smp.calls_armed, deadline);
		atomic_set_release(&kpt_smp.phase, KPT_CHANGING);
		unregister_kprobe(&kp);
		atomic_set_release(&kpt_smp.phase, KPT_UNARMED);
		kpt_smp_wait_calls(&kpt_smp.calls_unarmed, deadline);
		rounds++;
	}
	kpt_stop_per_cpu(workers, &kpt_smp.stop);

	KUNIT_EXPECT_GE(test, rounds, 10);
	kunit_info(test, "%d rounds, %d calls armed, %d calls unarmed\n", rounds,
		   atomic_read(&kpt_smp.calls_armed),
		   atomic_read(&kpt_smp.calls_unarmed));
	KUNIT_EXPECT_GT(test, atomic_read(&kpt_smp.calls_armed), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&kpt_smp.calls_unarmed), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_smp.missed_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_smp.stray_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_smp.wrong_results), 0);
}

static struct kunit_case kprobes_testcases[] = {
	KUNIT_CASE(kpt_register_addr_fires),
	KUNIT_CASE(kpt_register_symbol_fires),
	KUNIT_CASE(kpt_register_symbol_offset),
	KUNIT_CASE(kpt_entry_skips_endbr),
	KUNIT_CASE(kpt_on_func_entry),
	KUNIT_CASE(kpt_hit_statistics),
	KUNIT_CASE(kpt_hit_counter_recycled),
	KUNIT_CASE(kpt_register_both_addr_and_symbol),
	KUNIT_CASE(kpt_register_neither_addr_nor_symbol),
	KUNIT_CASE(kpt_register_unknown_symbol),
	KUNIT_CASE(kpt_register_inside_instruction),
	KUNIT_CASE(kpt_register_twice),
	KUNIT_CASE(kpt_reregister_after_unregister),
	KUNIT_CASE(kpt_unregister_unregistered),
	KUNIT_CASE(kpt_unregister_twice_and_stranger),
	KUNIT_CASE(kpt_only_disabled_flag_taken),
	KUNIT_CASE_PARAM(kpt_register_refused_symbol, kpt_refused_gen_params),
	KUNIT_CASE_PARAM(kpt_register_refused_copies, kpt_refused_copy_gen_params),
	KUNIT_CASE(kpt_register_refused_static_call_tramps),
	KUNIT_CASE(kpt_register_non_text),
	KUNIT_CASE(kpt_register_jump_label_site),
	KUNIT_CASE(kpt_jump_label_index),
	KUNIT_CASE(kpt_register_bug_site),
	KUNIT_CASE(kpt_handlers_preemption_disabled),
	KUNIT_CASE(kpt_kprobe_running_in_handler),
	KUNIT_CASE(kpt_pre_handler_redirects),
	KUNIT_CASE(kpt_reentry_counts_missed),
	KUNIT_CASE(kpt_fault_in_handler),
	KUNIT_CASE(kpt_init_text_becomes_gone),
	KUNIT_CASE(kpt_batch_register_unregister),
	KUNIT_CASE(kpt_batch_register_rolls_back),
	KUNIT_CASE(kpt_aggregate_all_run),
	KUNIT_CASE(kpt_aggregate_order),
	KUNIT_CASE(kpt_disable_enable),
	KUNIT_CASE(kpt_register_disabled),
	KUNIT_CASE(kpt_disable_one_of_aggregate),
#ifdef KPT_HAVE_INSN_TESTS
	KUNIT_CASE_PARAM(kpt_insn_kinds, kpt_insn_gen_params),
	KUNIT_CASE_PARAM(kpt_register_refused_insn, kpt_refused_insn_gen_params),
	KUNIT_CASE_PARAM(kpt_insn_kinds_boosted, kpt_insn_gen_params),
	KUNIT_CASE_PARAM(kpt_insn_emulated_one_trap, kpt_emulated_insn_gen_params),
#ifdef CONFIG_X86_64
	KUNIT_CASE_PARAM(kpt_insn_indirect_branch_regs,
			 kpt_indirect_branch_insn_gen_params),
	KUNIT_CASE_PARAM(kpt_mem_branch_fault, kpt_post_handler_gen_params),
	KUNIT_CASE(kpt_kretprobe_on_mem_call),
#endif
	KUNIT_CASE_PARAM(kpt_fault_in_stepped_insn, kpt_post_handler_gen_params),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kpt_rdmsr_fault_fixup),
	KUNIT_CASE(kpt_wrmsr_fault_fixup),
	KUNIT_CASE(kpt_zeropad_load_refused),
	KUNIT_CASE(kpt_div_fault_fixup),
	KUNIT_CASE(kpt_div_fault_fixup_nested),
	KUNIT_CASE(kpt_vex_insn),
#endif
	KUNIT_CASE(kpt_hit_cost),
#endif
	KUNIT_CASE(kpt_smp_register_unregister_race),
	{}
};

static struct kunit_suite kprobes_test_suite = {
	.name = "kprobes_test",
	.init = kpt_test_init,
	.test_cases = kprobes_testcases,
};

kunit_test_suites(&kprobes_test_suite);

MODULE_DESCRIPTION("KUnit tests for kprobes");
MODULE_LICENSE("GPL");
