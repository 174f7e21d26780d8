// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kprobes on every offset of a function: registration
 * succeeds exactly at the instruction boundaries that may be probed, each
 * probe there fires when its instruction runs, and the function computes
 * what it computes unprobed.
 *
 * The functions have different shapes: a leaf, a loop, a switch, calls
 * through pointers in memory, a load with an exception-table entry that
 * faults, a jump label, a WARN() site that is not taken, and a few kernel
 * string functions with deterministic results.  The boundaries come from
 * the kernel's own instruction decoder on x86 (every 4 bytes on arm64).
 * Blacklisted text must be refused with -EINVAL, and text that another
 * patcher owns (jump label, static call, alternative) with -EBUSY,
 * wherever the offset falls; ftrace's call sites may be served or refused
 * with -EBUSY, and the bytes inside them are no boundary.  The trapping
 * instruction of a BUG()/WARN() site (UD2, BRK) must be refused with
 * -EINVAL.  Elsewhere, registration must succeed at a boundary and fail
 * with -EILSEQ between two.  Every probe of a function is registered and
 * armed at once; then the function runs on inputs that take each of its
 * paths, and the probes of this file's own functions must all fire, but on
 * padding (nop, int3) that no path runs.
 * The functions are found with kallsyms_lookup_size_offset(), so the suite
 * is built in only.
 */

#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/insn.h>
#ifdef CONFIG_X86
#include <asm/alternative.h>
#endif

/* The task that runs the functions: probe hits from others do not count */
static struct task_struct *kpb_task;

static noinline __noipa long kpb_leaf(long a, long b)
{
	return (a * 3 + b) ^ 0x55;
}

static noinline __noipa long kpb_loop(const int *v, int n)
{
	long sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (v[i] & 1)
			sum += v[i] * 7;
		else
			sum -= v[i] >> 1;
	}
	return sum;
}

/* Cases that compute differently: a jump table where the arch has them */
static noinline __noipa long kpb_switch(long x, long y)
{
	switch (x) {
	case 0: return y + 11;
	case 1: return y * 23;
	case 2: return y ^ 37;
	case 3: return y << 4;
	case 4: return y - 59;
	case 5: return y | 66;
	case 6: return y * y;
	case 7: return y >> 1;
	case 8: return ~y;
	case 9: return y * 3 + 1;
	default: return -1;
	}
}

/* A load with an exception-table entry: faults on an unmapped address */
static noinline __noipa long kpb_extable(const long *p)
{
	long val;

	pagefault_disable();
	__get_kernel_nofault(&val, p, long, fault);
	pagefault_enable();
	return val + 1;
fault:
	pagefault_enable();
	return -EFAULT;
}

/*
 * A WARN() site: its trapping instruction is refused, the instructions
 * around it are not.  It is never taken (a warning would fail the run), so
 * the instructions of its path do not run.
 */
static noinline __noipa long kpb_warn(long x)
{
	if (WARN_ON_ONCE(x < 0))
		return 0;
	return x * 5 + 1;
}

/*
 * Calls through function pointers in memory (on x86 without retpolines:
 * call and a tail-call jmp through memory, based and indexed)
 */
struct kpb_ops {
	long (*op[2])(long x);
};

static noinline __noipa long kpb_op_double(long x)
{
	return x * 2;
}

static noinline __noipa long kpb_op_negate(long x)
{
	return -x;
}

static noinline __noipa long kpb_indirect(const struct kpb_ops *ops, long x)
{
	if (x < 0)
		return ops->op[x & 1](-x);
	return ops->op[0](x) + ops->op[1](x + 3);
}

static DEFINE_STATIC_KEY_FALSE(kpb_key);

static noinline __noipa long kpb_jump_label(long x)
{
	if (static_branch_unlikely(&kpb_key))
		x += 100;
	return x * 2;
}

/* The inputs of kpb_extable(): a mapped page and the guard page after it */
static long *kpb_page;

static long kpb_run_leaf(void)
{
	return kpb_leaf(5, 7) + kpb_leaf(-9, 1000);
}

static long kpb_run_loop(void)
{
	static const int v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, -3, -4 };

	return kpb_loop(v, ARRAY_SIZE(v)) * 1000 + kpb_loop(v, 0);
}

static long kpb_run_switch(void)
{
	long sum = 0, x;

	for (x = -1; x <= 11; x++)
		sum = sum * 3 + kpb_switch(x, 1000 + 7 * x);
	return sum;
}

