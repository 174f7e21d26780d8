/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H
/*
 * Kernel probes (kprobes): run a handler when the CPU reaches almost any
 * instruction of kernel text, without rebuilding the kernel.
 *
 * A user fills a struct kprobe with an address (or a symbol and an offset)
 * and handlers and passes it to register_kprobe().  The core gathers all
 * kprobes on one address in a struct kprobe_point, which owns the breakpoint
 * and the arch's replay of the instruction that the breakpoint covers.
 *
 * See Documentation/trace/kprobes.rst.
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/ftrace.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <asm/kprobes.h>

#ifdef CONFIG_KPROBES

/* Phases of a hit, in struct kprobe_ctlblk::status */
#define KPROBE_HIT_ACTIVE	0x00000001	/* running handlers */
#define KPROBE_HIT_SS		0x00000002	/* replaying the instruction */
#define KPROBE_REENTER		0x00000004	/* replaying a nested hit */
#define KPROBE_HIT_SSDONE	0x00000008	/* running post handlers */

struct kprobe;
struct kprobe_point;
struct kretprobe;
struct kretprobe_instance;

typedef int (*kprobe_pre_handler_t)(struct kprobe *p, struct pt_regs *regs);
typedef void (*kprobe_post_handler_t)(struct kprobe *p, struct pt_regs *regs,
				      unsigned long flags);
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *ri,
				   struct pt_regs *regs);

/**
 * struct kprobe - one probe on one kernel instruction
 * @hlist: never hashed: the 6.1 interface has it, and its users take
 *	"list empty and hlist unhashed" to mean "not registered"
 * @list: entry in the probe point's list of probes (kprobe_mutex; RCU);
 *	empty when unregistered
 * @point: the probe point this kprobe belongs to; NULL when unregistered
 *	(kprobe_mutex)
 * @nmissed: hits that found this CPU already inside a probe and so did
 *	not run the handlers (incremented by the hitting CPU only)
 * @addr: the probed address; filled in by register_kprobe() when the
 *	caller gave @symbol_name
 * @symbol_name: where to probe, with @offset, instead of @addr
 * @offset: offset into @symbol_name (or from @addr)
 * @pre_handler: runs before the probed instruction; a non-zero return
 *	means it changed regs->ip and the instruction must not be replayed
 * @post_handler: runs after the probed instruction
 * @flags: KPROBE_FLAG_* (written under kprobe_mutex, read locklessly)
 */
struct kprobe {
	struct hlist_node hlist;
	struct list_head list;
	struct kprobe_point *point;
	unsigned long nmissed;
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	u32 flags;
};

#define KPROBE_FLAG_GONE	1	/* the probed text was freed */
#define KPROBE_FLAG_DISABLED	2	/* the probe is temporarily off */
#define KPROBE_FLAG_OPTIMIZED	4	/* the breakpoint is a jump */
#define KPROBE_FLAG_FTRACE	8	/* the probe rides on ftrace */
#define KPROBE_FLAG_ON_FUNC_ENTRY 16	/* the probe is on a function entry */

/**
 * struct kprobe_point - everything registered on one address
 * @hlist: entry in the lookup hash; unhashed once the text is gone
 *	(kprobe_mutex; RCU for the hit path)
 * @node: entry in the list of all points (kprobe_mutex)
 * @probes: the kprobes on @addr, in registration order (kprobe_mutex; RCU)
 * @addr: the probed address (immutable)
 * @opcode: the original byte(s) the breakpoint replaced (immutable)
 * @armed: the breakpoint is in the text (kprobe_mutex)
 * @gone: the text under @addr was freed (kprobe_mutex)
 * @ainsn: the arch's replay of the probed instruction (immutable)
 * @rcu: delays the release until no task can be running its slot
 * @free_work: releases the point in process context
 *
 * Private to the kprobes core and the arch backends.
 */
struct kprobe_point {
	struct hlist_node hlist;
	struct list_head node;
	struct list_head probes;
	kprobe_opcode_t *addr;
	kprobe_opcode_t opcode;
	bool armed;
	bool gone;
	struct arch_specific_insn ainsn;
	struct rcu_head rcu;
	struct work_struct free_work;
};

