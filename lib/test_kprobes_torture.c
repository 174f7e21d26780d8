// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes torture test, in the spirit of rcutorture and locktorture.
 *
 * Writer threads register, unregister, enable and disable kprobes and
 * kretprobes, one at a time and in batches, on the instructions of a few
 * hot functions of this module, several on one address at times, while a
 * reader thread on every CPU, a per-CPU hrtimer and IPIs call those
 * functions.  Probes with only a pre_handler get jump-optimized where the
 * arch can; probes on function entries ride ftrace where the kernel has
 * the function tracer.  The first writer also probes a function of
 * test_kprobes_torture_target, which a script loads and unloads meanwhile.
 *
 * The books.  A probe slot has a sequence count, odd while its writer
 * changes it.  A "checked" call runs with interrupts disabled between two
 * reads of the count of one slot; if the count did not change, the slot
 * was in one state for the whole call, and this CPU's counters of the
 * slot tell what its handlers did during the call, and nothing else:
 *
 *  - enabled: the handlers ran once, or the probe counted a miss (a
 *    kretprobe: the entry and the return handler ran, or it found no
 *    free instance); otherwise the hit was lost;
 *  - disabled or unregistered: no handler ran; otherwise a stray hit;
 *  - no handler may see its slot unregistered: the writer marks it so
 *    only after unregister_kprobe() returned (a late handler);
 *  - every function returns what it computes, and the return handlers
 *    see the value the function returned for the arguments the entry
 *    handler saw;
 *  - at the end, the pool of every kretprobe still registered is full
 *    again: all its instances are back on the free lists.
 *
 * Module parameters: duration (seconds), writers, nprobes, nretprobes,
 * irq_period_us.  The run happens in module init; the last console line
 * is "kprobes-torture: PASS" or "kprobes-torture: FAIL".
 */

#define pr_fmt(fmt) "kprobes-torture: " fmt

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>

static int duration = 20;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds to run (default 20)");

static int writers = 2;
module_param(writers, int, 0444);
MODULE_PARM_DESC(writers, "writer threads (default 2)");

static int nprobes = 24;
module_param(nprobes, int, 0444);
MODULE_PARM_DESC(nprobes, "kprobes the writers play with (default 24, at most 64)");

static int nretprobes = 6;
module_param(nretprobes, int, 0444);
MODULE_PARM_DESC(nretprobes, "kretprobes the writers play with (default 6, at most 16)");

static int irq_period_us = 1000;
module_param(irq_period_us, int, 0444);
MODULE_PARM_DESC(irq_period_us, "period of the per-CPU hrtimer that calls the probed functions (default 1000, 0: none)");

#define KTT_MAX_KPROBES		64
#define KTT_MAX_KRETPROBES	16
#define KTT_MAX_WRITERS		8
#define KTT_MAX_POINTS		96
#define KTT_BATCH		4
#define KTT_DATA_MAGIC		0x6b74745fUL

/* ---------------------------------------------------------------------- */
/* The probed functions: straight-line code, each instruction runs once.    */
/* ---------------------------------------------------------------------- */

static noinline __noipa unsigned long ktt_hot0(unsigned long a, unsigned long b)
{
	return a * 3 + b;
}

static noinline __noipa unsigned long ktt_hot1(unsigned long a, unsigned long b)
{
	return (a ^ b) + 7;
}

static noinline __noipa unsigned long ktt_hot2(unsigned long a, unsigned long b)
{
	return ktt_hot0(a, b) + ktt_hot1(b, a);
}

static noinline __noipa unsigned long ktt_hot3(unsigned long a, unsigned long b)
{
	unsigned long v[4] = { a, b, a + b, a - b };

	barrier_data(v);
	return v[0] + v[1] * 2 + v[2] * 3 + v[3];
}

static noinline __noipa unsigned long ktt_hot4(unsigned long a, unsigned long b)
{
	return ror64(a, 7) - b;
}

typedef unsigned long (*ktt_fn_t)(unsigned long a, unsigned long b);

static const ktt_fn_t ktt_fns[] = {
	ktt_hot0, ktt_hot1, ktt_hot2, ktt_hot3, ktt_hot4,
};

#define KTT_NR_FNS	ARRAY_SIZE(ktt_fns)
#define KTT_HOT2	2

/* What ktt_fns[@fn](@a, @b) returns */
static unsigned long ktt_expected(int fn, unsigned long a, unsigned long b)
{
	switch (fn) {
	case 0:
		return a * 3 + b;
	case 1:
		return (a ^ b) + 7;
	case 2:
		return a * 3 + b + ((b ^ a) + 7);
	case 3:
		return 5 * a + 4 * b;
	default:
		return ror64(a, 7) - b;
	}
}

