/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private interface between the parts of the kprobes core: registration
 * and hit dispatch (kprobes.c), the blacklist (kprobes_blacklist.c), the
 * instruction slot cache (kprobes_slots.c) and debugfs (kprobes_debugfs.c).
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
#else
static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}
#endif
bool kprobe_is_registered_locked(struct kprobe *p);

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

int kprobe_blacklist_init(void);
void kprobe_blacklist_add_module(struct module *mod);
void kprobe_blacklist_remove_module(struct module *mod);

#endif /* _KERNEL_KPROBES_INTERNAL_H */