/**
 * struct kprobe_ctlblk - per-CPU state of the hit in progress
 * @status: KPROBE_HIT_* / KPROBE_REENTER
 * @point: the point whose instruction this CPU replays
 * @step: arch state to restore when the replay ends
 * @prev: the outer hit, saved while a nested hit is replayed
 * @prev.kp: its current_kprobe
 * @prev.status: its status
 * @prev.point: its point
 * @prev.step: its arch state
 *
 * Only the owning CPU touches it, with preemption disabled.
 */
struct kprobe_ctlblk {
	unsigned int status;
	struct kprobe_point *point;
	struct arch_kprobe_step step;
	struct {
		struct kprobe *kp;
		unsigned int status;
		struct kprobe_point *point;
		struct arch_kprobe_step step;
	} prev;
};

DECLARE_PER_CPU(struct kprobe *, current_kprobe);
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/**
 * kprobe_running() - the kprobe this CPU is handling, if any
 *
 * Context: preemption disabled.
 * Return: non-NULL while this CPU is inside a probe hit.
 */
static inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

static inline bool kprobe_gone(const struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_GONE;
}

static inline bool kprobe_disabled(const struct kprobe *p)
{
	return READ_ONCE(p->flags) & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE);
}

static inline bool kprobe_optimized(const struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_OPTIMIZED;
}

static inline bool kprobe_ftrace(const struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_FTRACE;
}

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);
int enable_kprobe(struct kprobe *kp);
int disable_kprobe(struct kprobe *kp);

struct kprobe *get_kprobe(void *addr);
kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);
bool within_kprobe_blacklist(unsigned long addr);
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);
void kprobe_busy_begin(void);
void kprobe_busy_end(void);
void kprobe_free_init_mem(void);

bool is_kprobe_insn_slot(unsigned long addr);
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);

/*
 * Interface between the core and the arch backends.  Nothing below is for
 * kprobes users.
 */

/* Serializes every change of probe state (see kernel/kprobes.c) */
extern struct mutex kprobe_mutex;

/* The hit path, for the arch's breakpoint handler */
extern struct kprobe kprobe_busy;
struct kprobe_point *kprobe_point_lookup(kprobe_opcode_t *addr);
bool kprobe_run_pre_handlers(struct kprobe_point *kpp, struct pt_regs *regs,
			     bool *need_post);
bool kprobe_enter_nested(struct kprobe_point *kpp, struct kprobe_ctlblk *kcb);
void kprobe_replay_done(struct kprobe_point *kpp, struct pt_regs *regs,
			struct kprobe_ctlblk *kcb);
void kprobe_hit_end(struct kprobe_ctlblk *kcb);

/* Is this CPU between sending the CPU into a stepped copy and its end? */
static inline bool kprobe_in_step(struct kprobe_ctlblk *kcb)
{
	return kcb->point && (kcb->status == KPROBE_HIT_SS ||
			      kcb->status == KPROBE_REENTER);
}

/* The instruction slot cache: executable memory near the kernel text */
kprobe_opcode_t *get_insn_slot(void);
void free_insn_slot(kprobe_opcode_t *slot);

/* What each arch provides; called with kprobe_mutex held unless noted */
int arch_init_kprobes(void);
int arch_prepare_kprobe_point(struct kprobe_point *kpp);
void arch_remove_kprobe_point(struct kprobe_point *kpp);
void arch_arm_kprobe_point(struct kprobe_point *kpp);
void arch_disarm_kprobe_point(struct kprobe_point *kpp);
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset);
bool arch_kprobe_text_reserved(kprobe_opcode_t *addr);
int arch_populate_kprobe_blacklist(void);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

#else /* !CONFIG_KPROBES */

struct kprobe;
struct kretprobe;
struct kretprobe_instance;
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *ri,
				   struct pt_regs *regs);

static inline struct kprobe *kprobe_running(void)
{
	return NULL;
}

static inline int register_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

static inline int register_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kprobe(struct kprobe *p)
{
}

static inline void unregister_kprobes(struct kprobe **kps, int num)
{
}

static inline int enable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int disable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline struct kprobe *get_kprobe(void *addr)
{
	return NULL;
}

static inline bool within_kprobe_blacklist(unsigned long addr)
{
	return true;
}

static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}

static inline void kprobe_busy_begin(void)
{
}

static inline void kprobe_busy_end(void)
{
}

static inline void kprobe_free_init_mem(void)
{
}