static long kpb_run_indirect(void)
{
	static const struct kpb_ops ops = { { kpb_op_double, kpb_op_negate } };
	const struct kpb_ops *p = &ops;

	OPTIMIZER_HIDE_VAR(p);
	return (kpb_indirect(p, 4) * 1000 + kpb_indirect(p, -5)) * 1000 +
	       kpb_indirect(p, -6);
}

static long kpb_run_extable(void)
{
	kpb_page[0] = 41;
	return kpb_extable(kpb_page) * 1000 +
	       kpb_extable((long *)((char *)kpb_page + PAGE_SIZE));
}

static long kpb_run_warn(void)
{
	return kpb_warn(3) * 1000 + kpb_warn(77);
}

static long kpb_run_jump_label(void)
{
	long r = kpb_jump_label(3);

	static_branch_enable(&kpb_key);
	r = r * 1000 + kpb_jump_label(4);
	static_branch_disable(&kpb_key);
	return r;
}

/*
 * The kernel's string functions, on arguments the compiler cannot see
 * through: with constant ones, it would compute the results itself.
 */
static size_t kpb_strlen(const char *s)
{
	OPTIMIZER_HIDE_VAR(s);
	return strlen(s);
}

static int kpb_strcmp(const char *a, const char *b)
{
	OPTIMIZER_HIDE_VAR(a);
	OPTIMIZER_HIDE_VAR(b);
	return strcmp(a, b);
}

static int kpb_memcmp(const void *a, const void *b, size_t n)
{
	OPTIMIZER_HIDE_VAR(a);
	OPTIMIZER_HIDE_VAR(b);
	OPTIMIZER_HIDE_VAR(n);
	return memcmp(a, b, n);
}

static char *kpb_strchr(const char *s, int c)
{
	OPTIMIZER_HIDE_VAR(s);
	OPTIMIZER_HIDE_VAR(c);
	return strchr(s, c);
}

static long kpb_run_strlen(void)
{
	static const char * const s[] = { "", "a", "kprobes", "0123456789abcdefghij" };
	long r = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(s); i++)
		r = r * 31 + kpb_strlen(s[i]);
	return r;
}

static long kpb_run_strcmp(void)
{
	return kpb_strcmp("abc", "abc") * 9 + (kpb_strcmp("abc", "abd") < 0) * 3 +
	       (kpb_strcmp("b", "a") > 0);
}

static long kpb_run_memcmp(void)
{
	static const char a[] = "0123456789abcdefghijklmnopqrstuvwxyz0123456789";
	static const char b[] = "0123456789abcdefghijklmnopqrstuvwxyz012345678X";

	return !kpb_memcmp(a, a, sizeof(a)) * 100 +
	       (kpb_memcmp(a, b, sizeof(a)) < 0) * 10 + !kpb_memcmp(b, a, 5);
}

static long kpb_run_strchr(void)
{
	static const char s[] = "kprobes everywhere";

	return (kpb_strchr(s, 'e') - s) * 100 + !kpb_strchr(s, 'z') * 10 +
	       (kpb_strchr(s, '\0') - s == kpb_strlen(s));
}

/**
 * struct kpb_target - a function probed at every offset
 * @name: its name, for kallsyms
 * @run: calls it on inputs that take its paths; returns a digest of the
 *	 results
 * @own: a function of this file, whose every instruction @run executes
 * @traps: it has BUG()/WARN() traps, to be refused with -EINVAL
 */
struct kpb_target {
	const char *name;
	long (*run)(void);
	bool own;
	bool traps;
};

static const struct kpb_target kpb_targets[] = {
	{ "kpb_leaf", kpb_run_leaf, true },
	{ "kpb_loop", kpb_run_loop, true },
	{ "kpb_switch", kpb_run_switch, true },
	{ "kpb_indirect", kpb_run_indirect, true },
	{ "kpb_extable", kpb_run_extable, true },
	{ "kpb_jump_label", kpb_run_jump_label, true },
	{ "kpb_warn", kpb_run_warn, false, true },
	{ "strlen", kpb_run_strlen, false },
	{ "strcmp", kpb_run_strcmp, false },
	{ "memcmp", kpb_run_memcmp, false },
	{ "strchr", kpb_run_strchr, false },
};

