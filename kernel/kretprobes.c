// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes (kretprobes): run a handler when a probed function returns.
 *
 * A kretprobe is a kprobe on the function's entry.  On a hit it takes an
 * instance from the kretprobe's pool, records the return address and where
 * it lives on the stack, and replaces it with the address of the arch's
 * return trampoline.  When the function returns, the trampoline calls
 * kretprobe_trampoline_handler(), which finds the instance, runs the
 * handler, gives back the instance and hands the real return address to
 * the trampoline, which returns there.  No trap on the way back.
 *
 * Instance pool
 * -------------
 *
 * All instances are allocated at registration.  Free instances sit on
 * per-CPU lock-free lists (llist):
 *
 *  - take: llist_del_first() on this CPU's list; if it is empty, steal a
 *    whole list from another CPU with llist_del_all() and keep the rest;
 *  - give back: llist_add() to the list of the CPU that is returning.
 *
 * llist_del_first() is safe against the concurrent llist_del_all() of a
 * thief only if no node can be put back on the same list while it runs.
 * Takes happen in an entry hit, which runs in the breakpoint exception with
 * interrupts off; an NMI on this CPU that hits an entry probe then finds
 * kprobe_running() set and only counts a miss.  So a list is only ever
 * pushed to by its own CPU, never in the middle of that CPU's take, and a
 * node taken by a thief cannot come back to the list before the take ends.
 * No cache line is shared by all CPUs on a hit.
 *
 * Lifetime: instances outlive unregister_kretprobe().  Unregistration
 * removes the entry probe, then detaches the pool from the kretprobe
 * (pool->rp = NULL) and waits for a grace period: from then on a returning
 * instance runs no handler and is counted in pool->refs instead of being
 * listed.  The free instances are collected; when the last outstanding one
 * comes back (or its task is freed), the pool is released.
 *
 * Per task: an instance in use is on its task's kretprobe_instances list,
 * newest first.  Only the task itself changes the list (an NMI that uses
 * kretprobes leaves it as it found it), or the task-freeing code once the
 * task is dead.  The trampoline handler runs in a kprobe_busy section, so
 * kprobes hit meanwhile on this CPU count as missed instead of nesting.
 */

#define pr_fmt(fmt) "kretprobes: " fmt

#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kprobes_internal.h"

/**
 * struct kretprobe_pool - the instances of one kretprobe
 * @rp: the kretprobe; NULL once it is unregistered (written under
 *	kprobe_mutex; read under RCU by the trampoline handler)
 * @free: per-CPU lists of free instances, see "Instance pool"
 * @instances: the memory of all instances (immutable)
 * @nr_instances: how many (immutable)
 * @refs: instances not yet back after unregistration
 * @release_irq_work: leaves the returning context (maybe NMI) to free
 * @release_work: frees the pool in process context
 */
struct kretprobe_pool {
	struct kretprobe *rp;
	struct llist_head __percpu *free;
	void *instances;
	int nr_instances;
	atomic_t refs;
	struct irq_work release_irq_work;
	struct work_struct release_work;
};

static void kretprobe_pool_free(struct kretprobe_pool *pool)
{
	free_percpu(pool->free);
	kvfree(pool->instances);
	kfree(pool);
}

static void kretprobe_pool_release_work(struct work_struct *work)
{
	kretprobe_pool_free(container_of(work, struct kretprobe_pool,
					 release_work));
}

static void kretprobe_pool_release_irq_work(struct irq_work *work)
{
	struct kretprobe_pool *pool = container_of(work, struct kretprobe_pool,
						   release_irq_work);

	schedule_work(&pool->release_work);
}

static struct kretprobe_pool *kretprobe_pool_create(struct kretprobe *rp,
						    int nr, size_t data_size)
{
	size_t size = ALIGN(sizeof(struct kretprobe_instance) + data_size,
			    sizeof(long));
	struct kretprobe_instance *ri;
	struct kretprobe_pool *pool;
	int i, cpu;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	pool->free = alloc_percpu(struct llist_head);
	pool->instances = kvcalloc(nr, size, GFP_KERNEL);
	if (!pool->free || !pool->instances) {
		kretprobe_pool_free(pool);
		return NULL;
	}
	pool->rp = rp;
	pool->nr_instances = nr;
	init_irq_work(&pool->release_irq_work, kretprobe_pool_release_irq_work);
	INIT_WORK(&pool->release_work, kretprobe_pool_release_work);

	/* Deal the instances out over the possible CPUs. */
	cpu = cpumask_first(cpu_possible_mask);
	for (i = 0; i < nr; i++) {
		ri = pool->instances + i * size;
		ri->pool = pool;
		llist_add(&ri->llist, per_cpu_ptr(pool->free, cpu));
		cpu = cpumask_next(cpu, cpu_possible_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_possible_mask);
	}
	return pool;
}

