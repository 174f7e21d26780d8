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
 * Registration allocates maxactive instances, and the pool grows on
 * demand (below).  Free instances sit on per-CPU lock-free lists (llist):
 *
 *  - take: llist_del_first() on this CPU's list; if it is empty, steal a
 *    whole list from another CPU with llist_del_all() and keep the rest;
 *  - give back: llist_add() to the list of the CPU that is returning.
 *
 * llist_del_first() is safe against the concurrent llist_del_all() of a
 * thief only if no node can be put back on the same list while it runs.
 * A list is only pushed to by its own CPU, so it is enough that nothing on
 * this CPU gives an instance back in the middle of a take:
 *
 *  - a take runs with interrupts disabled, as every entry hit does (the
 *    breakpoint exception; the x86 and arm64 detours and the x86 ftrace
 *    handler mask them for that), so no interrupt, softirq or task switch
 *    can return an instance meanwhile;
 *  - a take runs inside a probe hit (current_kprobe set), so an NMI that
 *    hits an entry probe only counts a miss: it holds no instance it could
 *    give back.
 *
 * So a node taken by a thief cannot come back to the list before the take
 * ends.  No cache line is shared by all CPUs on a hit.
 *
 * Growth: a take that empties this CPU's list asks for more instances
 * (irq_work, then a high-priority work item: nothing is allocated on a
 * hit).  An empty list only says that this CPU took more than came back
 * to it: calls that return on another CPU than they entered on drain
 * one list into another with few instances in use.  So the work item
 * counts the instances in use (those with an @fp: a give-back clears
 * it) and doubles the pool, up to its limit, only when a quarter or
 * more are; otherwise no hit asks again for a jiffy, which bounds the
 * work spent on a pool that need not grow.  It hands the new instances
 * to the list of the CPU it runs on, with interrupts disabled, as a
 * give-back would.  So a call only misses when calls come in faster
 * than the pool grows, or when the limit is reached.
 *
 * A CPU on its way offline runs its irq_work list for the last time in
 * smpcfd_dying_cpu(), early in the dying phase, and entry hits still come
 * after it (hotplug callbacks, the way into the idle loop).  An irq_work
 * queued there would stay pending until the CPU came back, and
 * irq_work_sync() in unregister_kretprobe() spin until then; nor may an
 * entry hit hand it to another CPU (it runs as an NMI, which may not send
 * IPIs).  So such a CPU asks for no growth: it takes what it finds.
 *
 * Lifetime: instances outlive unregister_kretprobe().  Unregistration
 * removes the entry probe, then detaches the pool from the kretprobe
 * (pool->rp = NULL) and waits for a grace period: from then on a returning
 * instance runs no handler and drops a reference instead of being listed.
 * The references are counted in pool->refs:
 *
 *   1. kretprobe_pool_detach() sets refs to one per instance plus one for
 *      the unregistration itself, and only then, with release semantics,
 *      clears pool->rp.  kretprobe_pool_owner() reads pool->rp with acquire
 *      semantics (pairs with that release): a put that sees NULL also
 *      sees the count it decrements.
 *   2. After the grace period every put that saw the kretprobe has listed
 *      its instance; kretprobe_pool_collect() takes the listed ones off
 *      and drops their references and its own.
 *   3. Whoever drops the last reference releases the pool, after an RCU
 *      grace period, because kretprobe_find_ret_addr() may be walking an
 *      instance of it.  The unregistration's reference keeps the pool
 *      alive while it collects, however fast the others come back.
 *      The pool goes as a whole: one instance still out (a task asleep
 *      in the function) keeps all of its chunks; freeing them one by one
 *      would take a count per chunk, not kept today.
 *
 * Per task: an instance in use is on its task's kretprobe_instances list,
 * newest first.  Only the task itself changes the list (an NMI that uses
 * kretprobes leaves it as it found it), or the task-freeing code once the
 * task is dead.  The trampoline handler runs in a kprobe_busy section, so
 * kprobes hit meanwhile on this CPU count as missed instead of nesting.
 */

#define pr_fmt(fmt) "kretprobes: " fmt

#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "kprobes_internal.h"

/**
 * struct kretprobe_chunk - memory for instances
 * @node: entry in the pool's chunks
 * @nr: how many instances @mem holds
 * @mem: the instances
 */
struct kretprobe_chunk {
	struct list_head node;
	int nr;
	char mem[];
};

static void kretprobe_pool_free(struct kretprobe_pool *pool)
{
	struct kretprobe_chunk *chunk, *tmp;

	list_for_each_entry_safe(chunk, tmp, &pool->chunks, node)
		kvfree(chunk);
	free_percpu(pool->free);
	kfree(pool);
}