/* At most this many bytes of a function are probed */
#define KPB_MAX_SIZE	1024

struct kpb_probe {
	struct kprobe kp;
	unsigned long hits;
};

static int kpb_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current == kpb_task)
		container_of(p, struct kpb_probe, kp)->hits++;
	return 0;
}

/*
 * The length of the instruction at @addr, 0 if it does not decode; *@pad
 * tells whether it is padding that no path may run.
 */
static int kpb_insn_len(unsigned long addr, bool *pad)
{
#ifdef CONFIG_X86
	struct insn insn;
	u8 op;

	if (insn_decode_kernel(&insn, (void *)addr) < 0)
		return 0;
	op = insn.opcode.bytes[0];
	*pad = op == INT3_INSN_OPCODE || (op == 0x90 && !insn.rex_prefix.nbytes) ||
	       (op == 0x0f && insn.opcode.bytes[1] == 0x1f);
	return insn.length;
#else
	u32 insn = le32_to_cpu(*(__le32 *)addr);

	*pad = insn == aarch64_insn_gen_nop() || aarch64_insn_is_brk(insn) ||
	       insn >> 16 == 0;			/* udf */
	return AARCH64_INSN_SIZE;
#endif
}

/* Is @addr text that another patcher owns? */
static bool kpb_reserved(unsigned long addr)
{
	bool reserved = static_call_text_reserved((void *)addr, (void *)addr);

	jump_label_lock();
	reserved |= jump_label_text_reserved((void *)addr, (void *)addr);
	jump_label_unlock();
#ifdef CONFIG_X86
	mutex_lock(&text_mutex);
	reserved |= alternatives_text_reserved((void *)addr, (void *)addr);
	mutex_unlock(&text_mutex);
#endif
	return reserved;
}

static void kpb_every_offset(struct kunit *test, const struct kpb_target *t)
{
	unsigned long func, size, offset, off, next = 0, fired = 0, must = 0;
	unsigned long traps = 0;
	struct kpb_probe *probes;
	struct kprobe **batch;
	bool *boundary, *pad;
	int nr = 0;
	long expect, got;
	int err;

	func = kallsyms_lookup_name(t->name);
	KUNIT_ASSERT_NE_MSG(test, func, 0UL, "%s not found", t->name);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(func, &size, &offset));
	KUNIT_ASSERT_EQ(test, offset, 0UL);
	size = min_t(unsigned long, size, KPB_MAX_SIZE);

	probes = kunit_kcalloc(test, size, sizeof(*probes), GFP_KERNEL);
	boundary = kunit_kcalloc(test, size, sizeof(*boundary), GFP_KERNEL);
	pad = kunit_kcalloc(test, size, sizeof(*pad), GFP_KERNEL);
	batch = kunit_kcalloc(test, size, sizeof(*batch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, probes);
	KUNIT_ASSERT_NOT_NULL(test, batch);
	KUNIT_ASSERT_NOT_NULL(test, boundary);
	KUNIT_ASSERT_NOT_NULL(test, pad);

	/* The boundaries, decoded from unprobed text */
	for (off = 0; off < size; off = next) {
		int len = kpb_insn_len(func + off, &pad[off]);

		KUNIT_ASSERT_GT_MSG(test, len, 0, "%s+%#lx does not decode",
				    t->name, off);
		boundary[off] = true;
		next = off + len;
	}

	kpb_task = current;
	expect = t->run();

	for (off = 0; off < size; off++) {
		struct kprobe *kp = &probes[off].kp;
		unsigned long addr = func + off;
		bool ftrace = ftrace_text_reserved((void *)addr, (void *)addr);

		kp->addr = (kprobe_opcode_t *)addr;
		kp->pre_handler = kpb_pre;
		err = register_kprobe(kp);
		if (within_kprobe_blacklist(addr)) {
			KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL,
					    "%s+%#lx is blacklisted", t->name, off);
		} else if (kpb_reserved(addr)) {
			KUNIT_EXPECT_EQ_MSG(test, err, -EBUSY,
					    "%s+%#lx is reserved", t->name, off);
		} else if (boundary[off] && find_bug(addr)) {
			KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL,
					    "%s+%#lx is a BUG()/WARN() trap",
					    t->name, off);
			traps++;
		} else if (!boundary[off]) {
			KUNIT_EXPECT_EQ_MSG(test, err, -EILSEQ,
					    "%s+%#lx is inside an instruction",
					    t->name, off);
		} else if (!ftrace || err != -EBUSY) {
			KUNIT_EXPECT_EQ_MSG(test, err, 0, "%s+%#lx", t->name, off);
		}
		if (err) {
			kp->addr = NULL;
			continue;
		}
		batch[nr++] = kp;
		if (!pad[off])
			must++;
	}

	/* All armed at once: the results are unchanged, the probes fire */
	got = t->run();
	KUNIT_EXPECT_EQ_MSG(test, got, expect, "%s computes otherwise probed",
			    t->name);
	for (off = 0; off < size; off++) {
		struct kpb_probe *p = &probes[off];

		if (!p->kp.addr)
			continue;
		fired += p->hits > 0;
		if (t->own && !pad[off])
			KUNIT_EXPECT_GT_MSG(test, p->hits, 0UL,
					    "the probe on %s+%#lx never fired",
					    t->name, off);
		if (off == 0)
			KUNIT_EXPECT_GT_MSG(test, p->hits, 0UL,
					    "the probe on %s's entry never fired",
					    t->name);
	}
	unregister_kprobes(batch, nr);
	kpb_task = NULL;
	KUNIT_EXPECT_EQ(test, t->run(), expect);
	if (t->traps)
		KUNIT_EXPECT_GT_MSG(test, traps, 0UL, "%s has no BUG()/WARN() trap",
				    t->name);
	kunit_info(test, "%s: %lu bytes, %lu probes on instructions that run, %lu fired\n",
		   t->name, size, must, fired);
}