/* ---------------------------------------------------------------------- */
/* Probe slots                                                             */
/* ---------------------------------------------------------------------- */

enum ktt_state {
	KTT_UNUSED,	/* not registered, and unregister returned */
	KTT_CHANGING,	/* the writer is in register/unregister/... */
	KTT_ENABLED,
	KTT_DISABLED,
};

/* A CPU's count of what a slot's handlers did on it */
struct ktt_counts {
	unsigned long pre;
	unsigned long post;
	unsigned long entry;
	unsigned long ret;
};

/**
 * struct ktt_slot - a kprobe or kretprobe the writers play with
 * @rp: the kretprobe; a plain kprobe slot uses only @rp.kp
 * @is_ret: a kretprobe slot
 * @on_target: probes test_kprobes_torture_target, not our functions
 * @has_post: the kprobe has a post_handler (keeps it from being optimized)
 * @fn: the hot function the probe is in (writer; read under @seq)
 * @seq: odd while the writer changes the slot
 * @state: &enum ktt_state
 * @counts: per-CPU counts of handler runs
 */
struct ktt_slot {
	struct kretprobe rp;
	bool is_ret;
	bool on_target;
	bool has_post;
	int fn;
	unsigned int seq;
	int state;
	struct ktt_counts __percpu *counts;
};

/* Instance data of our kretprobes */
struct ktt_ri_data {
	unsigned long magic;
	unsigned long a;
	unsigned long b;
};

/* Where probes may go: the instruction boundaries we could register on */
static struct {
	kprobe_opcode_t *addr;
	int fn;
} ktt_points[KTT_MAX_POINTS];
static int ktt_nr_points;

static struct ktt_slot *ktt_slots;
static int ktt_nr_slots;

/* The books */
static struct {
	atomic_long_t registered;
	atomic_long_t registered_batch;
	atomic_long_t unregistered;
	atomic_long_t unregistered_batch;
	atomic_long_t enabled;
	atomic_long_t disabled;
	atomic_long_t optimizer_waits;
	atomic_long_t ipis;
	atomic_long_t target_registered;
	atomic_long_t target_absent;
	atomic_long_t target_hits;
	atomic_long_t checked_task;
	atomic_long_t checked_irq;
	atomic_long_t checked_ipi;
	atomic_long_t checked_armed;
	atomic_long_t checked_unarmed;
	atomic_long_t unchecked;
	atomic_long_t missed;
	atomic_long_t no_instance;
	/* failures */
	atomic_long_t lost;
	atomic_long_t stray;
	atomic_long_t late;
	atomic_long_t wrong_results;
	atomic_long_t bad_ret_values;
	atomic_long_t unexpected_errors;
	atomic_long_t pools_not_full;
	atomic_long_t pools_checked;
} ktt;

static atomic_t ktt_stop;

static void ktt_failure(atomic_long_t *counter, const char *what,
			struct ktt_slot *s, long detail)
{
	/* The first few of each kind, with what is known */
	if (atomic_long_inc_return(counter) <= 3)
		pr_err("%s: slot %ld (%s, fn %d, state %d): %ld\n", what,
		       s ? (long)(s - ktt_slots) : -1L,
		       s ? (s->is_ret ? "kretprobe" : "kprobe") : "-",
		       s ? s->fn : -1, s ? READ_ONCE(s->state) : -1, detail);
}

static void ktt_check_late(struct ktt_slot *s)
{
	if (unlikely(READ_ONCE(s->state) == KTT_UNUSED))
		ktt_failure(&ktt.late, "handler ran after unregister returned",
			    s, 0);
}

static int ktt_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ktt_slot *s = container_of(p, struct ktt_slot, rp.kp);

	ktt_check_late(s);
	this_cpu_inc(s->counts->pre);
	if (s->on_target)
		atomic_long_inc(&ktt.target_hits);
	return 0;
}

static void ktt_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	struct ktt_slot *s = container_of(p, struct ktt_slot, rp.kp);

	ktt_check_late(s);
	this_cpu_inc(s->counts->post);
}

static int ktt_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct ktt_ri_data *d = (struct ktt_ri_data *)ri->data;
	struct ktt_slot *s;

	if (!rp)
		return 1;
	s = container_of(rp, struct ktt_slot, rp);
	ktt_check_late(s);
	d->magic = KTT_DATA_MAGIC;
	d->a = regs_get_kernel_argument(regs, 0);
	d->b = regs_get_kernel_argument(regs, 1);
	this_cpu_inc(s->counts->entry);
	return 0;
}