static void kretprobe_pool_free_rcu(struct rcu_head *head)
{
	kretprobe_pool_free(container_of(head, struct kretprobe_pool, rcu));
}

/* Step 3 of "Lifetime": the last reference is gone. */
static void kretprobe_pool_release(struct kretprobe_pool *pool)
{
	call_rcu(&pool->rcu, kretprobe_pool_free_rcu);
}

static void kretprobe_pool_release_irq_work(struct irq_work *work)
{
	kretprobe_pool_release(container_of(work, struct kretprobe_pool,
					    release_irq_work));
}

/*
 * Step 3, from the hit path: a give-back may come in an NMI, where
 * call_rcu() may not be used, so through an irq_work; on a CPU going
 * offline (see "Growth"), another CPU's.  From an NMI there, it stays on
 * that CPU, and the pool is only freed when the CPU runs its irq_work
 * again.
 */
static void kretprobe_pool_release_later(struct kretprobe_pool *pool)
{
	if (likely(cpu_online(raw_smp_processor_id())) || in_nmi())
		irq_work_queue(&pool->release_irq_work);
	else
		irq_work_queue_on(&pool->release_irq_work,
				  cpumask_any(cpu_online_mask));
}

NOKPROBE_SYMBOL(kretprobe_pool_release_later);

/*
 * Add @nr instances to @pool: to this CPU's list, or dealt out over the
 * possible CPUs while nothing can take from them yet (@spread).
 */
static int kretprobe_pool_add(struct kretprobe_pool *pool, int nr, bool spread)
{
	struct kretprobe_chunk *chunk;
	struct kretprobe_instance *ri;
	unsigned long flags;
	int i, cpu;

	lockdep_assert_held(&pool->grow_lock);
	/* A huge maxactive is the caller's to ask for: fail it quietly. */
	chunk = kvzalloc(struct_size(chunk, mem, (size_t)nr * pool->size),
			 GFP_KERNEL | __GFP_NOWARN);
	if (!chunk)
		return -ENOMEM;
	chunk->nr = nr;
	list_add(&chunk->node, &pool->chunks);
	cpu = cpumask_first(cpu_possible_mask);
	local_irq_save(flags);
	for (i = 0; i < nr; i++) {
		ri = (struct kretprobe_instance *)(chunk->mem + i * pool->size);
		ri->pool = pool;
		if (!spread) {
			llist_add(&ri->llist, this_cpu_ptr(pool->free));
			continue;
		}
		llist_add(&ri->llist, per_cpu_ptr(pool->free, cpu));
		cpu = cpumask_next(cpu, cpu_possible_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_possible_mask);
	}
	local_irq_restore(flags);
	/* Read locklessly by kretprobe_pool_want_more() */
	WRITE_ONCE(pool->nr_instances, pool->nr_instances + nr);
	return 0;
}

/* The instances taken and not given back, as near as it can be told */
static int kretprobe_pool_in_use(struct kretprobe_pool *pool)
{
	struct kretprobe_instance *ri;
	struct kretprobe_chunk *chunk;
	int i, n = 0;

	lockdep_assert_held(&pool->grow_lock);
	list_for_each_entry(chunk, &pool->chunks, node) {
		for (i = 0; i < chunk->nr; i++) {
			ri = (struct kretprobe_instance *)(chunk->mem +
							   i * pool->size);
			/* An estimate: takes and give-backs go on meanwhile. */
			n += !!data_race(ri->fp);
		}
	}
	return n;
}

static void kretprobe_pool_grow_work(struct work_struct *work)
{
	struct kretprobe_pool *pool = container_of(work, struct kretprobe_pool,
						   grow_work);

	mutex_lock(&pool->grow_lock);
	if (pool->detached || pool->nr_instances >= pool->limit)
		goto out;
	/* See "Growth" */
	if (kretprobe_pool_in_use(pool) * 4 < pool->nr_instances) {
		WRITE_ONCE(pool->grow_after, jiffies + 1);
		goto out;
	}
	kretprobe_pool_add(pool, min(pool->nr_instances,
				     pool->limit - pool->nr_instances), false);
out:
	mutex_unlock(&pool->grow_lock);
}

static void kretprobe_pool_grow_irq_work(struct irq_work *work)
{
	/*
	 * A high-priority worker: the burst of calls that emptied the list
	 * is still coming in, and a miss is what the growth is there to
	 * avoid; an ordinary one queues behind the very tasks making the
	 * calls.
	 */
	queue_work(system_highpri_wq,
		   &container_of(work, struct kretprobe_pool,
				 grow_irq_work)->grow_work);
}

/*
 * Ask for more instances, from the hit path; not on a CPU going offline
 * (see "Growth").  Out of line: inlined, its rare work cost the entry
 * handler a stack slot on every hit.
 */
