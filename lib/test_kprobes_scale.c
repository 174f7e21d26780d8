// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kprobes at scale: ten thousand kprobes and a thousand
 * kretprobes on distinct functions, registered in one call each; every
 * one of them must fire when its function runs, and they must all go
 * again.  The functions are generated here, so that the test can call
 * each of them; it finds them, like any user would, through kallsyms
 * (so it is built in only).  Probing arbitrary kernel functions is the
 * job of the guest's probe-every-function check.
 */

#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../kernel/kprobes_internal.h"

#define KPS_FUNCTIONS	10000
#define KPS_KRETPROBES	1000

/*
 * kps_fn_<n>(a) returns a + n, for n in [0, KPS_FUNCTIONS); kps_fns[] holds
 * their addresses.
 */
#ifdef CONFIG_X86_64
#define KPS_FN_BODY							\
	"	.byte 0xf3, 0x0f, 0x1e, 0xfa\n"	/* endbr64 */		\
	"	lea \\n(%rdi), %rax\n"					\
	"	" ASM_RET
#define KPS_FN_TYPE	"@function"
#define KPS_PTR		".quad"
#endif
#ifdef CONFIG_ARM64
#define KPS_FN_BODY							\
	"	movz x1, #\\n\n"						\
	"	add x0, x0, x1\n"					\
	"	ret\n"
#define KPS_FN_TYPE	"%function"
#define KPS_PTR		".quad"
#endif

asm(".pushsection .text\n"
	".altmacro\n"
	".macro kps_fn n\n"
	".type kps_fn_\\n, " KPS_FN_TYPE "\n"
	".balign 4\n"
	"kps_fn_\\n:\n"
	KPS_FN_BODY
	".size kps_fn_\\n, .-kps_fn_\\n\n"
	".endm\n"
	".macro kps_ref n\n"
	"	" KPS_PTR " kps_fn_\\n\n"
	".endm\n"
	".set kps_i, 0\n"
	".rept " __stringify(KPS_FUNCTIONS) "\n"
	"	kps_fn %kps_i\n"
	"	.set kps_i, kps_i + 1\n"
	".endr\n"
	".popsection\n"
	".pushsection .rodata\n"
	".balign 8\n"
	"kps_fns:\n"
	".set kps_i, 0\n"
	".rept " __stringify(KPS_FUNCTIONS) "\n"
	"	kps_ref %kps_i\n"
	"	.set kps_i, kps_i + 1\n"
	".endr\n"
	".noaltmacro\n"
	".popsection\n");

typedef long (*kps_fn_t)(long a);

static const unsigned long *kps_functions(struct kunit *test)
{
	const unsigned long *fns = (void *)kallsyms_lookup_name("kps_fns");

	KUNIT_ASSERT_NOT_NULL(test, fns);
	return fns;
}

static int kps_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/* Every registered point, counted under kprobe_mutex */
static unsigned int kps_count_points(void)
{
	struct kprobe_point *kpp;
	unsigned int n = 0;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(kpp, &kprobe_points, node)
		n++;
	mutex_unlock(&kprobe_mutex);
	return n;
}

static unsigned long kps_hits(struct kprobe *p)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(p->hits, cpu);
	return sum;
}

/* Call every function once; count those that return the wrong value. */
static int kps_call_all(const unsigned long *fns, unsigned int n)
{
	unsigned int i, wrong = 0;

	for (i = 0; i < n; i++) {
		if (((kps_fn_t)fns[i])(1000) != 1000 + i)
			wrong++;
	}
	return wrong;
}

static void kps_ten_thousand_kprobes(struct kunit *test)
{
	const unsigned long *fns = kps_functions(test);
	unsigned int i, unfired = 0, before = kps_count_points();
	struct kprobe **batch, *kps;

	kps = vzalloc(array_size(KPS_FUNCTIONS, sizeof(*kps)));
	batch = kvcalloc(KPS_FUNCTIONS, sizeof(*batch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	KUNIT_ASSERT_NOT_NULL(test, batch);
	for (i = 0; i < KPS_FUNCTIONS; i++) {
		kps[i].addr = (kprobe_opcode_t *)fns[i];
		kps[i].pre_handler = kps_pre;
		batch[i] = &kps[i];
	}

	/* All in one call */
	KUNIT_ASSERT_EQ(test, register_kprobes(batch, KPS_FUNCTIONS), 0);
	KUNIT_EXPECT_EQ(test, kps_count_points(), before + KPS_FUNCTIONS);
	KUNIT_EXPECT_EQ(test, kps_call_all(fns, KPS_FUNCTIONS), 0);
	for (i = 0; i < KPS_FUNCTIONS; i++)
		unfired += kps_hits(&kps[i]) != 1;
	KUNIT_EXPECT_EQ(test, unfired, 0U);
	unregister_kprobes(batch, KPS_FUNCTIONS);
	KUNIT_EXPECT_EQ(test, kps_count_points(), before);
	KUNIT_EXPECT_EQ(test, kps_call_all(fns, KPS_FUNCTIONS), 0);
	for (i = 0; i < KPS_FUNCTIONS; i++)
		KUNIT_EXPECT_NULL(test, kps[i].point);
	kvfree(batch);
	vfree(kps);
}

#ifdef CONFIG_KRETPROBES
static atomic_t kps_returns;

static int kps_rp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kps_returns);
	return 0;
}

static void kps_thousand_kretprobes(struct kunit *test)
{
	const unsigned long *fns = kps_functions(test);
	unsigned int i, before = kps_count_points();
	struct kretprobe **batch, *rps;

	rps = vzalloc(array_size(KPS_KRETPROBES, sizeof(*rps)));
	batch = kvcalloc(KPS_KRETPROBES, sizeof(*batch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rps);
	KUNIT_ASSERT_NOT_NULL(test, batch);
	for (i = 0; i < KPS_KRETPROBES; i++) {
		rps[i].kp.addr = (kprobe_opcode_t *)fns[i];
		rps[i].handler = kps_rp_handler;
		batch[i] = &rps[i];
	}
	atomic_set(&kps_returns, 0);

	KUNIT_ASSERT_EQ(test, register_kretprobes(batch, KPS_KRETPROBES), 0);
	KUNIT_EXPECT_EQ(test, kps_count_points(), before + KPS_KRETPROBES);
	KUNIT_EXPECT_EQ(test, kps_call_all(fns, KPS_KRETPROBES), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps_returns), KPS_KRETPROBES);
	unregister_kretprobes(batch, KPS_KRETPROBES);
	KUNIT_EXPECT_EQ(test, kps_count_points(), before);
	KUNIT_EXPECT_EQ(test, kps_call_all(fns, KPS_KRETPROBES), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps_returns), KPS_KRETPROBES);
	for (i = 0; i < KPS_KRETPROBES; i++)
		KUNIT_EXPECT_NULL(test, rps[i].pool);
	kvfree(batch);
	vfree(rps);
}
#endif

static struct kunit_case kps_cases[] = {
	KUNIT_CASE(kps_ten_thousand_kprobes),
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(kps_thousand_kretprobes),
#endif
	{}
};

static struct kunit_suite kps_suite = {
	.name = "kprobes_scale_test",
	.test_cases = kps_cases,
};

kunit_test_suites(&kps_suite);

MODULE_DESCRIPTION("KUnit tests for kprobes at scale");
MODULE_LICENSE("GPL");