static int ktt_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct ktt_ri_data *d = (struct ktt_ri_data *)ri->data;
	struct ktt_slot *s;

	if (!rp)
		return 0;
	s = container_of(rp, struct ktt_slot, rp);
	ktt_check_late(s);
	this_cpu_inc(s->counts->ret);
	if (d->magic != KTT_DATA_MAGIC)
		ktt_failure(&ktt.bad_ret_values, "instance data corrupted", s,
			    d->magic);
	else if (!s->on_target &&
		 regs_return_value(regs) != ktt_expected(s->fn, d->a, d->b))
		ktt_failure(&ktt.bad_ret_values, "return value", s,
			    regs_return_value(regs));
	d->magic = 0;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Callers                                                                 */
/* ---------------------------------------------------------------------- */

/* A cheap per-CPU generator for the interrupt paths */
static DEFINE_PER_CPU(u32, ktt_irq_rand);

static u32 ktt_irq_random(void)
{
	u32 x = this_cpu_read(ktt_irq_rand) ?: 0x9e3779b9 + smp_processor_id();

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	this_cpu_write(ktt_irq_rand, x);
	return x;
}

static unsigned long ktt_call(int fn, unsigned long a, unsigned long b)
{
	unsigned long r = ktt_fns[fn](a, b);

	if (unlikely(r != ktt_expected(fn, a, b)))
		ktt_failure(&ktt.wrong_results, "wrong result", NULL, fn);
	return r;
}

static unsigned long ktt_nmissed(struct ktt_slot *s)
{
	return READ_ONCE(s->rp.kp.nmissed);
}

/*
 * A checked call: call a function that runs the point of slot @s once,
 * with interrupts disabled, and judge what the handlers did (see the top
 * of this file).  @rand picks the slot and the arguments.
 */
static void ktt_checked_call(u32 rand, atomic_long_t *counter)
{
	struct ktt_slot *s = &ktt_slots[rand % ktt_nr_slots];
	struct ktt_counts c0, c1;
	unsigned long m0, m1, flags;
	int nrp0 = 0, nrp1 = 0;
	unsigned int seq1, seq2;
	int state, fn, callee;
	bool has_post;

	if (s->on_target)
		return;
	local_irq_save(flags);
	/* Pairs with the release in ktt_end(): the state is that one's. */
	seq1 = smp_load_acquire(&s->seq);
	state = READ_ONCE(s->state);
	fn = READ_ONCE(s->fn);
	has_post = READ_ONCE(s->has_post);
	c0 = *this_cpu_ptr(s->counts);
	m0 = ktt_nmissed(s);
	if (s->is_ret)
		nrp0 = READ_ONCE(s->rp.nmissed);
	/* hot2 calls hot0 and hot1 once each */
	callee = (fn < KTT_HOT2 && (rand & 0x100)) ? KTT_HOT2 : fn;
	ktt_call(callee, rand >> 9, rand & 0xff);
	c1 = *this_cpu_ptr(s->counts);
	m1 = ktt_nmissed(s);
	if (s->is_ret)
		nrp1 = READ_ONCE(s->rp.nmissed);
	/*
	 * Pairs with the smp_wmb() in ktt_begin(): a change that began in
	 * time to make a handler run here shows in the count.
	 */
	smp_rmb();
	seq2 = READ_ONCE(s->seq);
	local_irq_restore(flags);

	if (seq1 != seq2 || (seq1 & 1))
		return;
	atomic_long_inc(counter);
	if (state == KTT_ENABLED) {
		atomic_long_inc(&ktt.checked_armed);
		if (m1 != m0) {
			atomic_long_inc(&ktt.missed);
			return;
		}
		if (!s->is_ret) {
			if (c1.pre != c0.pre + 1 ||
			    c1.post != c0.post + (has_post ? 1 : 0))
				ktt_failure(&ktt.lost, "lost hit", s,
					    (long)(c1.pre - c0.pre));
			return;
		}
		if (nrp1 != nrp0 && c1.entry == c0.entry && c1.ret == c0.ret) {
			atomic_long_inc(&ktt.no_instance);
			return;
		}
		if (c1.entry != c0.entry + 1 || c1.ret != c0.ret + 1)
			ktt_failure(&ktt.lost, "lost kretprobe hit", s,
				    (long)(c1.entry - c0.entry) * 10 +
				    (long)(c1.ret - c0.ret));
		return;
	}
	atomic_long_inc(&ktt.checked_unarmed);
	if (memcmp(&c0, &c1, sizeof(c0)))
		ktt_failure(&ktt.stray, "stray hit", s,
			    (long)(c1.pre - c0.pre + c1.entry - c0.entry));
}