static noinline void kretprobe_pool_want_more(struct kretprobe_pool *pool)
{
	if (READ_ONCE(pool->nr_instances) < pool->limit &&
	    time_after_eq(jiffies, READ_ONCE(pool->grow_after)) &&
	    cpu_online(raw_smp_processor_id()))
		irq_work_queue(&pool->grow_irq_work);
}

NOKPROBE_SYMBOL(kretprobe_pool_want_more);

static struct kretprobe_pool *kretprobe_pool_create(struct kretprobe *rp)
{
	struct kretprobe_pool *pool;
	int ret;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	INIT_LIST_HEAD(&pool->chunks);
	mutex_init(&pool->grow_lock);
	init_irq_work(&pool->grow_irq_work, kretprobe_pool_grow_irq_work);
	INIT_WORK(&pool->grow_work, kretprobe_pool_grow_work);
	/*
	 * Hard: it frees the pool, irq_work and all, after a grace period,
	 * which a callback run from a preemptible thread (PREEMPT_RT) would
	 * not hold off until irq_work_single() is done with it.
	 */
	pool->release_irq_work =
		IRQ_WORK_INIT_HARD(kretprobe_pool_release_irq_work);
	pool->rp = rp;
	pool->grow_after = jiffies;
	pool->size = ALIGN(sizeof(struct kretprobe_instance) + rp->data_size,
			   sizeof(long));
	if (rp->maxactive_limit < 0)
		pool->limit = rp->maxactive;
	else if (rp->maxactive_limit)
		pool->limit = max(rp->maxactive, rp->maxactive_limit);
	else
		pool->limit = max(rp->maxactive, KRETPROBE_DEFAULT_LIMIT);
	pool->free = alloc_percpu(struct llist_head);
	if (!pool->free) {
		kfree(pool);
		return NULL;
	}
	mutex_lock(&pool->grow_lock);
	ret = kretprobe_pool_add(pool, rp->maxactive, true);
	mutex_unlock(&pool->grow_lock);
	if (ret) {
		kretprobe_pool_free(pool);
		return NULL;
	}
	return pool;
}

/* Take a free instance: this CPU's list first, then another CPU's. */
/* llist_add() and llist_del_first(), inline for the hit paths */
static nokprobe_inline void kretprobe_list_push(struct llist_node *node,
						struct llist_head *head)
{
	struct llist_node *first = READ_ONCE(head->first);

	do {
		node->next = first;
	} while (!try_cmpxchg(&head->first, &first, node));
}

/* *@last: it was the last one; an empty list returns NULL, unset */
static nokprobe_inline struct llist_node *
kretprobe_list_pop(struct llist_head *head, bool *last)
{
	struct llist_node *node = READ_ONCE(head->first), *next;

	do {
		if (!node)
			return NULL;
		next = READ_ONCE(node->next);
	} while (!try_cmpxchg(&head->first, &node, next));
	*last = !next;
	return node;
}

/*
 * This CPU's list is empty: take another CPU's whole list.  Called by a
 * take that found @mine empty, with interrupts off: nothing on this CPU
 * can add to @mine before it returns, and other CPUs never add to it.
 */
static struct llist_node *kretprobe_pool_steal(struct kretprobe_pool *pool,
					       struct llist_head *mine)
{
	struct llist_node *node;
	int cpu;

	kretprobe_pool_want_more(pool);
	for_each_possible_cpu(cpu) {
		if (cpu == smp_processor_id())
			continue;
		/* An exhausted pool: no write to every CPU's list on each call */
		if (!READ_ONCE(per_cpu_ptr(pool->free, cpu)->first))
			continue;
		node = llist_del_all(per_cpu_ptr(pool->free, cpu));
		if (!node)
			continue;
		/*
		 * Keep the rest: @mine is still empty (see above), so the
		 * rest becomes it whole, with no walk to its tail.  Pairs
		 * with the xchg() of llist_del_all() on other CPUs (thieves,
		 * kretprobe_pool_collect()): they see the nodes as they
		 * were handed to this CPU.
		 */
		smp_store_release(&mine->first, node->next);
		return node;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kretprobe_pool_steal);

static nokprobe_inline struct kretprobe_instance *
kretprobe_pool_get(struct kretprobe_pool *pool)
{
	struct llist_head *mine = this_cpu_ptr(pool->free);
	struct llist_node *node;
	bool last;

	node = kretprobe_list_pop(mine, &last);
	if (likely(node)) {
		/*
		 * The last one here: more, before this CPU has to steal.
		 * Nothing adds to @mine meanwhile (see "Instance pool").
		 */
		if (unlikely(last))
			kretprobe_pool_want_more(pool);
	} else {
		node = kretprobe_pool_steal(pool, mine);
		if (!node)
			return NULL;
	}
	return container_of(node, struct kretprobe_instance, llist);
}

/*
 * The kretprobe of @ri's pool, NULL once it is being unregistered: a
 * reader that sees NULL also sees the count of references it may have to
 * drop.
 */
static nokprobe_inline struct kretprobe *
kretprobe_pool_owner(struct kretprobe_instance *ri)
{
	/* Pairs with the release in kretprobe_pool_detach(). */
	return smp_load_acquire(&ri->pool->rp);
}

/*
 * Give an instance back to the free lists, if @rp, what
 * kretprobe_pool_owner() said, is set; else account for it.
 * Context: the RCU read-side critical section (preemption disabled will
 * do) that read @rp: kretprobe_pool_collect() waits for the puts that saw
 * the kretprobe.
 */
static nokprobe_inline void __kretprobe_pool_put(struct kretprobe_instance *ri,
						 struct kretprobe *rp)
{
	struct kretprobe_pool *pool = ri->pool;

