// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes under allocation failures: a registration that cannot get its
 * memory fails with -ENOMEM and leaves nothing behind.
 *
 * For each case, registration runs with the Nth fault-injection point of
 * this task failing (current->fail_nth, what /proc/self/fail-nth sets),
 * for N = 1, 2, 3, ... until the registration no longer reaches the Nth.
 * The fault attributes decide which allocations are points: the guest
 * script sets failslab and fail_page_alloc in debugfs to take GFP_KERNEL
 * allocations (ignore-gfp-wait 0, min-order 0) and to print nothing.
 * After each failed registration:
 *
 *  - the error is -ENOMEM;
 *  - the probe is not registered: its struct says so, calling the probed
 *    function runs no handler, unregistering it is harmless;
 *  - the same probe registers without a fault, fires once per call, and
 *    unregisters;
 *
 * and a registration that succeeded although a fault was injected (the
 * failure was one the core may tolerate) works as well.  Leaks and
 * leftover slot pages are judged by the guest script (kmemleak, the
 * kprobe_insn_page symbols in /proc/kallsyms).
 *
 * Prints "kprobes-fault: begin", one line per case, and
 * "kprobes-fault: PASS" or "kprobes-fault: FAIL" when loaded.
 */

#define pr_fmt(fmt) "kprobes-fault: " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>

#define KPF_MAX_N	2000

static noinline __noipa int kpf_target(int a)
{
	return a * 7 + 3;
}

static noinline __noipa int kpf_target2(int a)
{
	return a * 11 - 5;
}

static noinline __noipa int kpf_target3(int a)
{
	return a ^ 0x55;
}

static int kpf_hits;
static int kpf_returns;

static int kpf_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpf_hits++;
	return 0;
}

static void kpf_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
}

static int kpf_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpf_returns++;
	return 0;
}

/* One kind of registration, in a form the loop can repeat */
struct kpf_case {
	const char *name;
	/* Fill in the probes, register them; return the error */
	int (*reg)(void);
	void (*unreg)(void);
	/* Are the probes registered (as far as their structs tell)? */
	bool (*registered)(void);
	/* Calls that must each run one handler while registered */
	int (*fire)(void);
	/* It allocates: some fault must make it fail */
	bool must_fail;
};

static struct kprobe kpf_kp, kpf_other, kpf_batch[3];
static struct kretprobe kpf_rp;

static bool kpf_kp_registered(struct kprobe *kp)
{
	return kp->point || !list_empty(&kp->list);
}

static int kpf_call_all(void)
{
	int before = kpf_hits + kpf_returns;

	if (kpf_target(3) != 24 || kpf_target2(3) != 28 || kpf_target3(3) != 0x56)
		return -1;
	return kpf_hits + kpf_returns - before;
}

/* A new point */
static int kpf_kprobe_reg(void)
{
	memset(&kpf_kp, 0, sizeof(kpf_kp));
	INIT_LIST_HEAD(&kpf_kp.list);
	kpf_kp.addr = (kprobe_opcode_t *)kpf_target;
	kpf_kp.pre_handler = kpf_pre;
	kpf_kp.post_handler = kpf_post;
	return register_kprobe(&kpf_kp);
}

static void kpf_kprobe_unreg(void)
{
	unregister_kprobe(&kpf_kp);
}

static bool kpf_kprobe_registered(void)
{
	return kpf_kp_registered(&kpf_kp);
}

/* A second kprobe on a point that exists (kpf_other holds it) */
static int kpf_aggr_reg(void)
{
	return kpf_kprobe_reg();
}

/* Three points at once, all or none */
static int kpf_batch_reg(void)
{
	static void * const fns[] = { kpf_target, kpf_target2, kpf_target3 };
	struct kprobe *kps[3];
	int i;

	for (i = 0; i < 3; i++) {
		memset(&kpf_batch[i], 0, sizeof(kpf_batch[i]));
		INIT_LIST_HEAD(&kpf_batch[i].list);
		kpf_batch[i].addr = fns[i];
		kpf_batch[i].pre_handler = kpf_pre;
		kps[i] = &kpf_batch[i];
	}
	return register_kprobes(kps, 3);
}

static void kpf_batch_unreg(void)
{
	struct kprobe *kps[3] = { &kpf_batch[0], &kpf_batch[1], &kpf_batch[2] };

	unregister_kprobes(kps, 3);
}

static bool kpf_batch_registered(void)
{
	return kpf_kp_registered(&kpf_batch[0]) ||
	       kpf_kp_registered(&kpf_batch[1]) ||
	       kpf_kp_registered(&kpf_batch[2]);
}

static int kpf_kretprobe_reg_n(int maxactive)
{
	memset(&kpf_rp, 0, sizeof(kpf_rp));
	INIT_LIST_HEAD(&kpf_rp.kp.list);
	kpf_rp.kp.addr = (kprobe_opcode_t *)kpf_target2;
	kpf_rp.handler = kpf_ret;
	kpf_rp.maxactive = maxactive;
	kpf_rp.data_size = 64;
	return register_kretprobe(&kpf_rp);
}

static int kpf_kretprobe_reg(void)
{
	return kpf_kretprobe_reg_n(4);
}