struct ktt_reader {
	struct task_struct *task;
	struct rnd_state rnd;
};

static int ktt_reader_fn(void *arg)
{
	struct ktt_reader *r = arg;
	unsigned long i = 0;
	u32 x;

	while (!atomic_read(&ktt_stop)) {
		x = prandom_u32_state(&r->rnd);
		ktt_checked_call(x, &ktt.checked_task);
		/*
		 * Now and then a call that may be preempted inside a boosted
		 * copy or a detour, which the writers must wait for.
		 */
		if (!(x & 0x7000)) {
			ktt_call(x % KTT_NR_FNS, x >> 8, x & 0xff);
			atomic_long_inc(&ktt.unchecked);
		}
		/*
		 * Sleep now and then: the optimizer and the release of
		 * points wait for every task to switch voluntarily (an
		 * RCU-tasks grace period).
		 */
		if (!(++i % 64))
			usleep_range(50, 200);
		else
			cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static DEFINE_PER_CPU(struct hrtimer, ktt_timer);
static struct cpumask ktt_timers_on;

static enum hrtimer_restart ktt_timer_fn(struct hrtimer *t)
{
	ktt_checked_call(ktt_irq_random(), &ktt.checked_irq);
	if (atomic_read(&ktt_stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime((u64)irq_period_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void ktt_timer_start(void *unused)
{
	struct hrtimer *t = this_cpu_ptr(&ktt_timer);

	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	t->function = ktt_timer_fn;
	hrtimer_start(t, ns_to_ktime((u64)irq_period_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	cpumask_set_cpu(smp_processor_id(), &ktt_timers_on);
}

static void ktt_ipi_fn(void *unused)
{
	ktt_checked_call(ktt_irq_random(), &ktt.checked_ipi);
}

/* ---------------------------------------------------------------------- */
/* Writers                                                                 */
/* ---------------------------------------------------------------------- */

struct ktt_writer {
	struct task_struct *task;
	struct rnd_state rnd;
	int id;
};

/* The writer that owns slot @s: the first one has the target's. */
static int ktt_owner(struct ktt_slot *s)
{
	return s->on_target ? 0 : (s - ktt_slots) % writers;
}

static u32 ktt_rand(struct ktt_writer *w, u32 n)
{
	return prandom_u32_state(&w->rnd) % n;
}

static void ktt_begin(struct ktt_slot *s)
{
	WRITE_ONCE(s->seq, s->seq + 1);
	/* The odd count before anything of the change: see ktt_checked_call() */
	smp_wmb();
	WRITE_ONCE(s->state, KTT_CHANGING);
}

/* Publish the new state; pairs with the acquire in ktt_checked_call(). */
static void ktt_end(struct ktt_slot *s, int state)
{
	WRITE_ONCE(s->state, state);
	/* After the state, and after the change itself took effect */
	smp_store_release(&s->seq, s->seq + 1);
}

/* Fill in slot @s for a registration: where, and with which handlers */
static void ktt_prepare(struct ktt_writer *w, struct ktt_slot *s)
{
	struct kprobe *kp = &s->rp.kp;
	int pt;

	memset(&s->rp, 0, sizeof(s->rp));
	if (s->on_target) {
		kp->symbol_name = "ktt_target_work";
		s->fn = -1;
	} else if (s->is_ret) {
		s->fn = ktt_rand(w, KTT_NR_FNS);
		kp->addr = (kprobe_opcode_t *)ktt_fns[s->fn];
	} else {
		pt = ktt_rand(w, ktt_nr_points);
		s->fn = ktt_points[pt].fn;
		kp->addr = ktt_points[pt].addr;
	}
	if (s->is_ret) {
		s->rp.handler = ktt_ret;
		s->rp.entry_handler = ktt_entry;
		s->rp.data_size = sizeof(struct ktt_ri_data);
		/* Small pools, so that they have to grow or run dry */
		s->rp.maxactive = 1 + ktt_rand(w, 4);
		s->rp.maxactive_limit = ktt_rand(w, 2) ? 0 : -1;
	} else {
		kp->pre_handler = ktt_pre;
		/* Most without a post_handler: those can be optimized. */
		s->has_post = !ktt_rand(w, 4);
		kp->post_handler = s->has_post ? ktt_post : NULL;
	}
	if (!ktt_rand(w, 5))
		kp->flags = KPROBE_FLAG_DISABLED;
}

static int ktt_register_one(struct ktt_slot *s)
{
	return s->is_ret ? register_kretprobe(&s->rp) :
			   register_kprobe(&s->rp.kp);
}

static void ktt_unregister_one(struct ktt_slot *s)
{
	if (s->is_ret)
		unregister_kretprobe(&s->rp);
	else
		unregister_kprobe(&s->rp.kp);
}

static void ktt_unexpected(struct ktt_slot *s, const char *op, int err)
{
	ktt_failure(&ktt.unexpected_errors, op, s, err);
}

static void ktt_register(struct ktt_writer *w, struct ktt_slot *s)
{
	bool disabled;
	int ret;

	ktt_begin(s);
	ktt_prepare(w, s);
	disabled = s->rp.kp.flags & KPROBE_FLAG_DISABLED;
	ret = ktt_register_one(s);
	if (s->on_target) {
		if (!ret)
			atomic_long_inc(&ktt.target_registered);
		else if (ret == -ENOENT || ret == -EINVAL)
			atomic_long_inc(&ktt.target_absent);	/* not loaded */
		else
			ktt_unexpected(s, "register on the target", ret);
	} else if (ret) {
		ktt_unexpected(s, "register", ret);
	}
	if (!ret)
		atomic_long_inc(&ktt.registered);
	ktt_end(s, ret ? KTT_UNUSED : disabled ? KTT_DISABLED : KTT_ENABLED);
}

static void ktt_unregister(struct ktt_slot *s)
{
	ktt_begin(s);
	ktt_unregister_one(s);
	atomic_long_inc(&ktt.unregistered);
	ktt_end(s, KTT_UNUSED);
}

static void ktt_set_enabled(struct ktt_slot *s, bool enable)
{
	int ret;

	ktt_begin(s);
	if (s->is_ret)
		ret = enable ? enable_kretprobe(&s->rp) : disable_kretprobe(&s->rp);
	else
		ret = enable ? enable_kprobe(&s->rp.kp) : disable_kprobe(&s->rp.kp);
	/* A probe on the target cannot be enabled once its text is gone. */
	if (ret && !(s->on_target && enable && ret == -EINVAL))
		ktt_unexpected(s, enable ? "enable" : "disable", ret);
	if (!ret)
		atomic_long_inc(enable ? &ktt.enabled : &ktt.disabled);
	ktt_end(s, (enable && !ret) ? KTT_ENABLED : KTT_DISABLED);
}

/* Up to KTT_BATCH slots of writer @w of one kind, registered or not */
static int ktt_pick(struct ktt_writer *w, bool is_ret, bool registered,
		    struct ktt_slot **out)
{
	int i, n = 0, start = ktt_rand(w, ktt_nr_slots);

	for (i = 0; i < ktt_nr_slots && n < KTT_BATCH; i++) {
		struct ktt_slot *s = &ktt_slots[(start + i) % ktt_nr_slots];
		bool unused = s->state == KTT_UNUSED;

		if (ktt_owner(s) != w->id || s->on_target || s->is_ret != is_ret)
			continue;
		if (registered != unused)
			out[n++] = s;
	}
	return n;
}

static void ktt_batch_register(struct ktt_writer *w, bool is_ret)
{
	struct ktt_slot *s[KTT_BATCH];
	struct kretprobe *rps[KTT_BATCH];
	struct kprobe *kps[KTT_BATCH];
	int i, n, ret;

	n = ktt_pick(w, is_ret, false, s);
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		ktt_begin(s[i]);
		ktt_prepare(w, s[i]);
		kps[i] = &s[i]->rp.kp;
		rps[i] = &s[i]->rp;
	}
	ret = is_ret ? register_kretprobes(rps, n) : register_kprobes(kps, n);
	if (ret)
		ktt_unexpected(s[0], "batch register", ret);
	else
		atomic_long_inc(&ktt.registered_batch);
	for (i = 0; i < n; i++) {
		if (!ret)
			atomic_long_inc(&ktt.registered);
		/* All or none */
		ktt_end(s[i], ret ? KTT_UNUSED :
			(s[i]->rp.kp.flags & KPROBE_FLAG_DISABLED) ?
			KTT_DISABLED : KTT_ENABLED);
	}
}

static void ktt_batch_unregister(struct ktt_writer *w, bool is_ret)
{
	struct ktt_slot *s[KTT_BATCH];
	struct kretprobe *rps[KTT_BATCH];
	struct kprobe *kps[KTT_BATCH];
	int i, n;

	n = ktt_pick(w, is_ret, true, s);
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		ktt_begin(s[i]);
		kps[i] = &s[i]->rp.kp;
		rps[i] = &s[i]->rp;
	}
	if (is_ret)
		unregister_kretprobes(rps, n);
	else
		unregister_kprobes(kps, n);
	atomic_long_inc(&ktt.unregistered_batch);
	for (i = 0; i < n; i++) {
		atomic_long_inc(&ktt.unregistered);
		ktt_end(s[i], KTT_UNUSED);
	}
}

static void ktt_single_op(struct ktt_writer *w)
{
	struct ktt_slot *s;
	int tries = 8;

	do {
		s = &ktt_slots[ktt_rand(w, ktt_nr_slots)];
	} while (ktt_owner(s) != w->id && --tries);
	if (ktt_owner(s) != w->id)
		return;

	switch (s->state) {
	case KTT_UNUSED:
		ktt_register(w, s);
		break;
	case KTT_ENABLED:
		switch (ktt_rand(w, 5)) {
		case 0:
		case 1:
			ktt_set_enabled(s, false);
			break;
		case 2:
		case 3:
			ktt_unregister(s);
			break;
		default:
			break;	/* keep it: let it be optimized */
		}
		break;
	case KTT_DISABLED:
		if (ktt_rand(w, 2))
			ktt_set_enabled(s, true);
		else
			ktt_unregister(s);
		break;
	}
}

static void ktt_ipis(void)
{
	on_each_cpu(ktt_ipi_fn, NULL, 1);
	atomic_long_inc(&ktt.ipis);
}

static void ktt_wait_optimizer(void)
{
	wait_for_kprobe_optimizer();
	atomic_long_inc(&ktt.optimizer_waits);
}

static int ktt_writer_fn(void *arg)
{
	struct ktt_writer *w = arg;
	u32 op;

	while (!atomic_read(&ktt_stop)) {
		op = ktt_rand(w, 100);
		if (op < 6)
			ktt_batch_register(w, false);
		else if (op < 12)
			ktt_batch_unregister(w, false);
		else if (op < 14)
			ktt_batch_register(w, true);
		else if (op < 16)
			ktt_batch_unregister(w, true);
		else if (op < 18)
			ktt_wait_optimizer();
		else if (op < 21)
			ktt_ipis();
		else
			ktt_single_op(w);
		/* Mostly short pauses; now and then long enough to optimize */
		if (!ktt_rand(w, 20))
			msleep(50 + ktt_rand(w, 250));
		else
			usleep_range(100, 2000);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Setup and the final books                                               */
/* ---------------------------------------------------------------------- */

/*
 * The size of the function at @fn, from its "%pS": "name+off/size", and
 * " [module]" after it for a function of a module, as ours are.
 */
static unsigned long ktt_fn_size(void *fn)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long size;
	char *slash, *end;

	snprintf(buf, sizeof(buf), "%pS", fn);
	slash = strrchr(buf, '/');
	if (!slash)
		return 0;
	end = strchr(slash, ' ');
	if (end)
		*end = '\0';
	if (kstrtoul(slash + 1, 16, &size))
		return 0;
	return size;
}

/*
 * Every address in our hot functions that takes a kprobe and runs once per
 * call: register a probe on each byte, call each function once, keep the
 * probes that were accepted and hit once (not those in the padding).
 */
static struct {
	struct kprobe kp;
	int fn;
	int hits;
} ktt_find[KTT_MAX_POINTS];

static int ktt_find_pre(struct kprobe *p, struct pt_regs *regs)
{
	container_of(p, typeof(ktt_find[0]), kp)->hits++;
	return 0;
}

static int ktt_find_points(void)
{
	struct kprobe *kps[KTT_MAX_POINTS];
	unsigned long off, size, flags;
	int fn, i, n = 0;

	for (fn = 0; fn < KTT_NR_FNS; fn++) {
		size = ktt_fn_size(ktt_fns[fn]);
		for (off = 0; off < size && n < KTT_MAX_POINTS; off++) {
			struct kprobe *kp = &ktt_find[n].kp;

			kp->addr = (kprobe_opcode_t *)((unsigned long)ktt_fns[fn] + off);
			kp->pre_handler = ktt_find_pre;
			if (register_kprobe(kp)) {
				memset(kp, 0, sizeof(*kp));
				continue;
			}
			ktt_find[n].fn = fn;
			kps[n++] = kp;
		}
	}
	for (fn = 0; fn < KTT_NR_FNS; fn++) {
		for (i = 0; i < n; i++)
			ktt_find[i].hits = 0;
		local_irq_save(flags);
		ktt_call(fn, fn, 1);
		local_irq_restore(flags);
		for (i = 0; i < n; i++) {
			/* Past ENDBR on x86: two probes on one address */
			if (ktt_find[i].fn != fn || ktt_find[i].hits != 1 ||
			    (i && kps[i]->addr == kps[i - 1]->addr))
				continue;
			if (ktt_nr_points < KTT_MAX_POINTS) {
				ktt_points[ktt_nr_points].addr = kps[i]->addr;
				ktt_points[ktt_nr_points].fn = fn;
				ktt_nr_points++;
			}
		}
	}
	if (n)
		unregister_kprobes(kps, n);
	return ktt_nr_points ? 0 : -ENODEV;
}

/* Are all instances of the kretprobe of @s back on its free lists? */
static void ktt_check_pool(struct ktt_slot *s)
{
	struct kretprobe_pool *pool = s->rp.pool;
	struct llist_node *node;
	int cpu, n = 0, total;

	if (!pool)
		return;
	mutex_lock(&pool->grow_lock);
	for_each_possible_cpu(cpu) {
		for (node = READ_ONCE(per_cpu_ptr(pool->free, cpu)->first); node;
		     node = READ_ONCE(node->next))
			n++;
	}
	total = pool->nr_instances;
	mutex_unlock(&pool->grow_lock);
	atomic_long_inc(&ktt.pools_checked);
	if (n != total)
		ktt_failure(&ktt.pools_not_full, "pool not full", s, total - n);
}

/* After the run: no handler runs for anything unregistered. */
static void ktt_final_calls(void)
{
	int i, fn;

	for (i = 0; i < 4 * ktt_nr_slots; i++)
		ktt_checked_call(get_random_u32(), &ktt.checked_task);
	for (fn = 0; fn < KTT_NR_FNS; fn++)
		ktt_call(fn, fn, 2 * fn);
}

#define KTT_REPORT(name)	atomic_long_read(&ktt.name)

static bool ktt_report(void)
{
	bool pass;

	pr_info("writers: %ld registered (%ld batches), %ld unregistered (%ld batches), %ld enabled, %ld disabled, %ld optimizer waits, %ld IPI rounds\n",
		KTT_REPORT(registered), KTT_REPORT(registered_batch),
		KTT_REPORT(unregistered), KTT_REPORT(unregistered_batch),
		KTT_REPORT(enabled), KTT_REPORT(disabled),
		KTT_REPORT(optimizer_waits), KTT_REPORT(ipis));
	pr_info("target module: %ld registered, %ld refused (not loaded), %ld hits\n",
		KTT_REPORT(target_registered), KTT_REPORT(target_absent),
		KTT_REPORT(target_hits));
	pr_info("checked calls: %ld task, %ld hrtimer, %ld IPI (%ld armed, %ld unarmed); %ld unchecked calls\n",
		KTT_REPORT(checked_task), KTT_REPORT(checked_irq),
		KTT_REPORT(checked_ipi), KTT_REPORT(checked_armed),
		KTT_REPORT(checked_unarmed), KTT_REPORT(unchecked));
	pr_info("counted misses: %ld nested, %ld without a free instance; %ld pools checked\n",
		KTT_REPORT(missed), KTT_REPORT(no_instance),
		KTT_REPORT(pools_checked));
	pr_info("failures: %ld lost hits, %ld stray hits, %ld late handlers, %ld wrong results, %ld bad return values, %ld unexpected errors, %ld pools not full\n",
		KTT_REPORT(lost), KTT_REPORT(stray), KTT_REPORT(late),
		KTT_REPORT(wrong_results), KTT_REPORT(bad_ret_values),
		KTT_REPORT(unexpected_errors), KTT_REPORT(pools_not_full));
	pass = !KTT_REPORT(lost) && !KTT_REPORT(stray) && !KTT_REPORT(late) &&
	       !KTT_REPORT(wrong_results) && !KTT_REPORT(bad_ret_values) &&
	       !KTT_REPORT(unexpected_errors) && !KTT_REPORT(pools_not_full) &&
	       KTT_REPORT(registered) > 0 && KTT_REPORT(checked_armed) > 0 &&
	       KTT_REPORT(checked_unarmed) > 0;
	if (!KTT_REPORT(registered) || !KTT_REPORT(checked_armed) ||
	    !KTT_REPORT(checked_unarmed))
		pr_err("too little happened to judge\n");
	return pass;
}

static int __init ktt_init(void)
{
	struct ktt_writer *wr;
	struct ktt_reader *rd;
	int i, cpu, ret;
	bool pass;

	nprobes = clamp(nprobes, 1, KTT_MAX_KPROBES);
	nretprobes = clamp(nretprobes, 0, KTT_MAX_KRETPROBES);
	writers = clamp(writers, 1, KTT_MAX_WRITERS);
	duration = max(duration, 1);

	ret = ktt_find_points();
	if (ret) {
		pr_err("no probeable point in the hot functions\n");
		pr_info("FAIL\n");
		return ret;
	}

	/* kprobes, kretprobes, and one of each on the target module */
	ktt_nr_slots = nprobes + nretprobes + 2;
	ktt_slots = kcalloc(ktt_nr_slots, sizeof(*ktt_slots), GFP_KERNEL);
	wr = kcalloc(writers, sizeof(*wr), GFP_KERNEL);
	rd = kcalloc(nr_cpu_ids, sizeof(*rd), GFP_KERNEL);
	if (!ktt_slots || !wr || !rd) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < ktt_nr_slots; i++) {
		struct ktt_slot *s = &ktt_slots[i];

		s->is_ret = i >= nprobes && i != ktt_nr_slots - 2;
		s->on_target = i >= ktt_nr_slots - 2;
		s->counts = alloc_percpu(struct ktt_counts);
		if (!s->counts) {
			ret = -ENOMEM;
			goto out_free;
		}
	}

	pr_info("%d s, %u CPUs, %d writers, %d kprobes and %d kretprobes on %d points in %zu functions, hrtimer every %d us\n",
		duration, num_online_cpus(), writers, nprobes, nretprobes,
		ktt_nr_points, KTT_NR_FNS, irq_period_us);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		prandom_seed_state(&rd[cpu].rnd, get_random_u64());
		rd[cpu].task = kthread_create_on_cpu(ktt_reader_fn, &rd[cpu],
						     cpu, "ktt_reader/%u");
		if (IS_ERR(rd[cpu].task))
			rd[cpu].task = NULL;
		else
			wake_up_process(rd[cpu].task);
	}
	if (irq_period_us > 0)
		on_each_cpu(ktt_timer_start, NULL, 1);
	cpus_read_unlock();
	for (i = 0; i < writers; i++) {
		wr[i].id = i;
		prandom_seed_state(&wr[i].rnd, get_random_u64());
		wr[i].task = kthread_run(ktt_writer_fn, &wr[i], "ktt_writer/%d", i);
		if (IS_ERR(wr[i].task))
			wr[i].task = NULL;
	}

	msleep_interruptible(duration * 1000);
	atomic_set(&ktt_stop, 1);

	for (i = 0; i < writers; i++) {
		if (wr[i].task)
			kthread_stop(wr[i].task);
	}
	for_each_possible_cpu(cpu) {
		if (cpumask_test_cpu(cpu, &ktt_timers_on))
			hrtimer_cancel(per_cpu_ptr(&ktt_timer, cpu));
		if (rd[cpu].task)
			kthread_stop(rd[cpu].task);
	}

	/* Quiet now: the pools of our functions' kretprobes are full. */
	for (i = 0; i < ktt_nr_slots; i++) {
		if (ktt_slots[i].is_ret && !ktt_slots[i].on_target &&
		    ktt_slots[i].state != KTT_UNUSED)
			ktt_check_pool(&ktt_slots[i]);
	}
	for (i = 0; i < ktt_nr_slots; i++) {
		if (ktt_slots[i].state != KTT_UNUSED)
			ktt_unregister(&ktt_slots[i]);
	}
	ktt_final_calls();

	pass = ktt_report();
	pr_info("%s\n", pass ? "PASS" : "FAIL");
	ret = 0;
out_free:
	for (i = 0; ktt_slots && i < ktt_nr_slots; i++)
		free_percpu(ktt_slots[i].counts);
	kfree(ktt_slots);
	ktt_slots = NULL;
	kfree(wr);
	kfree(rd);
	return ret;
}

static void __exit ktt_exit(void)
{
}

module_init(ktt_init);
module_exit(ktt_exit);
MODULE_DESCRIPTION("kprobes torture test");
MODULE_LICENSE("GPL");