	/* Free again, for kretprobe_pool_in_use() */
	ri->fp = NULL;
	if (likely(rp)) {
		kretprobe_list_push(&ri->llist, this_cpu_ptr(pool->free));
		return;
	}
	if (atomic_dec_and_test(&pool->refs))
		kretprobe_pool_release_later(pool);
}

/* Give an instance back; context as __kretprobe_pool_put() */
static nokprobe_inline void kretprobe_pool_put(struct kretprobe_instance *ri)
{
	__kretprobe_pool_put(ri, kretprobe_pool_owner(ri));
}

/*
 * Unregistration, after the entry probe is gone: detach the pool, then
 * collect the free instances; the pool goes when the others are back.
 */
static void kretprobe_pool_detach(struct kretprobe_pool *pool)
{
	mutex_lock(&pool->grow_lock);
	pool->detached = true;
	/* Step 1: every instance counted once, plus the collector's own. */
	atomic_set(&pool->refs, pool->nr_instances + 1);
	/* Pairs with the acquire in kretprobe_pool_owner(). */
	smp_store_release(&pool->rp, NULL);
	mutex_unlock(&pool->grow_lock);
}

static void kretprobe_pool_collect(struct kretprobe_pool *pool)
{
	struct llist_node *node;
	int cpu, n = 0;

	/* No entry hit is left to ask for more: nothing grows any more. */
	irq_work_sync(&pool->grow_irq_work);
	cancel_work_sync(&pool->grow_work);
	/* Step 2: the free instances, and the collector's reference. */
	for_each_possible_cpu(cpu) {
		node = llist_del_all(per_cpu_ptr(pool->free, cpu));
		for (; node; node = node->next)
			n++;
	}
	if (atomic_sub_and_test(n + 1, &pool->refs))
		kretprobe_pool_release(pool);
}

/*
 * &kretprobe_instance.fp of an instance whose call was diverted already
 * (see there), marked in bit 0: a frame address is a stack address, at
 * least 8-byte aligned, so the mark takes no room, and the common return
 * compares one word for both "this frame's" and "not diverted".
 */
#define KRETPROBE_FP_DIVERTED	1UL

static nokprobe_inline void *kretprobe_fp_diverted(void *fp)
{
	return (void *)((unsigned long)fp | KRETPROBE_FP_DIVERTED);
}

static nokprobe_inline void *kretprobe_ri_fp(struct kretprobe_instance *ri)
{
	return (void *)((unsigned long)ri->fp & ~KRETPROBE_FP_DIVERTED);
}

static nokprobe_inline bool kretprobe_ri_diverted(struct kretprobe_instance *ri)
{
	return (unsigned long)ri->fp & KRETPROBE_FP_DIVERTED;
}

/* Another kretprobe on this function diverted the call first. */
static noinline kprobe_opcode_t *kretprobe_diverted_ret_addr(void *fp)
{
	struct llist_node *cur = NULL;

	return (kprobe_opcode_t *)kretprobe_find_ret_addr(current, fp, &cur);
}

NOKPROBE_SYMBOL(kretprobe_diverted_ret_addr);

/* Several CPUs may miss at once: count them all. */
static void kretprobe_count_missed(struct kretprobe *rp)
{
	int old = READ_ONCE(rp->nmissed);

	while (!try_cmpxchg(&rp->nmissed, &old, old + 1))
		;
}

NOKPROBE_SYMBOL(kretprobe_count_missed);

/*
 * Record the call in @ri and send its return to the trampoline.  Listed
 * before the slot shows the trampoline: an unwinder (an NMI here) that
 * meets the trampoline finds the instance.
 */
static nokprobe_inline void kretprobe_divert(struct kretprobe_instance *ri,
					     unsigned long *ret_slot)
{
	__llist_add(&ri->llist, &current->kretprobe_instances);
	barrier();
	*ret_slot = (unsigned long)kretprobe_trampoline_addr();
}

/*
 * kretprobe_entry_handler() for every case; the pre_handler itself of a
 * kretprobe with an entry_handler.
 */
static noinline int kretprobe_entry_slow(struct kprobe *p,
					 struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	unsigned long *ret_slot = arch_kretprobe_ret_slot(regs);
	struct kretprobe_instance *ri;

	/* See "Instance pool" */
	lockdep_assert_irqs_disabled();
	ri = kretprobe_pool_get(rp->pool);
	if (unlikely(!ri)) {
		kretprobe_count_missed(rp);
		return 0;
	}
	ri->fp = arch_kretprobe_frame(regs);
	ri->ret_addr = (kprobe_opcode_t *)*ret_slot;
	if (unlikely(is_kretprobe_trampoline(*ret_slot))) {
		ri->ret_addr = kretprobe_diverted_ret_addr(ri->fp);
		/* The trampoline, but no instance of ours: leave it alone. */
		if (unlikely(!ri->ret_addr))
			goto missed;
		ri->fp = kretprobe_fp_diverted(ri->fp);
	}
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		kretprobe_pool_put(ri);	/* a hit runs with preemption off */
		return 0;
	}
	kretprobe_divert(ri, ret_slot);
	return 0;

missed:
	kretprobe_pool_put(ri);
	kretprobe_count_missed(rp);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry_slow);

