// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes: registration, probe points and hit dispatch.
 *
 * A struct kprobe_point owns one probed address: the breakpoint written over
 * the first byte of the instruction, the arch's replay of that instruction,
 * and the list of every struct kprobe registered there.  A point with one
 * kprobe and a point with ten work the same way, so adding or removing a
 * kprobe never changes what the other kprobes on that address see.
 *
 * Locking and ordering
 * --------------------
 *
 * kprobe_mutex serializes every change: registration, removal, enable and
 * disable, the global arm switch, and module and init-text removal.  Lock
 * order: kprobe_mutex -> jump_label_lock -> text_mutex, and kprobe_mutex ->
 * kprobe_blacklist_lock / the slot cache mutex.
 *
 * The hit path takes no lock.  It runs in the breakpoint exception with
 * preemption and interrupts disabled, which makes it an RCU read-side
 * critical section, and it finds the point in kprobe_table with an RCU
 * hlist walk and its kprobes with an RCU list walk.
 *
 * Publication: a new point is hashed, and its first kprobe linked, before
 * its breakpoint is written; text_poke_sync() then serializes every CPU, so
 * a CPU that executes the breakpoint finds the point.
 *
 * Retirement, in unregister_kprobes():
 *   1. unlink the kprobe from its point (list_del_rcu);
 *   2. if the point is now empty, restore the original byte and
 *      text_poke_sync(), then unhash the point (hlist_del_rcu);
 *   3. synchronize_rcu(): every hit that could still see the kprobe or the
 *      point has finished its handlers, and no CPU is still executing the
 *      point's out-of-line slot (that runs with interrupts disabled);
 *   4. after an RCU-tasks grace period (no task is left inside a boosted
 *      copy of the instruction, see kprobe_point_destroy()), free the
 *      slot and the point.
 * A CPU that trapped on the breakpoint just before step 2 and looks the
 * point up just after it finds nothing; it sees that the byte under it is
 * no longer a breakpoint and simply re-executes the original instruction.
 *
 * Per-CPU state (current_kprobe, kprobe_ctlblk) is only touched by its own
 * CPU with preemption disabled.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

#define KPROBE_HASH_BITS	6
#define KPROBE_TABLE_SIZE	BIT(KPROBE_HASH_BITS)

/* Serializes all changes of probe state; see "Locking and ordering" */
DEFINE_MUTEX(kprobe_mutex);
LIST_HEAD(kprobe_points);
bool kprobes_all_disarmed;

/* Hashed, live probe points (kprobe_mutex for writers; RCU for the hit path) */
static struct hlist_head kprobe_table[KPROBE_TABLE_SIZE];

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/*
 * What current_kprobe points at while this CPU is inside kprobes without
 * running a particular kprobe's handler: replaying an instruction, or in a
 * kprobe_busy_begin() section.
 */
struct kprobe kprobe_busy = {
	.addr = (kprobe_opcode_t *)&kprobe_busy_begin,
};

static bool kprobes_initialized;

static struct hlist_head *kprobe_bucket(const void *addr)
{
	return &kprobe_table[hash_ptr(addr, KPROBE_HASH_BITS)];
}

/* ---------------------------------------------------------------------- */
/* The hit path: called by the arch backend from its breakpoint handler.   */
/* ---------------------------------------------------------------------- */

/**
 * kprobe_point_lookup() - find the live probe point on @addr
 * @addr: a probed address
 *
 * Context: preemption disabled (hit path) or kprobe_mutex held.
 * Return: the point, or NULL.
 */
struct kprobe_point *kprobe_point_lookup(kprobe_opcode_t *addr)
{
	struct kprobe_point *kpp;