/* Take a free instance: this CPU's list first, then another CPU's. */
static struct kretprobe_instance *kretprobe_pool_get(struct kretprobe_pool *pool)
{
	struct llist_head *mine = this_cpu_ptr(pool->free);
	struct llist_node *node, *rest, *tail;
	int cpu;

	node = llist_del_first(mine);
	if (likely(node))
		goto found;
	for_each_possible_cpu(cpu) {
		if (cpu == smp_processor_id())
			continue;
		node = llist_del_all(per_cpu_ptr(pool->free, cpu));
		if (!node)
			continue;
		rest = node->next;
		if (rest) {
			for (tail = rest; tail->next; tail = tail->next)
				;
			llist_add_batch(rest, tail, mine);
		}
		goto found;
	}
	return NULL;
found:
	return container_of(node, struct kretprobe_instance, llist);
}

NOKPROBE_SYMBOL(kretprobe_pool_get);

/* Give an instance back, or account for it if its kretprobe is gone. */
static void kretprobe_pool_put(struct kretprobe_instance *ri)
{
	struct kretprobe_pool *pool = ri->pool;

	rcu_read_lock();
	if (likely(READ_ONCE(pool->rp))) {
		llist_add(&ri->llist, this_cpu_ptr(pool->free));
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	if (atomic_dec_and_test(&pool->refs))
		irq_work_queue(&pool->release_irq_work);
}

NOKPROBE_SYMBOL(kretprobe_pool_put);

/*
 * Unregistration, after the entry probe is gone: detach the pool, then
 * collect the free instances; the pool goes when the others are back.
 */
static void kretprobe_pool_detach(struct kretprobe_pool *pool)
{
	/* Every instance is counted once: collected here, or put back later. */
	atomic_set(&pool->refs, pool->nr_instances);
	WRITE_ONCE(pool->rp, NULL);
}

static void kretprobe_pool_collect(struct kretprobe_pool *pool)
{
	struct llist_node *node;
	int cpu, n = 0;

	for_each_possible_cpu(cpu) {
		node = llist_del_all(per_cpu_ptr(pool->free, cpu));
		for (; node; node = node->next)
			n++;
	}
	if (atomic_sub_and_test(n, &pool->refs))
		kretprobe_pool_free(pool);
}

/* The entry probe's pre_handler. */
static int kretprobe_entry_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri;

	ri = kretprobe_pool_get(rp->pool);
	if (unlikely(!ri)) {
		/* Several CPUs may find the pool empty at once: count them all. */
		int old = READ_ONCE(rp->nmissed);

		while (!try_cmpxchg(&rp->nmissed, &old, old + 1))
			;
		return 0;
	}
	arch_prepare_kretprobe(ri, regs);
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		kretprobe_pool_put(ri);
		return 0;
	}
	arch_kretprobe_divert(ri, regs);
	__llist_add(&ri->llist, &current->kretprobe_instances);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry_handler);

/* Is @p the entry probe of a kretprobe?  For the debugfs list. */
bool kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry_handler;
}

/**
 * get_kretprobe() - the kretprobe an instance belongs to
 * @ri: an instance, as passed to a handler
 *
 * Context: a kretprobe handler, or under rcu_read_lock().
 * Return: the kretprobe, or NULL once it has been unregistered.
 */
struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return READ_ONCE(ri->pool->rp);
}

NOKPROBE_SYMBOL(get_kretprobe);