/*
 * The entry probe's pre_handler, for a kretprobe without an
 * entry_handler.  Its common case inline: a return address of the
 * caller's (no other kretprobe diverted the call first) and a free
 * instance on this CPU's list.  It calls nothing but
 * kretprobe_entry_slow(), which starts over, and the ask for more
 * instances at its end, so it needs no register of its own kept across a
 * call.
 */
static int kretprobe_entry_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	unsigned long *ret_slot = arch_kretprobe_ret_slot(regs);
	unsigned long ret_addr = *ret_slot;
	/* Read before the pop, whose cmpxchg makes the compiler load again */
	void *fp = arch_kretprobe_frame(regs);
	struct kretprobe_pool *pool = rp->pool;
	struct kretprobe_instance *ri;
	struct llist_node *node;
	bool last;

	if (unlikely(is_kretprobe_trampoline(ret_addr)))
		return kretprobe_entry_slow(p, regs);
	/* See "Instance pool" */
	lockdep_assert_irqs_disabled();
	node = kretprobe_list_pop(this_cpu_ptr(pool->free), &last);
	if (unlikely(!node))
		return kretprobe_entry_slow(p, regs);
	ri = container_of(node, struct kretprobe_instance, llist);
	ri->fp = fp;
	ri->ret_addr = (kprobe_opcode_t *)ret_addr;
	kretprobe_divert(ri, ret_slot);
	/* As in kretprobe_pool_get() */
	if (unlikely(last))
		kretprobe_pool_want_more(pool);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry_handler);

/**
 * kretprobe_backout_locked() - a registration failing after hits could see it
 * @p: the entry probe of a kretprobe whose registration fails, just
 *	unlisted by register_kprobe_locked(), which waits for the hits that
 *	saw it next
 *
 * An entry hit may have diverted a call meanwhile: detach the pool, as
 * unregistration does, before that wait, and register_kretprobe() collects
 * it after.
 *
 * Context: kprobe_mutex held.
 */
void kretprobe_backout_locked(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	kretprobe_pool_detach(container_of(p, struct kretprobe, kp)->pool);
}

/* Is @p the entry probe of a kretprobe?  For the debugfs list. */
bool kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry_handler ||
	       p->pre_handler == kretprobe_entry_slow;
}

/* The calls a kretprobe missed for want of an instance, for debugfs */
int kretprobe_nmissed(struct kprobe *p)
{
	return READ_ONCE(container_of(p, struct kretprobe, kp)->nmissed);
}

