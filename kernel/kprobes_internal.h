/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private interface between the parts of the kprobes core: registration
 * and hit dispatch (kprobes.c), the text probes live in (kprobes_text.c),
 * the blacklist (kprobes_blacklist.c), the instruction slot cache
 * (kprobes_slots.c) and debugfs (kprobes_debugfs.c).
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>

struct module;

/* All probe points, hashed or gone, in registration order (kprobe_mutex). */
extern struct list_head kprobe_points;

/* True while debugfs "enabled" is 0: nothing is armed (kprobe_mutex). */
extern bool kprobes_all_disarmed;

int kprobes_set_armed(bool armed);

#ifdef CONFIG_KRETPROBES
bool kprobe_is_kretprobe(struct kprobe *p);
int kretprobe_nmissed(struct kprobe *p);
void kretprobe_backout_locked(struct kprobe *p);
#else
static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}

static inline int kretprobe_nmissed(struct kprobe *p)
{
	return 0;
}

static inline void kretprobe_backout_locked(struct kprobe *p)
{
}
#endif

bool kprobe_is_registered_locked(struct kprobe *p);

/*
 * Private to the core, in struct kprobe::flags: unlinked by
 * unregister_kprobe_locked(), until kprobe_unregister_done().  The later
 * steps of an unregistration act on the kprobes that have it, and on no
 * other: a caller may pass one kprobe twice, or one never registered.
 */
#define KPROBE_FLAG_RETIRING	BIT(31)

static inline bool kprobe_retiring(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_RETIRING;
}

/* Is @arr[@i] at a lower index of @arr too (one probe passed twice)? */
#define kprobe_earlier_in_batch(arr, i)					\
({									\
	typeof(arr) __arr = (arr);					\
	int __i = (i), __j;						\
	bool __earlier = false;						\
									\
	for (__j = 0; __j < __i && !__earlier; __j++)			\
		__earlier = __arr[__j] == __arr[__i];			\
	__earlier;							\
})

/* Registration in steps, for kretprobes (see "Retirement" in kprobes.c) */
int kprobe_resolve(struct kprobe *p, kprobe_opcode_t **addr,
		   bool *on_func_entry);
int register_kprobe_locked(struct kprobe *p, kprobe_opcode_t *addr,
			   bool on_func_entry);
void unregister_kprobe_locked(struct kprobe *p, struct list_head *jumps);
int kprobe_point_update_locked(struct kprobe_point *kpp);
int __kprobe_point_update_locked(struct kprobe_point *kpp,
				 struct list_head *jumps);
void kprobe_points_drop_jumps_locked(struct list_head *jumps);
void kprobes_commit_locked(void);
void kprobes_synchronize(void);
void kprobe_retire_point_locked(struct kprobe_point *kpp,
				struct list_head *to_free);
void kprobe_retire_done_locked(void);
void kprobe_forget_unregistered(struct kprobe *p, bool earlier_in_batch);
void kprobe_unregister_done(struct kprobe *p);
void kprobe_points_destroy(struct list_head *to_free);
char *kprobe_sprint_where(const void *addr, gfp_t gfp);

/* The text probes live in (kprobes_text.c) */
int kprobe_resolve_addr(kprobe_opcode_t *addr, const char *symbol_name,
			unsigned long offset, kprobe_opcode_t **out,
			bool *on_func_entry);
int kprobe_check_addr(kprobe_opcode_t *addr, struct module **modp);
int kprobes_watch_modules(void);

/**
 * struct kprobe_blacklist_entry - a range of text that must not be probed
 * @list: entry in kprobe_blacklist (kprobe_blacklist_lock; RCU)
 * @start_addr: first byte of the range
 * @end_addr: one past the last byte
 */
struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
};

/* Collected by the linker from NOKPROBE_SYMBOL() */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

extern struct list_head kprobe_blacklist;
extern struct mutex kprobe_blacklist_lock;

unsigned long __percpu *kprobe_counter_alloc(void);
void kprobe_counter_free(unsigned long __percpu *counter);

int kprobe_blacklist_init(void);
void kprobe_blacklist_add_module(struct module *mod);
void kprobe_blacklist_remove_module(struct module *mod);
void kprobe_blacklist_remove_module_init(struct module *mod);