	hlist_for_each_entry_rcu(kpp, kprobe_bucket(addr), hlist,
				 lockdep_is_held(&kprobe_mutex)) {
		if (kpp->addr == addr)
			return kpp;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kprobe_point_lookup);

/**
 * kprobe_run_pre_handlers() - run the pre_handlers of a point's kprobes
 * @kpp: the point that was hit
 * @regs: the probed context
 * @need_post: set to whether an enabled kprobe of @kpp has a post_handler,
 *	so the replay must end with a trap (when no handler redirected)
 *
 * Leaves current_kprobe on &kprobe_busy unless a handler redirected.
 *
 * Context: breakpoint exception, preemption disabled.
 * Return: true if a pre_handler changed the instruction pointer and asked
 * not to replay the instruction; the remaining kprobes are then skipped.
 */
bool kprobe_run_pre_handlers(struct kprobe_point *kpp, struct pt_regs *regs,
			     bool *need_post)
{
	struct kprobe *p;

	*need_post = false;
	list_for_each_entry_rcu(p, &kpp->probes, list) {
		if (kprobe_disabled(p))
			continue;
		*need_post |= !!p->post_handler;
		if (!p->pre_handler)
			continue;
		__this_cpu_write(current_kprobe, p);
		if (p->pre_handler(p, regs))
			return true;
	}
	__this_cpu_write(current_kprobe, &kprobe_busy);
	return false;
}

NOKPROBE_SYMBOL(kprobe_run_pre_handlers);

static void kprobe_run_post_handlers(struct kprobe_point *kpp,
				     struct pt_regs *regs)
{
	struct kprobe *p;

	list_for_each_entry_rcu(p, &kpp->probes, list) {
		if (kprobe_disabled(p) || !p->post_handler)
			continue;
		__this_cpu_write(current_kprobe, p);
		p->post_handler(p, regs, 0);
	}
}

NOKPROBE_SYMBOL(kprobe_run_post_handlers);

/* Account a hit whose handlers could not run because it nested. */
static void kprobe_point_missed(struct kprobe_point *kpp)
{
	unsigned long old;
	struct kprobe *p;

	/* Several CPUs may miss the same probe at once: count them all. */
	list_for_each_entry_rcu(p, &kpp->probes, list) {
		if (kprobe_disabled(p))
			continue;
		old = READ_ONCE(p->nmissed);
		while (!try_cmpxchg(&p->nmissed, &old, old + 1))
			;
	}
}

NOKPROBE_SYMBOL(kprobe_point_missed);

/**
 * kprobe_enter_nested() - a probe was hit while this CPU is inside one
 * @kpp: the point hit
 * @kcb: this CPU's control block
 *
 * Parks the outer hit and counts a miss on @kpp's kprobes; the caller then
 * replays @kpp's instruction, with no handlers, and ends with
 * kprobe_replay_done() or kprobe_hit_end(), which resume the outer hit.
 *
 * Context: breakpoint exception, preemption disabled.
 * Return: false if a nested hit is already parked (nesting is one deep:
 * only an NMI can hit a probe while this CPU is inside one).
 */
bool kprobe_enter_nested(struct kprobe_point *kpp, struct kprobe_ctlblk *kcb)
{
	if (kcb->status == KPROBE_REENTER)
		return false;
	kcb->prev.kp = kprobe_running();
	kcb->prev.status = kcb->status;
	kcb->prev.point = kcb->point;
	kcb->prev.step = kcb->step;
	kcb->status = KPROBE_REENTER;
	kcb->point = NULL;
	__this_cpu_write(current_kprobe, &kprobe_busy);
	kprobe_point_missed(kpp);
	return true;
}

NOKPROBE_SYMBOL(kprobe_enter_nested);

/**
 * kprobe_hit_end() - end a hit, or a nested hit, with no post_handlers
 * @kcb: this CPU's control block
 *
 * For a boosted replay (which leaves kprobes at once) and for a fault in
 * the stepped copy.  A nested hit gives the CPU back to the outer one.
 *
 * Context: breakpoint exception or fault, preemption disabled.
 */
void kprobe_hit_end(struct kprobe_ctlblk *kcb)
{
	kcb->point = NULL;
	if (kcb->status != KPROBE_REENTER) {
		reset_current_kprobe();
		return;
	}
	__this_cpu_write(current_kprobe, kcb->prev.kp);
	kcb->status = kcb->prev.status;
	kcb->point = kcb->prev.point;
	kcb->step = kcb->prev.step;
}

NOKPROBE_SYMBOL(kprobe_hit_end);

/**
 * kprobe_replay_done() - the probed instruction has been replayed
 * @kpp: the point
 * @regs: the context after the instruction
 * @kcb: this CPU's control block
 *
 * Runs the post_handlers (not for a nested hit) and ends the hit.
 *
 * Context: breakpoint exception, preemption disabled.
 */
void kprobe_replay_done(struct kprobe_point *kpp, struct pt_regs *regs,
			struct kprobe_ctlblk *kcb)
{
	if (kcb->status != KPROBE_REENTER) {
		kcb->status = KPROBE_HIT_SSDONE;
		kprobe_run_post_handlers(kpp, regs);
	}
	kprobe_hit_end(kcb);
}

NOKPROBE_SYMBOL(kprobe_replay_done);

/**
 * kprobe_busy_begin() - make probe hits on this CPU count as missed
 *
 * For code outside kprobes that runs probe-like callbacks and must not be
 * re-entered by a kprobe.  Pair with kprobe_busy_end().
 *
 * Context: any; disables preemption until kprobe_busy_end().
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	__this_cpu_write(current_kprobe, &kprobe_busy);
	get_kprobe_ctlblk()->status = KPROBE_HIT_ACTIVE;
}

NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end a kprobe_busy_begin() section
 *
 * Context: the context of the matching kprobe_busy_begin().
 */
void kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}