/**
 * kretprobe_find_ret_addr() - the real return address of a trampoline frame
 * @tsk: the task whose stack is walked
 * @fp: where the trampoline's address sits on the stack
 * @cur: the instance found last; NULL to start from the newest
 *
 * For unwinders, which meet the trampoline's address where a return address
 * should be.  Walking outward, pass the same @cur again.
 *
 * Context: @tsk is current, or not running.
 * Return: the return address, or 0 if no instance matches.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct kretprobe_instance *ri;
	struct llist_node *node;

	node = *cur ? (*cur)->next : READ_ONCE(tsk->kretprobe_instances.first);
	for (; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (ri->fp == fp) {
			*cur = node;
			return (unsigned long)ri->ret_addr;
		}
	}
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * kretprobe_trampoline_handler() - a kretprobed function has returned
 * @regs: the registers at the return, built by the trampoline
 * @fp: where the return address (now the trampoline's) was on the stack
 *
 * Runs the handlers of every instance for this frame (several kretprobes
 * may share a function), then recycles them.
 *
 * Context: the arch's return trampoline; preemption is disabled here.
 * Return: the address the function really returns to.
 */
unsigned long kretprobe_trampoline_handler(struct pt_regs *regs, void *fp)
{
	struct llist_node *first, *node, *last = NULL, *next;
	struct kretprobe_instance *ri;
	unsigned long ret_addr = 0;
	struct kretprobe *rp;

	kprobe_busy_begin();
	first = current->kretprobe_instances.first;
	/* Instances newer than this frame's never returned: drop them too. */
	for (node = first; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (ri->fp == fp) {
			ret_addr = (unsigned long)ri->ret_addr;
			last = node;
		} else if (last) {
			break;
		}
	}
	if (WARN_ONCE(!last, "kretprobe: no instance for frame %px\n", fp)) {
		kprobe_busy_end();
		return (unsigned long)kretprobe_lost_return;
	}

	instruction_pointer_set(regs, ret_addr);
	for (node = first; ; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		rcu_read_lock();
		rp = get_kretprobe(ri);
		if (ri->fp == fp && rp && rp->handler) {
			__this_cpu_write(current_kprobe, &rp->kp);
			rp->handler(ri, regs);
			__this_cpu_write(current_kprobe, &kprobe_busy);
		}
		rcu_read_unlock();
		if (node == last)
			break;
	}

	/* Unlink, then recycle: the handlers above saw a complete list. */
	current->kretprobe_instances.first = last->next;
	for (node = first; ; node = next) {
		next = node->next;
		kretprobe_pool_put(container_of(node, struct kretprobe_instance,
						llist));
		if (node == last)
			break;
	}
	kprobe_busy_end();
	return ret_addr;
}

NOKPROBE_SYMBOL(kretprobe_trampoline_handler);

/**
 * kretprobe_lost_return() - where a return goes that kretprobes lost
 *
 * Never reached unless the per-task instance list was corrupted.
 *
 * Context: the task whose return address was lost.
 */
void kretprobe_lost_return(void)
{
	pr_emerg("lost the return address of a kretprobed function\n");
	make_task_dead(SIGKILL);
}

NOKPROBE_SYMBOL(kretprobe_lost_return);

/**
 * kprobe_flush_task() - recycle the instances of a dead task
 * @tk: a task being freed; it may have died inside kretprobed functions
 *
 * Context: the task is dead; any context but NMI.
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct llist_node *node, *next;
	unsigned long flags;

	node = __llist_del_all(&tk->kretprobe_instances);
	if (!node)
		return;
	local_irq_save(flags);
	for (; node; node = next) {
		next = node->next;
		kretprobe_pool_put(container_of(node, struct kretprobe_instance,
						llist));
	}
	local_irq_restore(flags);
}

NOKPROBE_SYMBOL(kprobe_flush_task);

static bool kretprobe_is_registered(struct kretprobe *rp)
{
	bool ret;

	mutex_lock(&kprobe_mutex);
	ret = kprobe_is_registered_locked(&rp->kp);
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * register_kretprobe() - install a return probe
 * @rp: the kretprobe; @rp->kp says where (a function entry)
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a NULL or registered @rp or a position that is
 * not a function entry; -E2BIG for @rp->data_size over
 * KRETPROBE_MAX_DATA_SIZE or @rp->maxactive over KRETPROBE_MAX_ACTIVE;
 * -ENOMEM; or an error of register_kprobe().
 */