/* The target named @name */
static void kpb_every_offset_of(struct kunit *test, const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kpb_targets); i++) {
		if (!strcmp(kpb_targets[i].name, name)) {
			kpb_every_offset(test, &kpb_targets[i]);
			return;
		}
	}
	KUNIT_FAIL(test, "no target %s", name);
}

static void kpb_leaf_every_offset(struct kunit *test)
{
	kpb_every_offset_of(test, "kpb_leaf");
}

static void kpb_loop_every_offset(struct kunit *test)
{
	kpb_every_offset_of(test, "kpb_loop");
}

static void kpb_switch_every_offset(struct kunit *test)
{
	kpb_every_offset_of(test, "kpb_switch");
}

static void kpb_indirect_every_offset(struct kunit *test)
{
	kpb_every_offset_of(test, "kpb_indirect");
}

static void kpb_extable_every_offset(struct kunit *test)
{
	kpb_every_offset_of(test, "kpb_extable");
}

static void kpb_jump_label_every_offset(struct kunit *test)
{
	kpb_every_offset_of(test, "kpb_jump_label");
}

static void kpb_warn_every_offset(struct kunit *test)
{
	kpb_every_offset_of(test, "kpb_warn");
}

/* The kernel's string functions: neither this file's nor with traps */
static void kpb_string_functions_every_offset(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kpb_targets); i++) {
		if (!kpb_targets[i].own && !kpb_targets[i].traps)
			kpb_every_offset(test, &kpb_targets[i]);
	}
}

static int kpb_suite_init(struct kunit_suite *suite)
{
	/* A mapped page, and the guard page vmalloc() leaves after it */
	kpb_page = vmalloc(PAGE_SIZE);
	return kpb_page ? 0 : -ENOMEM;
}

static void kpb_suite_exit(struct kunit_suite *suite)
{
	vfree(kpb_page);
}

static struct kunit_case kpb_cases[] = {
	KUNIT_CASE(kpb_leaf_every_offset),
	KUNIT_CASE(kpb_loop_every_offset),
	KUNIT_CASE(kpb_switch_every_offset),
	KUNIT_CASE(kpb_indirect_every_offset),
	KUNIT_CASE(kpb_extable_every_offset),
	KUNIT_CASE(kpb_jump_label_every_offset),
	KUNIT_CASE(kpb_warn_every_offset),
	KUNIT_CASE(kpb_string_functions_every_offset),
	{}
};

static struct kunit_suite kpb_suite = {
	.name = "kprobes_boundaries_test",
	.suite_init = kpb_suite_init,
	.suite_exit = kpb_suite_exit,
	.test_cases = kpb_cases,
};

kunit_test_suites(&kpb_suite);

MODULE_DESCRIPTION("KUnit tests for kprobes at every offset of a function");
MODULE_LICENSE("GPL");