/**
 * kretprobe_find_ret_addr() - the real return address of a trampoline frame
 * @tsk: the task whose stack is walked
 * @fp: where the trampoline's address sits on the stack
 * @cur: the instance found last; NULL to start from the newest
 *
 * For unwinders, which meet the trampoline's address where a return address
 * should be.  Walking outward, pass the same @cur again.
 *
 * Only @tsk changes its list of instances, so another task's list can only
 * be walked while that task is off the CPU; the walk of a task that starts
 * running meanwhile may give a wrong answer (as the unwinding of a running
 * task may anyway), but never a freed instance: pools are released after
 * a grace period, and @cur, found in an earlier walk, is only compared.
 *
 * Context: any; @tsk is current, or not running.
 * Return: the return address, or 0 if no instance matches or @tsk is
 * another task that is running.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct kretprobe_instance *ri;
	struct llist_node *node;
	unsigned long ret = 0;

	if (tsk != current && task_curr(tsk))
		return 0;
	rcu_read_lock();
	node = READ_ONCE(tsk->kretprobe_instances.first);
	if (*cur) {
		/*
		 * Found in an earlier RCU section: it may have been returned
		 * and its pool freed since.  Find it again by address only.
		 */
		while (node && node != *cur)
			node = READ_ONCE(node->next);
		if (node)
			node = READ_ONCE(node->next);
	}
	for (; node; node = READ_ONCE(node->next)) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (kretprobe_ri_fp(ri) == fp) {
			*cur = node;
			ret = (unsigned long)ri->ret_addr;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

#ifdef KRETPROBE_OTHER_RETURN_HOOKS
static nokprobe_inline bool kretprobe_rethook_trampoline(unsigned long addr)
{
#ifdef CONFIG_RETHOOK
	return is_rethook_trampoline(addr);
#else
	return false;
#endif
}

static nokprobe_inline unsigned long
kretprobe_rethook_ret_addr(void *fp, struct llist_node **cur)
{
#ifdef CONFIG_RETHOOK
	return rethook_find_ret_addr(current, (unsigned long)fp, cur);
#else
	return 0;
#endif
}

static nokprobe_inline bool kretprobe_graph_trampoline(unsigned long addr)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	return addr == (unsigned long)return_to_handler;
#else
	return false;
#endif
}

/* The trampoline of another return hook: a rethook's, the graph tracer's */
static nokprobe_inline bool kretprobe_other_hook(unsigned long addr)
{
	return kretprobe_rethook_trampoline(addr) ||
	       kretprobe_graph_trampoline(addr);
}

/*
 * Where a return really goes, behind the trampolines of the other return
 * hooks that took it before the kretprobe did (each one's address in the
 * slot of the one after), for the frame whose return slot is @fp.
 * Bounded, as the hooks that may stack up are.
 */
static noinline unsigned long kretprobe_behind_other_hooks(unsigned long addr,
							   void *fp)
{
	struct llist_node *cur = NULL;
	int i, graph_idx = 0;
	unsigned long next;

	for (i = 0; i < 4 && kretprobe_other_hook(addr); i++) {
		if (kretprobe_rethook_trampoline(addr))
			next = kretprobe_rethook_ret_addr(fp, &cur);
		else
			next = ftrace_graph_ret_addr(current, &graph_idx, addr,
						     fp);
		/* Not found: the trampoline stays. */
		if (!next || next == addr)
			break;
		addr = next;
	}
	return addr;
}

NOKPROBE_SYMBOL(kretprobe_behind_other_hooks);

/**
 * get_kretprobe_retaddr() - where the probed call returns to
 * @ri: the instance
 *
 * Behind another return hook that took the return first, if any: the
 * function returns to that one's trampoline, which returns there.
 *
 * Context: a kretprobe handler, in the task that returns.
 * Return: the real return address, or the other hook's trampoline if
 * that hook lost it.
 */
unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	unsigned long addr = (unsigned long)ri->ret_addr;

	if (unlikely(kretprobe_other_hook(addr)))
		return kretprobe_behind_other_hooks(addr, kretprobe_ri_fp(ri));
	return addr;
}
EXPORT_SYMBOL_GPL(get_kretprobe_retaddr);
NOKPROBE_SYMBOL(get_kretprobe_retaddr);
#else
static nokprobe_inline bool kretprobe_other_hook(unsigned long addr)
{
	return false;
}

static nokprobe_inline unsigned long
kretprobe_behind_other_hooks(unsigned long addr, void *fp)
{
	return addr;
}
#endif

/*
 * Show the handlers where the return goes: behind the other return hooks,
 * whose trampolines it still goes through (@ret_addr), an unwinder starting
 * from @regs must not meet one.  No cost without those hooks.
 */
static nokprobe_inline void kretprobe_set_handler_ip(struct pt_regs *regs,
						     unsigned long ret_addr,
						     void *fp)
{
	if (unlikely(kretprobe_other_hook(ret_addr)))
		ret_addr = kretprobe_behind_other_hooks(ret_addr, fp);
	instruction_pointer_set(regs, ret_addr);
}