NOKPROBE_SYMBOL(kprobe_busy_end);

/* ---------------------------------------------------------------------- */
/* Arming: every change of a point's breakpoint goes through these two.    */
/* ---------------------------------------------------------------------- */

static bool kprobe_point_wants_armed(struct kprobe_point *kpp)
{
	struct kprobe *p;

	lockdep_assert_held(&kprobe_mutex);
	if (kpp->gone || kprobes_all_disarmed)
		return false;
	list_for_each_entry(p, &kpp->probes, list) {
		if (!kprobe_disabled(p))
			return true;
	}
	return false;
}

/* Bring the breakpoint of @kpp in line with its kprobes and the switch. */
static void kprobe_point_update_locked(struct kprobe_point *kpp)
{
	bool want = kprobe_point_wants_armed(kpp);

	if (want == kpp->armed)
		return;
	if (want)
		arch_arm_kprobe_point(kpp);
	else
		arch_disarm_kprobe_point(kpp);
	kpp->armed = want;
}

/**
 * kprobes_set_armed() - the global switch behind debugfs kprobes/enabled
 * @armed: false to lift every breakpoint, true to put back those of
 *	enabled kprobes
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int kprobes_set_armed(bool armed)
{
	struct kprobe_point *kpp;

	mutex_lock(&kprobe_mutex);
	if (kprobes_all_disarmed != !armed) {
		kprobes_all_disarmed = !armed;
		list_for_each_entry(kpp, &kprobe_points, node)
			kprobe_point_update_locked(kpp);
		pr_info("kprobes globally %s\n", armed ? "armed" : "disarmed");
	}
	mutex_unlock(&kprobe_mutex);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Where a kprobe may go.                                                  */
/* ---------------------------------------------------------------------- */

/**
 * kprobe_lookup_name() - resolve a symbol for a probe
 * @name: a symbol, optionally "module:symbol"
 * @offset: unused; kept for the callers of the 6.1 interface
 *
 * Context: process context.
 * Return: the symbol's address, or NULL.
 */
kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

/* Turn what the caller gave (addr or symbol_name, plus offset) into an address. */
static int kprobe_resolve_addr(kprobe_opcode_t *addr, const char *symbol_name,
			       unsigned long offset, kprobe_opcode_t **out,
			       bool *on_func_entry)
{
	unsigned long sym_offset, func;

	if (!!addr == !!symbol_name)
		return -EINVAL;
	if (symbol_name) {
		addr = kprobe_lookup_name(symbol_name, 0);
		if (!addr)
			return -ENOENT;
	}
	addr = (kprobe_opcode_t *)((unsigned long)addr + offset);
	/* An address no symbol covers is not text we could decode. */
	if (!kallsyms_lookup_size_offset((unsigned long)addr, NULL, &sym_offset))
		return symbol_name ? -ENOENT : -EINVAL;
	func = (unsigned long)addr - sym_offset;
	*out = arch_adjust_kprobe_addr((unsigned long)addr, sym_offset);
	/* Where the arch moves the entry to (past ENDBR) is the entry too. */
	*on_func_entry = *out == arch_adjust_kprobe_addr(func, 0);
	return 0;
}

