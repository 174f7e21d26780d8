// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes: the per-CPU hit counters of kprobes, carved out of chunks.
 *
 * Every kprobe counts its hits per CPU (kprobe.hits, kprobes/stats).  One
 * alloc_percpu() and one free_percpu() of an unsigned long cost several
 * hundred instructions each (pcpu_lock, the allocator's bitmaps and
 * hints): as much as the rest of the bookkeeping of a registration, paid
 * once per kprobe when thousands are registered or removed together.
 * The counters come instead from chunks of KPROBE_COUNTERS_PER_CHUNK,
 * each with a bitmap of those in use: a counter costs a bit search and
 * the zeroing of its copies.
 *
 * The chunks with a free counter come first on kprobe_counter_chunks, so
 * that an allocation looks at one chunk; a chunk with none left moves to
 * the tail, and back to the head when one of its counters is freed.  An
 * empty chunk is freed.
 *
 * A counter is freed once no hit can increment it any more (after the
 * grace period of unregistration), and zeroed when it is handed out
 * again, before its kprobe is published.  Everything here runs under
 * kprobe_mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

/*
 * Counters per chunk: 4 KiB of them on each CPU, whatever the page size
 * (a 64 KiB page on every CPU would be a lot to hold for one kprobe)
 */
#define KPROBE_COUNTERS_PER_CHUNK	(SZ_4K / sizeof(unsigned long))

/**
 * struct kprobe_counter_chunk - KPROBE_COUNTERS_PER_CHUNK per-CPU counters
 * @node: entry in kprobe_counter_chunks, those with a free counter first
 * @base: the first counter
 * @nr_used: counters handed out
 * @used: which
 *
 * All fields are guarded by kprobe_mutex.
 */
struct kprobe_counter_chunk {
	struct list_head node;
	unsigned long __percpu *base;
	unsigned int nr_used;
	DECLARE_BITMAP(used, KPROBE_COUNTERS_PER_CHUNK);
};

static LIST_HEAD(kprobe_counter_chunks);

static struct kprobe_counter_chunk *kprobe_counter_chunk_alloc(void)
{
	struct kprobe_counter_chunk *chunk;

	chunk = kzalloc(sizeof(*chunk), GFP_KERNEL);
	if (!chunk)
		return NULL;
	chunk->base = __alloc_percpu(KPROBE_COUNTERS_PER_CHUNK *
				     sizeof(unsigned long),
				     sizeof(unsigned long));
	if (!chunk->base) {
		kfree(chunk);
		return NULL;
	}
	list_add(&chunk->node, &kprobe_counter_chunks);
	return chunk;
}

/**
 * kprobe_counter_alloc() - a per-CPU counter, zero on every CPU
 *
 * Context: kprobe_mutex held, may sleep.
 * Return: the counter, or NULL if memory is short.
 */
unsigned long __percpu *kprobe_counter_alloc(void)
{
	struct kprobe_counter_chunk *chunk;
	unsigned long __percpu *counter;
	unsigned int i;
	int cpu;

	lockdep_assert_held(&kprobe_mutex);
	chunk = list_first_entry_or_null(&kprobe_counter_chunks,
					 struct kprobe_counter_chunk, node);
	if (!chunk || chunk->nr_used == KPROBE_COUNTERS_PER_CHUNK) {
		chunk = kprobe_counter_chunk_alloc();
		if (!chunk)
			return NULL;
	}
	i = find_first_zero_bit(chunk->used, KPROBE_COUNTERS_PER_CHUNK);
	__set_bit(i, chunk->used);
	if (++chunk->nr_used == KPROBE_COUNTERS_PER_CHUNK)
		list_move_tail(&chunk->node, &kprobe_counter_chunks);
	counter = chunk->base + i;
	for_each_possible_cpu(cpu)
		per_cpu(*counter, cpu) = 0;
	return counter;
}

static bool kprobe_counter_in(struct kprobe_counter_chunk *chunk,
			      unsigned long __percpu *counter)
{
	return counter >= chunk->base &&
	       counter < chunk->base + KPROBE_COUNTERS_PER_CHUNK;
}

/**
 * kprobe_counter_free() - give back a counter of kprobe_counter_alloc()
 * @counter: the counter, which no CPU increments any more; or NULL
 *
 * Context: kprobe_mutex held, may sleep.
 */
void kprobe_counter_free(unsigned long __percpu *counter)
{
	struct kprobe_counter_chunk *chunk;

	lockdep_assert_held(&kprobe_mutex);
	if (!counter)
		return;
	list_for_each_entry(chunk, &kprobe_counter_chunks, node) {
		if (kprobe_counter_in(chunk, counter))
			goto found;
	}
	WARN_ONCE(1, "not a kprobe counter: %p\n", counter);
	return;
found:
	__clear_bit(counter - chunk->base, chunk->used);
	chunk->nr_used--;
	if (!chunk->nr_used) {
		list_del(&chunk->node);
		free_percpu(chunk->base);
		kfree(chunk);
		return;
	}
	/* It has a free counter again: in front of the full ones */
	list_move(&chunk->node, &kprobe_counter_chunks);
}