static inline bool is_kprobe_insn_slot(unsigned long addr)
{
	return false;
}

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}
#endif /* CONFIG_KPROBES */

/*
 * Return probes.  The API is declared for every configuration so that its
 * users build; it works where the architecture selects HAVE_KRETPROBES.
 */

/* Limits of register_kretprobe() */
#define KRETPROBE_MAX_DATA_SIZE	4096
#define KRETPROBE_MAX_ACTIVE	4096

struct kretprobe_pool;

/**
 * struct kretprobe - a probe on the return of a function
 * @kp: the entry probe; set its addr or symbol_name (a function entry)
 * @handler: runs when the function returns
 * @entry_handler: runs on entry; a non-zero return skips @handler for
 *	this call
 * @maxactive: how many calls can be tracked at once (<= 0: the default,
 *	max(10, 2 * possible CPUs))
 * @nmissed: calls that found no free instance
 * @data_size: bytes of private data in each instance
 * @pool: the instances (private; set while registered)
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int nmissed;
	size_t data_size;
	struct kretprobe_pool *pool;
};

/**
 * struct kretprobe_instance - one tracked call of a kretprobed function
 * @llist: entry in the pool's free list, or the task's list while in use
 * @pool: the pool it belongs to
 * @ret_addr: where the function returns to
 * @fp: where on the stack the return address was
 * @data: private to the handlers, &struct kretprobe data_size bytes
 */
struct kretprobe_instance {
	struct llist_node llist;
	struct kretprobe_pool *pool;
	kprobe_opcode_t *ret_addr;
	void *fp;
	char data[];
};

/**
 * get_kretprobe_retaddr() - where the probed call returns to
 * @ri: the instance
 *
 * Context: a kretprobe handler.
 * Return: the real return address.
 */
static inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return (unsigned long)ri->ret_addr;
}

#ifdef CONFIG_KRETPROBES
int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);
int enable_kretprobe(struct kretprobe *rp);
int disable_kretprobe(struct kretprobe *rp);
struct kretprobe *get_kretprobe(struct kretprobe_instance *ri);
void kprobe_flush_task(struct task_struct *tk);
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur);

/* Between the core and the arch's return trampoline */
void kretprobe_trampoline(void);
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
void arch_kretprobe_divert(struct kretprobe_instance *ri, struct pt_regs *regs);
unsigned long kretprobe_trampoline_handler(struct pt_regs *regs, void *fp);
void kretprobe_lost_return(void);

/**
 * kretprobe_trampoline_addr() - the address kretprobes put in return slots
 *
 * Context: any.
 * Return: the address of the arch's return trampoline.
 */
static inline void *kretprobe_trampoline_addr(void)
{
	return (void *)kretprobe_trampoline;
}

/**
 * is_kretprobe_trampoline() - is @addr the return trampoline?
 * @addr: a return address found on a stack
 *
 * Context: any.
 * Return: true if @addr is a return address kretprobes put there.
 */
static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return addr == (unsigned long)kretprobe_trampoline_addr();
}
#else
static inline int register_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kretprobe(struct kretprobe *rp)
{
}

static inline int register_kretprobes(struct kretprobe **rps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kretprobes(struct kretprobe **rps, int num)
{
}

static inline int enable_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline int disable_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return NULL;
}

static inline void kprobe_flush_task(struct task_struct *tk)
{
}

static inline void *kretprobe_trampoline_addr(void)
{
	return NULL;
}

static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}
#endif /* CONFIG_KRETPROBES */

static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

/**
 * kprobe_page_fault() - let kprobes fix up a fault taken inside a probe hit
 * @regs: the faulting context
 * @trap: the trap number
 *
 * A fault in the replayed copy of a probed instruction is moved back to the
 * original instruction, so that the normal fault handling (exception table
 * fixups included) sees the address it knows.
 *
 * Context: exception entry.
 * Return: true if kprobes fully handled the fault (never, on x86).
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trap)
{
	if (!IS_ENABLED(CONFIG_KPROBES))
		return false;
	if (user_mode(regs))
		return false;
	/* kprobe_running() is only meaningful with preemption disabled. */
	if (preemptible())
		return false;
	if (!kprobe_running())
		return false;
	return kprobe_fault_handler(regs, trap);
}

#endif /* _LINUX_KPROBES_H */