/**
 * kprobe_on_func_entry() - is the probe position a function entry?
 * @addr: an address, or NULL with @sym
 * @sym: a symbol, or NULL with @addr
 * @offset: offset from @addr or @sym
 *
 * The tracers rely on the errno: kprobe_events takes 0 as leave to fetch
 * $argN, and defers -ENOENT (a module not loaded yet) to registration.
 *
 * Context: process context.
 * Return: 0 if the position resolves to the entry of a function, -EINVAL if
 * it is elsewhere or the request is malformed, -ENOENT if the symbol is
 * unknown.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	bool on_func_entry = false;
	int ret;

	ret = kprobe_resolve_addr(addr, sym, offset, &addr, &on_func_entry);
	if (ret)
		return ret;
	return on_func_entry ? 0 : -EINVAL;
}

/* Text that other subsystems patch, or that is a BUG()/WARN() site. */
static bool kprobe_text_reserved(kprobe_opcode_t *addr)
{
	bool reserved;

	jump_label_lock();
	reserved = jump_label_text_reserved(addr, addr);
	jump_label_unlock();
	return reserved || static_call_text_reserved(addr, addr) ||
	       ftrace_text_reserved(addr, addr) ||
	       find_bug((unsigned long)addr) ||
	       arch_kprobe_text_reserved(addr);
}

/*
 * Check that @addr may be probed, and pin the module it is in, if any, so
 * that it cannot go away before the probe is armed.
 */
static int kprobe_check_addr(kprobe_opcode_t *addr, struct module **modp)
{
	unsigned long a = (unsigned long)addr;
	struct module *mod = NULL;
	int ret = 0;

	*modp = NULL;
	if (within_kprobe_blacklist(a))
		return -EINVAL;
	if (kprobe_text_reserved(addr))
		return -EBUSY;

	preempt_disable();
	if (!core_kernel_text(a)) {
		mod = __module_text_address(a);
		if (!mod) {
			ret = -EINVAL;
		} else if (!try_module_get(mod)) {
			ret = -ENOENT;
		} else if (within_module_init(a, mod) &&
			   mod->state != MODULE_STATE_COMING) {
			/* The init text is about to be, or has been, freed. */
			module_put(mod);
			ret = -ENOENT;
		}
	}
	preempt_enable();
	if (!ret)
		*modp = mod;
	return ret;
}

/* Is @p registered?  Scans every point: registration is not a fast path. */
bool kprobe_is_registered_locked(struct kprobe *p)
{
	struct kprobe_point *kpp;
	struct kprobe *q;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(kpp, &kprobe_points, node) {
		list_for_each_entry(q, &kpp->probes, list) {
			if (q == p)
				return true;
		}
	}
	return false;
}

static struct kprobe_point *kprobe_point_create(kprobe_opcode_t *addr)
{
	struct kprobe_point *kpp;
	int ret;

	kpp = kzalloc(sizeof(*kpp), GFP_KERNEL);
	if (!kpp)
		return ERR_PTR(-ENOMEM);
	kpp->addr = addr;
	INIT_LIST_HEAD(&kpp->probes);
	ret = arch_prepare_kprobe_point(kpp);
	if (ret) {
		kfree(kpp);
		return ERR_PTR(ret);
	}
	return kpp;
}

static void kprobe_point_free_work(struct work_struct *work)
{
	struct kprobe_point *kpp = container_of(work, struct kprobe_point,
						free_work);

	arch_remove_kprobe_point(kpp);
	kfree(kpp);
}

static void kprobe_point_free_rcu(struct rcu_head *head)
{
	struct kprobe_point *kpp = container_of(head, struct kprobe_point, rcu);

	/* Freeing a slot may sleep: leave softirq context. */
	INIT_WORK(&kpp->free_work, kprobe_point_free_work);
	schedule_work(&kpp->free_work);
}

/*
 * Step 4 of "Retirement": a task interrupted or preempted inside a boosted
 * copy (which ends with a jmp, not a trap) may still be there after
 * synchronize_rcu(); it has left once it has been through a voluntary
 * context switch, which is what an RCU-tasks grace period waits for.
 */
static void kprobe_point_destroy(struct kprobe_point *kpp)
{
	call_rcu_tasks(&kpp->rcu, kprobe_point_free_rcu);
}