/* Instances beyond what kmalloc gives: the pool falls back to vmalloc */
static int kpf_kretprobe_big_reg(void)
{
	return kpf_kretprobe_reg_n(4096);
}

static void kpf_kretprobe_unreg(void)
{
	unregister_kretprobe(&kpf_rp);
}

static bool kpf_kretprobe_registered(void)
{
	return kpf_kp_registered(&kpf_rp.kp) || kpf_rp.pool;
}

static int kpf_fire_one(void)
{
	return kpf_call_all() == 1 ? 0 : -1;
}

static int kpf_fire_three(void)
{
	return kpf_call_all() == 3 ? 0 : -1;
}

static const struct kpf_case kpf_cases[] = {
	{ "kprobe", kpf_kprobe_reg, kpf_kprobe_unreg, kpf_kprobe_registered,
	  kpf_fire_one, true },
	/* Only per-CPU memory, which has no fault injection: never fails */
	{ "kprobe-on-existing-point", kpf_aggr_reg, kpf_kprobe_unreg,
	  kpf_kprobe_registered, kpf_fire_one, false },
	{ "kprobes-batch", kpf_batch_reg, kpf_batch_unreg,
	  kpf_batch_registered, kpf_fire_three, true },
	{ "kretprobe", kpf_kretprobe_reg, kpf_kretprobe_unreg,
	  kpf_kretprobe_registered, kpf_fire_one, true },
	{ "kretprobe-large-pool", kpf_kretprobe_big_reg, kpf_kretprobe_unreg,
	  kpf_kretprobe_registered, kpf_fire_one, true },
};

#ifdef CONFIG_FAULT_INJECTION
/*
 * kpf_other holds the point of kpf_target for the case that joins an
 * existing point; its hits are not counted.
 */
static int kpf_other_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/* Run one case for N = 1, 2, ...; return the failures it saw. */
static int kpf_run_case(const struct kpf_case *c, int *injected)
{
	int n, ret, left, bad = 0;

	*injected = 0;
	for (n = 1; n <= KPF_MAX_N; n++) {
		WRITE_ONCE(current->fail_nth, n);
		ret = c->reg();
		left = READ_ONCE(current->fail_nth);
		WRITE_ONCE(current->fail_nth, 0);

		if (!ret) {
			/* Registered: the Nth point was not reached, or tolerated. */
			if (c->fire()) {
				pr_err("%s: N=%d: registered but does not fire\n",
				       c->name, n);
				bad++;
			}
			c->unreg();
			if (left)
				break;
			continue;
		}
		(*injected)++;
		if (ret != -ENOMEM) {
			pr_err("%s: N=%d: error %d, not -ENOMEM\n", c->name, n, ret);
			bad++;
		}
		if (c->registered()) {
			pr_err("%s: N=%d: failed, but left registered\n", c->name, n);
			bad++;
		}
		if (kpf_call_all() != 0) {
			pr_err("%s: N=%d: failed, but a handler runs\n", c->name, n);
			bad++;
		}
		/* Harmless on a probe that is not registered */
		c->unreg();
		ret = c->reg();
		if (ret) {
			pr_err("%s: N=%d: cannot register again: %d\n",
			       c->name, n, ret);
			bad++;
			continue;
		}
		if (c->fire()) {
			pr_err("%s: N=%d: registered again but does not fire\n",
			       c->name, n);
			bad++;
		}
		c->unreg();
		if (bad > 10)
			break;
	}
	if (n > KPF_MAX_N) {
		pr_err("%s: still failing after %d injected faults\n", c->name,
		       KPF_MAX_N);
		bad++;
	}
	return bad;
}

static int __init kpf_init(void)
{
	int i, injected, bad, total_bad = 0, total_injected = 0;

	pr_info("begin\n");
	kpf_other.addr = (kprobe_opcode_t *)kpf_target;
	kpf_other.pre_handler = kpf_other_pre;
	for (i = 0; i < ARRAY_SIZE(kpf_cases); i++) {
		/* Only the "existing point" case keeps kpf_target probed */
		if (i == 1 && register_kprobe(&kpf_other)) {
			pr_err("cannot register the point holder\n");
			total_bad++;
			continue;
		}
		bad = kpf_run_case(&kpf_cases[i], &injected);
		if (i == 1)
			unregister_kprobe(&kpf_other);
		pr_info("%s: %d registrations failed by injection, %d problems\n",
			kpf_cases[i].name, injected, bad);
		if (!injected && kpf_cases[i].must_fail) {
			pr_err("%s: no fault was injected: are failslab and fail_page_alloc set up?\n",
			       kpf_cases[i].name);
			bad++;
		}
		total_bad += bad;
		total_injected += injected;
	}
	pr_info("end: %d registrations failed by injection, %d problems\n",
		total_injected, total_bad);
	pr_info("%s\n", total_bad ? "FAIL" : "PASS");
	return 0;
}
#else
static int __init kpf_init(void)
{
	pr_info("begin\n");
	pr_info("end: the kernel has no fault injection\n");
	pr_info("SKIP\n");
	return 0;
}
#endif

static void __exit kpf_exit(void)
{
}

module_init(kpf_init);
module_exit(kpf_exit);
MODULE_DESCRIPTION("kprobes registration under allocation failures");
MODULE_LICENSE("GPL");