int register_kretprobe(struct kretprobe *rp)
{
	struct kretprobe_pool *pool;
	int maxactive, ret;

	if (!rp)
		return -EINVAL;
	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE ||
	    rp->maxactive > KRETPROBE_MAX_ACTIVE)
		return -E2BIG;
	if (kretprobe_is_registered(rp))
		return -EINVAL;
	ret = kprobe_on_func_entry(rp->kp.addr, rp->kp.symbol_name,
				   rp->kp.offset);
	if (ret)
		return ret;

	maxactive = rp->maxactive > 0 ? rp->maxactive :
		    max_t(int, 10, 2 * num_possible_cpus());
	pool = kretprobe_pool_create(rp, maxactive, rp->data_size);
	if (!pool)
		return -ENOMEM;

	rp->pool = pool;
	rp->nmissed = 0;
	rp->kp.pre_handler = kretprobe_entry_handler;
	rp->kp.post_handler = NULL;
	ret = register_kprobe(&rp->kp);
	if (ret) {
		rp->pool = NULL;
		kretprobe_pool_free(pool);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/**
 * register_kretprobes() - install several return probes, all or none
 * @rps: the kretprobes
 * @num: how many
 *
 * Context: process context, may sleep.
 * Return: 0, or the error of the first that failed; those registered
 * before it are unregistered again.
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	int i, ret = 0;

	if (!rps || num <= 0)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		ret = register_kretprobe(rps[i]);
		if (ret) {
			if (i > 0)
				unregister_kretprobes(rps, i);
			break;
		}
	}
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/* At most this many kretprobes share the grace periods of one removal. */
#define KRETPROBE_UNREGISTER_BATCH	16

static void __unregister_kretprobes(struct kretprobe **rps, int num)
{
	struct kretprobe *live[KRETPROBE_UNREGISTER_BATCH];
	struct kprobe *kps[KRETPROBE_UNREGISTER_BATCH];
	int i, n = 0;

	for (i = 0; i < num; i++) {
		if (rps[i] && rps[i]->pool && kretprobe_is_registered(rps[i])) {
			live[n] = rps[i];
			kps[n++] = &rps[i]->kp;
		}
	}
	if (!n)
		return;

	/* 1. No entry hit is in flight once this returns. */
	unregister_kprobes(kps, n);
	/* 2. Detach the pools: returning instances run no handler any more. */
	for (i = 0; i < n; i++)
		kretprobe_pool_detach(live[i]->pool);
	/* 3. Pairs with the RCU sections of kretprobe_pool_put() and the handler. */
	synchronize_rcu();
	/* 4. Collect the free instances; the others free the pool later. */
	for (i = 0; i < n; i++) {
		kretprobe_pool_collect(live[i]->pool);
		live[i]->pool = NULL;
	}
}

/**
 * unregister_kretprobes() - remove several return probes
 * @rps: the kretprobes; those not registered are skipped
 * @num: how many
 *
 * When this returns no handler of any of them runs or will run.  Calls in
 * progress still return normally; their instances are freed as they do.
 *
 * Context: process context, may sleep.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	int i;

	if (!rps || num <= 0)
		return;
	for (i = 0; i < num; i += KRETPROBE_UNREGISTER_BATCH)
		__unregister_kretprobes(rps + i,
					min(num - i, KRETPROBE_UNREGISTER_BATCH));
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe() - remove a return probe
 * @rp: the kretprobe; ignored if not registered
 *
 * Context: process context, may sleep.
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);

/**
 * disable_kretprobe() - stop a return probe from taking new calls
 * @rp: the kretprobe
 *
 * Calls already tracked still run the handler when they return.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL if @rp is not registered.
 */
int disable_kretprobe(struct kretprobe *rp)
{
	return rp ? disable_kprobe(&rp->kp) : -EINVAL;
}
EXPORT_SYMBOL_GPL(disable_kretprobe);

/**
 * enable_kretprobe() - let a disabled return probe take calls again
 * @rp: the kretprobe
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL if @rp is not registered.
 */
int enable_kretprobe(struct kretprobe *rp)
{
	return rp ? enable_kprobe(&rp->kp) : -EINVAL;
}
EXPORT_SYMBOL_GPL(enable_kretprobe);