static int __register_kprobe(struct kprobe *p)
{
	struct kprobe_point *kpp;
	bool on_func_entry = false;
	kprobe_opcode_t *addr;
	struct module *mod;
	int ret;

	ret = kprobe_resolve_addr(p->addr, p->symbol_name, p->offset, &addr,
				  &on_func_entry);
	if (ret)
		return ret;

	mutex_lock(&kprobe_mutex);
	if (kprobe_is_registered_locked(p)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = kprobe_check_addr(addr, &mod);
	if (ret)
		goto out_unlock;

	kpp = kprobe_point_lookup(addr);
	if (!kpp) {
		kpp = kprobe_point_create(addr);
		if (IS_ERR(kpp)) {
			ret = PTR_ERR(kpp);
			goto out_put;
		}
		hlist_add_head_rcu(&kpp->hlist, kprobe_bucket(addr));
		list_add_tail(&kpp->node, &kprobe_points);
	}

	/* Only KPROBE_FLAG_DISABLED is the caller's to choose. */
	p->flags &= KPROBE_FLAG_DISABLED;
	if (on_func_entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	p->addr = addr;
	p->nmissed = 0;
	p->point = kpp;
	list_add_tail_rcu(&p->list, &kpp->probes);
	kprobe_point_update_locked(kpp);
out_put:
	module_put(mod);
out_unlock:
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * register_kprobe() - install a probe
 * @p: the probe; exactly one of @p->addr and @p->symbol_name must be set
 *
 * The probe is armed at once unless @p->flags has KPROBE_FLAG_DISABLED.
 *
 * Context: process context, may sleep.
 * Return: 0 on success; -EINVAL for a bad request (both or neither of addr
 * and symbol_name, an already registered @p, a blacklisted, non-text or
 * unprobeable instruction), -ENOENT for an unknown symbol or a going
 * module, -EILSEQ for an address inside an instruction, -EBUSY for text
 * owned by another patching mechanism, -ENOMEM.
 */
int register_kprobe(struct kprobe *p)
{
	if (!p || !kprobes_initialized)
		return -EINVAL;
	return __register_kprobe(p);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/*
 * Unlink @p from its point.  If the point is left empty, lift its breakpoint,
 * unhash it and move it to @to_free, to be destroyed after a grace period.
 */
static void __unregister_kprobe_locked(struct kprobe *p,
				       struct list_head *to_free)
{
	struct kprobe_point *kpp = p->point;

	lockdep_assert_held(&kprobe_mutex);
	list_del_rcu(&p->list);
	if (!list_empty(&kpp->probes)) {
		kprobe_point_update_locked(kpp);
		return;
	}
	kprobe_point_update_locked(kpp);
	if (!kpp->gone)
		hlist_del_rcu(&kpp->hlist);
	list_move(&kpp->node, to_free);
}

/**
 * unregister_kprobes() - remove several probes, with one grace period
 * @kps: the probes
 * @num: how many
 *
 * Probes in @kps that are not registered are skipped.  When this returns,
 * no handler of any of them is running or will run.
 *
 * Context: process context, may sleep.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_point *kpp, *tmp;
	LIST_HEAD(to_free);
	int i;

	if (!kps || num <= 0)
		return;
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		if (kps[i] && kprobe_is_registered_locked(kps[i]))
			__unregister_kprobe_locked(kps[i], &to_free);
		else if (kps[i])
			kps[i]->point = NULL;
	}
	mutex_unlock(&kprobe_mutex);

	/* Pairs with the RCU walks of the hit path; see "Retirement". */
	synchronize_rcu();

	for (i = 0; i < num; i++) {
		if (kps[i] && kps[i]->point) {
			INIT_LIST_HEAD(&kps[i]->list);
			kps[i]->point = NULL;
		}
	}
	list_for_each_entry_safe(kpp, tmp, &to_free, node)
		kprobe_point_destroy(kpp);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * unregister_kprobe() - remove a probe
 * @p: the probe; ignored if it is not registered
 *
 * Context: process context, may sleep.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/**
 * register_kprobes() - install several probes, all or none
 * @kps: the probes
 * @num: how many
 *
 * Context: process context, may sleep.
 * Return: 0, or the error of the first probe that failed; the probes
 * registered before it are unregistered again.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	int i, ret = 0;

	if (!kps || num <= 0)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		ret = register_kprobe(kps[i]);
		if (ret) {
			if (i > 0)
				unregister_kprobes(kps, i);
			break;
		}
	}
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobes);

static int kprobe_set_disabled(struct kprobe *p, bool disabled)
{
	int ret = 0;

	if (!p)
		return -EINVAL;
	mutex_lock(&kprobe_mutex);
	if (!kprobe_is_registered_locked(p)) {
		ret = -EINVAL;
	} else if (!disabled && kprobe_gone(p)) {
		ret = -EINVAL;
	} else {
		if (disabled)
			WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_DISABLED);
		else
			WRITE_ONCE(p->flags, p->flags & ~KPROBE_FLAG_DISABLED);
		kprobe_point_update_locked(p->point);
	}
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * disable_kprobe() - stop a registered probe from firing
 * @kp: the probe
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL if @kp is not registered.
 */
int disable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, true);
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * enable_kprobe() - let a disabled probe fire again
 * @kp: the probe
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL if @kp is not registered or its text is gone.
 */
int enable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, false);
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/**
 * get_kprobe() - the first kprobe registered on an address
 * @addr: a probed address
 *
 * Context: preemption disabled or kprobe_mutex held; the result is only
 * valid inside that section.
 * Return: the kprobe, or NULL.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe_point *kpp = kprobe_point_lookup(addr);

	return kpp ? list_first_or_null_rcu(&kpp->probes, struct kprobe, list) :
		     NULL;
}

NOKPROBE_SYMBOL(get_kprobe);

/* ---------------------------------------------------------------------- */
/* Text that goes away: module unload, module and kernel init text.        */
/* ---------------------------------------------------------------------- */

/* The text under @kpp is about to be freed: never touch it again. */
static void kprobe_point_kill_locked(struct kprobe_point *kpp)
{
	struct kprobe *p;

	lockdep_assert_held(&kprobe_mutex);
	if (kpp->gone)
		return;
	kpp->gone = true;
	kpp->armed = false;
	hlist_del_rcu(&kpp->hlist);
	list_for_each_entry(p, &kpp->probes, list)
		WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_GONE);
}

static void kprobes_kill_range(bool (*match)(unsigned long addr, void *arg),
			       void *arg)
{
	struct kprobe_point *kpp;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(kpp, &kprobe_points, node) {
		if (match((unsigned long)kpp->addr, arg))
			kprobe_point_kill_locked(kpp);
	}
	mutex_unlock(&kprobe_mutex);
}

static bool kprobe_in_module(unsigned long addr, void *mod)
{
	return within_module(addr, mod);
}

static bool kprobe_in_module_init(unsigned long addr, void *mod)
{
	return within_module_init(addr, mod);
}

static int kprobes_module_notify(struct notifier_block *nb,
				 unsigned long val, void *data)
{
	struct module *mod = data;

	switch (val) {
	case MODULE_STATE_COMING:
		kprobe_blacklist_add_module(mod);
		break;
	case MODULE_STATE_LIVE:
		/* do_init_module() frees the init text right after this. */
		kprobes_kill_range(kprobe_in_module_init, mod);
		break;
	case MODULE_STATE_GOING:
		kprobes_kill_range(kprobe_in_module, mod);
		kprobe_blacklist_remove_module(mod);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kprobes_module_nb = {
	.notifier_call = kprobes_module_notify,
	.priority = 0,
};

static bool kprobe_in_kernel_init(unsigned long addr, void *unused)
{
	return is_kernel_inittext(addr);
}

/**
 * kprobe_free_init_mem() - mark probes on kernel init text as gone
 *
 * Called by the init code just before it frees the init sections.
 *
 * Context: process context, may sleep.
 */
void kprobe_free_init_mem(void)
{
	kprobes_kill_range(kprobe_in_kernel_init, NULL);
}

static int __init init_kprobes(void)
{
	int i, ret;

	for (i = 0; i < KPROBE_TABLE_SIZE; i++)
		INIT_HLIST_HEAD(&kprobe_table[i]);

	ret = kprobe_blacklist_init();
	if (ret) {
		pr_err("cannot build the blacklist (%d): kprobes disabled\n", ret);
		return ret;
	}
	ret = arch_init_kprobes();
	if (ret) {
		pr_err("arch init failed (%d): kprobes disabled\n", ret);
		return ret;
	}
	ret = register_module_notifier(&kprobes_module_nb);
	if (ret)
		return ret;
	kprobes_initialized = true;
	return 0;
}

early_initcall(init_kprobes);