/*
 * kretprobe_trampoline_handler() for any stack of instances: several for
 * this frame (a tail call, several kretprobes on the function), newer ones
 * whose functions never returned, RCU not watching this CPU.  This frame's
 * return is the newest instance of @fp and, while that one was diverted
 * (its slot already held the trampoline), the next one, and so on: the
 * return goes through each in turn, and to the real return address of the
 * last.  Another return hook between two of them (the function graph
 * tracer, a rethook) ends the run: the function returns to it, and it
 * returns to the trampoline again for the older ones.
 *
 * Context: as kretprobe_trampoline_handler(), inside __kprobe_busy_begin().
 */
static void kretprobe_return_slow(struct pt_regs *regs, void *fp)
{
	struct llist_node *first, *node, *last = NULL, *next;
	struct kretprobe_instance *ri;
	unsigned long ret_addr, flags;
	struct kretprobe *rp;
	bool rcu;

	rcu = kprobe_rcu_enter(&flags);
	first = current->kretprobe_instances.first;
	/* Instances newer than this frame's never returned: drop them too. */
	for (node = first; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (kretprobe_ri_fp(ri) != fp) {
			if (last)
				break;
			continue;
		}
		last = node;
		if (!kretprobe_ri_diverted(ri))
			break;
	}
	if (WARN_ONCE(!last, "kretprobe: no instance for this frame\n")) {
		kprobe_rcu_exit(rcu, flags);
		__kprobe_busy_end();
		arch_kretprobe_set_return(regs, fp,
					  (unsigned long)kretprobe_lost_return);
		return;
	}

	ret_addr = (unsigned long)container_of(last, struct kretprobe_instance,
					       llist)->ret_addr;
	kretprobe_set_handler_ip(regs, ret_addr, fp);
	arch_kretprobe_set_return(regs, fp, ret_addr);
	for (node = first; ; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		rcu_read_lock();
		rp = get_kretprobe(ri);
		if (kretprobe_ri_fp(ri) == fp && rp && rp->handler) {
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
	kprobe_rcu_exit(rcu, flags);
	__kprobe_busy_end();
}

NOKPROBE_SYMBOL(kretprobe_return_slow);

/**
 * kretprobe_trampoline_handler() - a kretprobed function has returned
 * @regs: the registers at the return, built by the trampoline
 * @fp: where the return address (now the trampoline's) was on the stack
 *
 * Runs the handlers of every instance this return goes through (see
 * kretprobe_return_slow()), then recycles them.  The address the function
 * really returns to goes to arch_kretprobe_set_return() first, whatever
 * the way out (kretprobe_lost_return() if no instance is found): the
 * trampoline returns to what it wrote.  Nothing else is kept across the
 * handler's call, which saves the common return two registers.
 *
 * Context: the arch's return trampoline, preemptible or not.
 */
void kretprobe_trampoline_handler(struct pt_regs *regs, void *fp)
{
	struct llist_node *first;
	struct kretprobe_instance *ri;
	unsigned long ret_addr;
	struct kretprobe *rp;

	/* Preemption off is the RCU section. */
	__kprobe_busy_begin();
	/*
	 * The common return, on one path: the task's newest instance is this
	 * frame's, and its slot held the real return address.
	 */
	first = current->kretprobe_instances.first;
	if (unlikely(!first || !kprobe_rcu_watching())) {
		kretprobe_return_slow(regs, fp);
		return;
	}
	ri = llist_entry(first, struct kretprobe_instance, llist);
	/* Unequal too if it was diverted: see kretprobe_fp_diverted() */
	if (unlikely(ri->fp != fp)) {
		kretprobe_return_slow(regs, fp);
		return;
	}

	ret_addr = (unsigned long)ri->ret_addr;
	kretprobe_set_handler_ip(regs, ret_addr, fp);
	arch_kretprobe_set_return(regs, fp, ret_addr);
	/*
	 * Unlinked before the handler runs, once the slot holds the real
	 * return address (an unwinder, an NMI here, finds one or the
	 * other): only the instances of older frames are still needed, and
	 * they stay listed.  So a handler finds its own instance by @ri
	 * (get_kretprobe_retaddr()), not in the task's list.
	 */
	barrier();
	current->kretprobe_instances.first = first->next;
	/*
	 * One read of the kretprobe serves the handler and the give-back,
	 * in the one RCU section: if it is gone, there is no handler to
	 * call, and past that branch nothing is kept across the call but
	 * @ri.
	 */
	rp = kretprobe_pool_owner(ri);
	if (unlikely(!rp)) {
		__kretprobe_pool_put(ri, NULL);
		__kprobe_busy_end();
		return;
	}
	if (rp->handler) {
		__this_cpu_write(current_kprobe, &rp->kp);
		rp->handler(ri, regs);
	}
	__kretprobe_pool_put(ri, rp);
	__kprobe_busy_end();
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

/* Does @addr lie in a function no kretprobe may be put on, or a copy of one? */
static bool kretprobe_blacklisted(kprobe_opcode_t *addr)
{
	const char * const *bad;
	char name[KSYM_NAME_LEN];

	if (lookup_symbol_name((unsigned long)addr, name))
		return false;
	/* "__switch_to.part.0" is __switch_to */
	name[strcspn(name, ".")] = '\0';
	for (bad = arch_kretprobe_blacklist; *bad; bad++) {
		if (!strcmp(name, *bad))
			return true;
	}
	return false;
}

/**
 * register_kretprobe() - install a return probe
 * @rp: the kretprobe; @rp->kp says where (a function entry)
 *
 * A @rp->maxactive of 0 or less is replaced by the default.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a NULL or registered @rp, a position that is not
 * a function entry, or a function that returns on another task or stack
 * (arch_kretprobe_blacklist); -E2BIG for @rp->data_size over
 * KRETPROBE_MAX_DATA_SIZE; -ENOMEM; or an error of register_kprobe().
 */
int register_kretprobe(struct kretprobe *rp)
{
	struct kretprobe_pool *pool;
	kprobe_opcode_t *addr;
	bool on_func_entry;
	int ret;

	if (!rp)
		return -EINVAL;
	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;
	ret = kprobe_resolve(&rp->kp, &addr, &on_func_entry);
	if (ret)
		return ret;
	if (!on_func_entry || kretprobe_blacklisted(addr))
		return -EINVAL;

	if (rp->maxactive <= 0)
		rp->maxactive = max_t(int, 10, 2 * num_possible_cpus());
	pool = kretprobe_pool_create(rp);
	if (!pool)
		return -ENOMEM;

	mutex_lock(&kprobe_mutex);
	if (kprobe_is_registered_locked(&rp->kp)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	rp->pool = pool;
	rp->nmissed = 0;
	/* The entry_handler is read here: the common hit need not ask. */
	rp->kp.pre_handler = rp->entry_handler ? kretprobe_entry_slow :
						 kretprobe_entry_handler;
	rp->kp.post_handler = NULL;
	ret = register_kprobe_locked(&rp->kp, addr, true);
	if (ret)
		rp->pool = NULL;
	kprobes_commit_locked();
out_unlock:
	mutex_unlock(&kprobe_mutex);
	if (!ret)
		return 0;
	/* Taken apart by kretprobe_backout_locked(), or never seen by a hit */
	if (pool->detached)
		kretprobe_pool_collect(pool);
	else
		kretprobe_pool_free(pool);
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

/**
 * unregister_kretprobes() - remove several return probes
 * @rps: the kretprobes; those not registered are skipped (and their
 *	kp.addr cleared)
 * @num: how many
 *
 * When this returns no handler of any of them runs or will run.  Calls in
 * progress still return normally; their instances are freed as they do.
 *
 * Context: process context, may sleep.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	struct kretprobe *rp;
	LIST_HEAD(to_free);
	LIST_HEAD(jumps);
	int i;

	if (!rps || num <= 0)
		return;
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		rp = rps[i];
		if (!rp)
			continue;
		if (!kprobe_is_registered_locked(&rp->kp)) {
			kprobe_forget_unregistered(&rp->kp,
						   kprobe_earlier_in_batch(rps, i));
			continue;
		}
		unregister_kprobe_locked(&rp->kp, &jumps);
		kretprobe_pool_detach(rp->pool);
	}
	kprobe_points_drop_jumps_locked(&jumps);
	kprobes_commit_locked();
	for (i = 0; i < num; i++) {
		rp = rps[i];
		if (rp && kprobe_retiring(&rp->kp))
			kprobe_retire_point_locked(rp->kp.point, &to_free);
	}
	kprobe_retire_done_locked();
	mutex_unlock(&kprobe_mutex);

	/*
	 * No entry hit is in flight any more, and every give-back that saw
	 * a kretprobe has listed its instance (step 2 of "Lifetime").
	 */
	kprobes_synchronize();
	for (i = 0; i < num; i++) {
		rp = rps[i];
		/* Once for each, were it given twice */
		if (!rp || !kprobe_retiring(&rp->kp) || !rp->pool)
			continue;
		kretprobe_pool_collect(rp->pool);
		rp->pool = NULL;
	}
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		if (rps[i])
			kprobe_unregister_done(&rps[i]->kp);
	}
	mutex_unlock(&kprobe_mutex);
	kprobe_points_destroy(&to_free);
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
 * Return: as enable_kprobe() for its entry probe (-EINVAL if @rp is not
 * registered or its text is gone).
 */
int enable_kretprobe(struct kretprobe *rp)
{
	return rp ? enable_kprobe(&rp->kp) : -EINVAL;
}
EXPORT_SYMBOL_GPL(enable_kretprobe);