/**
 * struct kprobe_opt_hold - no jump at some addresses while kprobes wait
 * @node: entry in the optimizer's list of holds (kprobe_mutex)
 * @addrs: the addresses, sorted (immutable)
 * @nr: how many (immutable)
 * @addr: where @addrs points for a hold on one address
 *
 * Of a registration or enabling of kprobes with a post_handler, from
 * kprobe_opt_hold_begin() or kprobe_opt_hold_begin_many() to
 * kprobe_opt_hold_end_locked(): see kprobe_opt_hold_begin_many().
 */
struct kprobe_opt_hold {
	struct list_head node;
	kprobe_opcode_t **addrs;
	unsigned int nr;
	kprobe_opcode_t *addr;
};

#ifdef CONFIG_OPTPROBES
void kprobe_opt_hold_begin(struct kprobe_opt_hold *hold,
			   kprobe_opcode_t *addr);
void kprobe_opt_hold_begin_many(struct kprobe_opt_hold *hold,
				kprobe_opcode_t **addrs, unsigned int nr);
void kprobe_opt_hold_end_locked(struct kprobe_opt_hold *hold);
void kprobe_opt_init_point(struct kprobe_point *kpp);
void kprobe_opt_release_point(struct kprobe_point *kpp);
void kprobe_opt_update_locked(struct kprobe_point *kpp);
void kprobe_opt_cancel_locked(struct kprobe_point *kpp);
bool kprobe_opt_gather_locked(struct kprobe_point *kpp,
			      struct list_head *batch);
void kprobe_opt_cancel_batch_locked(struct list_head *batch,
				    void (*then)(struct kprobe_point *kpp));
void kprobe_opt_neighbours_locked(struct kprobe_point *kpp, bool added);
void kprobe_opt_prepare_locked(struct kprobe_point *kpp, struct kprobe *p);
#else
static inline void kprobe_opt_hold_begin(struct kprobe_opt_hold *hold,
					 kprobe_opcode_t *addr)
{
}

static inline void kprobe_opt_hold_begin_many(struct kprobe_opt_hold *hold,
					      kprobe_opcode_t **addrs,
					      unsigned int nr)
{
}

static inline void kprobe_opt_hold_end_locked(struct kprobe_opt_hold *hold)
{
}

static inline void kprobe_opt_init_point(struct kprobe_point *kpp)
{
}

static inline void kprobe_opt_release_point(struct kprobe_point *kpp)
{
}

static inline void kprobe_opt_update_locked(struct kprobe_point *kpp)
{
}

static inline void kprobe_opt_cancel_locked(struct kprobe_point *kpp)
{
}

static inline bool kprobe_opt_gather_locked(struct kprobe_point *kpp,
					    struct list_head *batch)
{
	return false;
}

static inline void
kprobe_opt_cancel_batch_locked(struct list_head *batch,
			       void (*then)(struct kprobe_point *kpp))
{
}

static inline void kprobe_opt_neighbours_locked(struct kprobe_point *kpp,
						bool added)
{
}

static inline void kprobe_opt_prepare_locked(struct kprobe_point *kpp,
					     struct kprobe *p)
{
}
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
bool kprobe_ftrace_site(kprobe_opcode_t *addr);
int kprobe_ftrace_arm_locked(struct kprobe_point *kpp);
void kprobe_ftrace_disarm_locked(struct kprobe_point *kpp);
int kprobe_ftrace_rearm_locked(struct kprobe_point *kpp);
int kprobe_ftrace_prepare_locked(struct kprobe_point *kpp, struct kprobe *p);
#else
static inline bool kprobe_ftrace_site(kprobe_opcode_t *addr)
{
	return false;
}

static inline int kprobe_ftrace_arm_locked(struct kprobe_point *kpp)
{
	return -EOPNOTSUPP;
}

static inline void kprobe_ftrace_disarm_locked(struct kprobe_point *kpp)
{
}

static inline int kprobe_ftrace_rearm_locked(struct kprobe_point *kpp)
{
	return 0;
}

static inline int kprobe_ftrace_prepare_locked(struct kprobe_point *kpp,
					       struct kprobe *p)
{
	return 0;
}
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
