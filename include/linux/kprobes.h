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

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/context_tracking.h>
#include <linux/context_tracking_irq.h>
#include <linux/ftrace.h>
#include <linux/irq_work.h>
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

/*
 * struct kprobe exists in every configuration: code built with or without
 * CONFIG_KPROBES (BPF's, for one) reads the probe that kprobe_running()
 * returns, which is always NULL without it.
 */
struct kprobe;
struct kprobe_dispatch;
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
 *	caller gave @symbol_name (a void pointer without CONFIG_KPROBES,
 *	where the arch may not define kprobe_opcode_t)
 * @symbol_name: where to probe, with @offset, instead of @addr
 * @offset: offset into @symbol_name (or from @addr)
 * @pre_handler: runs before the probed instruction; a non-zero return
 *	means it changed regs->ip and the instruction must not be replayed
 * @post_handler: runs after the probed instruction
 * @flags: KPROBE_FLAG_* (written under kprobe_mutex, read locklessly)
 * @hits: per-CPU count of the hits that ran this kprobe's handlers
 *	(allocated while registered; each CPU increments its own)
 */
struct kprobe {
	struct hlist_node hlist;
	struct list_head list;
	struct kprobe_point *point;
	unsigned long nmissed;
#ifdef CONFIG_KPROBES
	kprobe_opcode_t *addr;
#else
	void *addr;
#endif
	const char *symbol_name;
	unsigned int offset;
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	u32 flags;
	unsigned long __percpu *hits;
};

#define KPROBE_FLAG_GONE	1	/* the probed text was freed */
#define KPROBE_FLAG_DISABLED	2	/* the probe is temporarily off */
#define KPROBE_FLAG_OPTIMIZED	4	/* the breakpoint is a jump */
#define KPROBE_FLAG_FTRACE	8	/* the probe rides on ftrace */
#define KPROBE_FLAG_ON_FUNC_ENTRY 16	/* the probe is on a function entry */

#ifdef CONFIG_KPROBES

/*
 * Phases of a hit, in struct kprobe_ctlblk::status.  Only a replay sets
 * one (see there).  KPROBE_HIT_ACTIVE is no longer set; it stays as part
 * of the 6.1 header, which out-of-tree code may use.
 */
#define KPROBE_HIT_ACTIVE	0x00000001	/* running handlers */
#define KPROBE_HIT_SS		0x00000002	/* replaying the instruction */
#define KPROBE_REENTER		0x00000004	/* replaying a nested hit */
#define KPROBE_HIT_SSDONE	0x00000008	/* running post handlers */

/**
 * enum kprobe_hit_kind - how a hit on a point was served
 * @KPROBE_HIT_EMULATED: breakpoint; the instruction was carried out on
 *	pt_regs, or a pre_handler took its place
 * @KPROBE_HIT_BOOSTED: breakpoint; resumed in a copy that jumps back
 * @KPROBE_HIT_STEPPED: breakpoint; the copy was stepped, a second trap
 * @KPROBE_HIT_OPTIMIZED: a jump to the point's detour, no exception
 * @KPROBE_HIT_FTRACE: the function tracer's call, no exception
 * @KPROBE_HIT_MISSED: no handler ran: the CPU was already inside a probe
 *	(or, through ftrace, its recursion guard refused the call, or the
 *	point was moving between kprobes' two ftrace_ops)
 * @NR_KPROBE_HIT_KINDS: how many kinds
 */
enum kprobe_hit_kind {
	KPROBE_HIT_EMULATED,
	KPROBE_HIT_BOOSTED,
	KPROBE_HIT_STEPPED,
	KPROBE_HIT_OPTIMIZED,
	KPROBE_HIT_FTRACE,
	KPROBE_HIT_MISSED,
	NR_KPROBE_HIT_KINDS,
};

/**
 * struct kprobe_hit_counts - a CPU's count of the hits on a point
 * @n: per &enum kprobe_hit_kind
 */
struct kprobe_hit_counts {
	unsigned long n[NR_KPROBE_HIT_KINDS];
};

/**
 * enum kprobe_opt_state - a point's way to a jump (CONFIG_OPTPROBES)
 * @KPROBE_OPT_NONE: served by its breakpoint (or by ftrace)
 * @KPROBE_OPT_QUEUED: waiting for the optimizer
 * @KPROBE_OPT_DIVERTING: its detour is ready and breakpoint hits resume in
 *	it, so that no CPU enters the rest of the region any more; waiting
 *	for the grace periods that let the jump be written
 * @KPROBE_OPT_OPTIMIZED: the jump to the detour is in the text
 *
 * See kernel/kprobes_optimizer.c for the transitions.
 */
enum kprobe_opt_state {
	KPROBE_OPT_NONE,
	KPROBE_OPT_QUEUED,
	KPROBE_OPT_DIVERTING,
	KPROBE_OPT_OPTIMIZED,
};

/**
 * enum kprobe_opt_refusal - why the arch cannot optimize a point
 * @KPROBE_OPT_UNTRIED: not refused (or not looked at yet)
 * @KPROBE_OPT_CROSSES_FUNCTION: the region would leave the function
 * @KPROBE_OPT_UNRELOCATABLE: an instruction in the region cannot run in
 *	the detour
 * @KPROBE_OPT_EXTABLE: an instruction in the region has an exception
 *	table entry, or a fixup lands in it
 * @KPROBE_OPT_JUMP_INTO: a branch of the function targets the inside of
 *	the region
 * @KPROBE_OPT_INDIRECT_JUMP: the function has an indirect jump whose
 *	targets cannot be known
 * @KPROBE_OPT_RESERVED: the region overlaps text another subsystem
 *	patches (jump label, static call, alternatives, ftrace) or a BUG site
 * @KPROBE_OPT_NO_DETOUR: no memory for a detour within reach
 * @KPROBE_OPT_IDLE: the point is in the idle loop's text (cpu_in_idle()),
 *	which may run with interrupts on while RCU does not watch, nor
 *	RCU-tasks wait for the idle task: no grace period would tell that a
 *	CPU has left the region or the detour
 */
enum kprobe_opt_refusal {
	KPROBE_OPT_UNTRIED,
	KPROBE_OPT_CROSSES_FUNCTION,
	KPROBE_OPT_UNRELOCATABLE,
	KPROBE_OPT_EXTABLE,
	KPROBE_OPT_JUMP_INTO,
	KPROBE_OPT_INDIRECT_JUMP,
	KPROBE_OPT_RESERVED,
	KPROBE_OPT_NO_DETOUR,
	KPROBE_OPT_IDLE,
};

/**
 * enum kprobe_ftrace_ops - which ftrace_ops serves a point on an ftrace site
 * @KPROBE_FTRACE_OPS_PLAIN: the ftrace_ops of the probes that leave the
 *	function's instruction pointer to others (livepatch)
 * @KPROBE_FTRACE_OPS_IPMODIFY: the one that claims it, for a point with a
 *	post_handler
 * @KPROBE_FTRACE_OPS_MOVING: the point is in both filters, on its way
 *	from one to the other, and neither serves it: its hits are missed
 *
 * See kernel/kprobes_ftrace.c.
 */
enum kprobe_ftrace_ops {
	KPROBE_FTRACE_OPS_PLAIN,
	KPROBE_FTRACE_OPS_IPMODIFY,
	KPROBE_FTRACE_OPS_MOVING,
};

/**
 * struct kprobe_point - everything registered on one address
 * @hnode: entries in the lookup hash; the table in use links one of them
 *	and a resize links the other (kprobe_mutex; RCU for the hit path)
 * @node: entry in the list of all points (kprobe_mutex)
 * @probes: the kprobes on @addr, in registration order (kprobe_mutex; RCU)
 * @addr: the probed address (immutable)
 * @opcode: the original byte(s) the breakpoint replaced (immutable)
 * @armed: the breakpoint is in the text, or the point is in its
 *	ftrace_ops' filter (kprobe_mutex)
 * @ftrace: @addr is an ftrace call site: the point is served by ftrace,
 *	not by a breakpoint (immutable)
 * @ftrace_ops: which of kprobes' two ftrace_ops serves the point's hits,
 *	&enum kprobe_ftrace_ops (kprobe_mutex; read locklessly by the hit path)
 * @text_going: the text under @addr is about to be freed: the point is
 *	never armed, optimized or dispatched to again (kprobe_mutex)
 * @gone: the text under @addr is being or was freed, and no CPU can trap
 *	on the point any more; it stays hashed so that its kprobes can be
 *	found, but never matches a hit (kprobe_mutex; read locklessly by the
 *	hit path)
 * @retired: unhashed, waiting to be freed (kprobe_mutex)
 * @solo: the kprobe a hit runs without walking @probes: set when exactly
 *	one kprobe of the point is enabled and it has a pre_handler, else
 *	NULL (kprobe_mutex; read locklessly by the hit path, published with
 *	release semantics)
 * @many: when there is no @solo, the point's enabled kprobes for a hit to
 *	run (kprobe_mutex; RCU for the hit path; NULL if none is enabled, one
 *	has no pre_handler, or there was no memory for it: a hit then walks
 *	@probes)
 * @post: an enabled kprobe of the point has a post_handler (kprobe_mutex;
 *	read locklessly by the hit path)
 * @counts: its hits, by kind, per CPU (each CPU increments its own)
 * @ainsn: the arch's replay of the probed instruction (immutable)
 * @opt_state: &enum kprobe_opt_state (kprobe_mutex; read locklessly by
 *	the hit path)
 * @opt_refused: &enum kprobe_opt_refusal, once the arch looked (kprobe_mutex)
 * @opt_len: bytes of text the jump replaces, once prepared (kprobe_mutex)
 * @opt_back: bytes of its function before it, at most KPROBE_OPT_MAX_LEN
 *	- 1: where a point whose region covers it can be (immutable)
 * @opt_near: another point was found within KPROBE_OPT_MAX_LEN bytes when
 *	one of the two was hashed; until then no neighbour can block the
 *	point or be blocked by it (kprobe_mutex)
 * @opt_vacating: the point left DIVERTING or OPTIMIZED since the last wait
 *	for the tasks in its detour: some may still be inside (kprobe_mutex)
 * @opt_node: entry in the optimizer's queue (kprobe_mutex)
 * @opt: the arch's detour (kprobe_mutex; immutable while not NONE)
 * @gone_where: where @addr was, "symbol+0xoffset" and "  [module]", as
 *	kallsyms told just before the text was freed; NULL if it could not
 *	(kprobe_mutex)
 *
 * Private to the kprobes core and the arch backends.
 */
struct kprobe_point {
	struct hlist_node hnode[2];
	struct list_head node;
	struct list_head probes;
	kprobe_opcode_t *addr;
	kprobe_opcode_t opcode;
	bool armed;
	bool ftrace;
	u8 ftrace_ops;
	bool text_going;
	bool gone;
	bool retired;
	bool post;
	struct kprobe *solo;
	struct kprobe_dispatch __rcu *many;
	struct kprobe_hit_counts __percpu *counts;
	struct arch_specific_insn ainsn;
#ifdef CONFIG_OPTPROBES
	u8 opt_state;
	u8 opt_refused;
	u8 opt_len;
	u8 opt_back;
	bool opt_near;
	bool opt_vacating;
	struct list_head opt_node;
	struct arch_optimized_insn opt;
#endif
	char *gone_where;
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
 * Only the owning CPU touches it, with preemption disabled.  @point is
 * NULL whenever the CPU is not replaying an instruction: every end of a
 * replay, or of a nested one, clears it or gives the outer hit's back.
 * @status only means something while @point is set, and is never left at
 * KPROBE_REENTER (the end of a nested replay restores the outer status).
 * So a hit that replays nothing (handlers only: optimized, redirected,
 * the kretprobe trampoline) writes neither, and one that replays sets
 * both just before it does (the x86 ftrace callback, whose "replay" is
 * the post_handlers' view of the call, sets @status alone).
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

/* kprobe_busy_begin() and kprobe_busy_end(), inline for the hit paths */
static nokprobe_inline void __kprobe_busy_begin(void)
{
	preempt_disable();
	__this_cpu_write(current_kprobe, &kprobe_busy);
}

static nokprobe_inline void __kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}

struct kprobe_point *kprobe_point_lookup(kprobe_opcode_t *addr);
#define KPROBE_PRE_REDIRECTED	1
#define KPROBE_PRE_NEED_POST	2
int __kprobe_run_pre_handlers(struct kprobe_point *kpp, struct pt_regs *regs);
void __kprobe_run_post_handlers(struct kprobe_point *kpp, struct pt_regs *regs);
bool kprobe_enter_nested(struct kprobe_ctlblk *kcb);
void __kprobe_resume_outer_hit(struct kprobe_ctlblk *kcb);
void kprobe_point_missed(struct kprobe_point *kpp);

/*
 * The hit counters (kprobe_point.counts, kprobe.hits) are per CPU, and
 * every hit path counts with interrupts masked on this CPU: the breakpoint
 * exception masks them, the detours and the ftrace callback mask them
 * themselves.  Nothing but an NMI can come between a count's load and its
 * store, so the raw increment is enough; this_cpu_inc() would wrap it,
 * where a per-CPU add is more than one instruction (arm64), in a
 * preemption toggle that costs about ten instructions per count with
 * CONFIG_PREEMPT.  The price is that a count may be lost where an NMI
 * hits a probe inside that window on such an arch: these are statistics
 * (kprobes/stats), not the kprobe's nmissed.
 */
static nokprobe_inline void kprobe_count(unsigned long __percpu *counter)
{
	raw_cpu_inc(*counter);
}

/* Count a hit on @kpp, on this CPU */
static nokprobe_inline void kprobe_count_hit(struct kprobe_point *kpp,
					     enum kprobe_hit_kind kind)
{
	kprobe_count(&kpp->counts->n[kind]);
}

/*
 * The pre_handler of a point's solo kprobe; current_kprobe is left at @p.
 * Returns what the pre_handler returned (non-zero: it redirected).
 */
static nokprobe_inline int kprobe_run_solo(struct kprobe *p,
					   struct pt_regs *regs)
{
	__this_cpu_write(current_kprobe, p);
	kprobe_count(p->hits);
	return p->pre_handler(p, regs);
}

/*
 * Run the pre_handlers of @kpp: its solo kprobe (&kprobe_point.solo, the
 * only one enabled) without walking the list, or
 * __kprobe_run_pre_handlers() for the others.  current_kprobe is set
 * before anything that can be probed runs, so a hit in there only counts
 * a miss; it is left on the kprobe that redirected, else on the last one
 * that ran, or on &kprobe_busy where none did: never NULL, so that a hit
 * from an NMI before the caller ends the hit is a nested one, which
 * leaves the control block alone.
 *
 * Return: KPROBE_PRE_REDIRECTED if a pre_handler redirected (the remaining
 * kprobes are then skipped), else KPROBE_PRE_NEED_POST if an enabled
 * kprobe has a post_handler, else 0.
 */
static nokprobe_inline int kprobe_dispatch_pre_handlers(struct kprobe_point *kpp,
							struct pt_regs *regs)
{
	/* Pairs with the release in kprobe_point_update_dispatch_locked(). */
	struct kprobe *p = READ_ONCE(kpp->solo);

	if (unlikely(!p)) {
		if (__kprobe_run_pre_handlers(kpp, regs))
			return KPROBE_PRE_REDIRECTED;
		/* Kept up to date with the list, not found on the way */
		return READ_ONCE(kpp->post) ? KPROBE_PRE_NEED_POST : 0;
	}
	if (unlikely(kprobe_run_solo(p, regs)))
		return KPROBE_PRE_REDIRECTED;
	return p->post_handler ? KPROBE_PRE_NEED_POST : 0;
}

/**
 * kprobe_hit_end() - end a hit, or a nested hit, with no post_handlers
 * @kcb: this CPU's control block
 *
 * For a replay that leaves kprobes at once (boosted, or simulated without
 * post_handlers) and for a fault in the stepped copy.  A nested hit gives
 * the CPU back to the outer one.
 *
 * Context: breakpoint exception or fault, preemption disabled.
 */
static nokprobe_inline void kprobe_hit_end(struct kprobe_ctlblk *kcb)
{
	kcb->point = NULL;
	if (unlikely(kcb->status == KPROBE_REENTER))
		__kprobe_resume_outer_hit(kcb);
	else
		reset_current_kprobe();
}

static nokprobe_inline void kprobe_run_post_handler(struct kprobe *p,
						    struct pt_regs *regs)
{
	__this_cpu_write(current_kprobe, p);
	p->post_handler(p, regs, 0);
}

/**
 * kprobe_replay_done() - the probed instruction has been replayed
 * @kpp: the point
 * @regs: the context after the instruction
 * @kcb: this CPU's control block
 *
 * Runs the post_handlers (not for a nested hit): the solo kprobe's
 * without walking the list, as kprobe_dispatch_pre_handlers() ran its
 * pre_handler; then ends the hit.
 *
 * Context: breakpoint exception, preemption disabled.
 */
static nokprobe_inline void kprobe_replay_done(struct kprobe_point *kpp,
					       struct pt_regs *regs,
					       struct kprobe_ctlblk *kcb)
{
	struct kprobe *p;

	if (kcb->status != KPROBE_REENTER) {
		kcb->status = KPROBE_HIT_SSDONE;
		/* Pairs with the release in kprobe_point_update_dispatch_locked(). */
		p = READ_ONCE(kpp->solo);
		if (unlikely(!p))
			__kprobe_run_post_handlers(kpp, regs);
		else if (p->post_handler)
			kprobe_run_post_handler(p, regs);
	}
	kprobe_hit_end(kcb);
}

/**
 * kprobe_run_pre_handlers() - run the pre_handlers of a point's kprobes
 * @kpp: the point that was hit
 * @regs: the probed context
 * @need_post: set to whether an enabled kprobe of @kpp has a post_handler,
 *	so the replay must end with a trap (when no handler redirected)
 *
 * See kprobe_dispatch_pre_handlers(); current_kprobe is left on
 * &kprobe_busy unless a handler redirected.
 *
 * Context: hit path, preemption disabled.
 * Return: true if a pre_handler changed the instruction pointer and asked
 * not to replay the instruction.
 */
static nokprobe_inline bool kprobe_run_pre_handlers(struct kprobe_point *kpp,
						    struct pt_regs *regs,
						    bool *need_post)
{
	int ret = kprobe_dispatch_pre_handlers(kpp, regs);

	*need_post = ret == KPROBE_PRE_NEED_POST;
	if (ret == KPROBE_PRE_REDIRECTED)
		return true;
	__this_cpu_write(current_kprobe, &kprobe_busy);
	return false;
}

/*
 * A hit that comes without an exception (through ftrace, an optimized
 * detour, or the return trampoline) may come from code that runs while RCU
 * is not watching this CPU: the idle loop between ct_idle_enter() and
 * ct_idle_exit(), with interrupts on or off.  The handlers and the core
 * rely on RCU, as on a breakpoint hit, whose exception entry makes RCU
 * watch with ct_nmi_enter(); do the same for the hit, with interrupts
 * disabled as there.  (Enabled, an interrupt could end the idle state under
 * the hit; and an irq-state change inside the hit, such as a handler's
 * local_irq_restore() under rcu_read_lock(), would record lockdep's
 * hardirq chain key with a lock held, which the idle loop's
 * lockdep_hardirqs_on() then finds changed.)  ct_nmi_enter() nests and is
 * noinstr, so no probe can be on it.  The test is inline, a per-CPU read:
 * the caller has preemption disabled.  Returns whether it entered: pass
 * that, and @flags, to kprobe_rcu_exit().
 */
static nokprobe_inline bool kprobe_rcu_watching(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	/* !rcu_dynticks_curr_cpu_in_eqs(), in one per-CPU access */
	return __this_cpu_read(context_tracking.state.counter) &
	       RCU_DYNTICKS_IDX;
#else
	return true;
#endif
}

/*
 * A hit without an exception (x86 detour, ftrace) masks interrupts, as the
 * breakpoint exception would, and tells lockdep as irqentry_nmi_enter()
 * does: lockdep's view may differ from the flags (the idle loop has them
 * masked while lockdep counts them on).  Returns whether lockdep's view
 * went from on to off, for kprobe_lockdep_irqs_restore(), which turns it
 * back on only then.  lockdep_hardirqs_off() leaves it on inside lockdep
 * (lockdep_recursion), in an NMI without TRACE_IRQFLAGS_NMI, and once
 * lockdep is off; the restore calls lockdep_hardirqs_on_prepare(), which
 * may be probed, and its hit, back here with lockdep still on, would
 * restore again: a recursion until the stack overflowed (seen with probes
 * on it and on __lock_acquire(), whose handler runs inside lockdep).
 * Both compile to nothing without lockdep.
 */
static __always_inline bool kprobe_lockdep_irqs_off(void)
{
	bool on = lockdep_hardirqs_enabled();

	lockdep_hardirqs_off(CALLER_ADDR0);
	return on && !lockdep_hardirqs_enabled();
}

static __always_inline void kprobe_lockdep_irqs_restore(bool turned_off)
{
	if (turned_off) {
		lockdep_hardirqs_on_prepare();
		lockdep_hardirqs_on(CALLER_ADDR0);
	}
}

static nokprobe_inline bool kprobe_rcu_enter(unsigned long *flags)
{
	if (likely(kprobe_rcu_watching()))
		return false;
	raw_local_irq_save(*flags);
	ct_nmi_enter();
	return true;
}

static nokprobe_inline void kprobe_rcu_exit(bool entered, unsigned long flags)
{
	if (likely(!entered))
		return;
	ct_nmi_exit();
	raw_local_irq_restore(flags);
}

/* Is this CPU between sending the CPU into a stepped copy and its end? */
static inline bool kprobe_in_step(struct kprobe_ctlblk *kcb)
{
	return kcb->point && (kcb->status == KPROBE_HIT_SS ||
			      kcb->status == KPROBE_REENTER);
}

/* The instruction slot cache: executable memory near the kernel text */
kprobe_opcode_t *get_insn_slot(void);
void free_insn_slot(kprobe_opcode_t *slot);
/* The pages it carves slots from, for an arch's code of its own too */
struct kprobe_code_page;
struct kprobe_code_page *kprobe_code_page_alloc(const char *sym, int fill);
void kprobe_code_page_free(struct kprobe_code_page *page);
void *kprobe_code_page_addr(const struct kprobe_code_page *page);

/* What each arch provides; called with kprobe_mutex held unless noted */
int arch_init_kprobes(void);
/* From die(), see kprobes_oops_notify() */
void arch_kprobe_abandon_hit(struct pt_regs *regs, struct kprobe_ctlblk *kcb);
int arch_prepare_kprobe_point(struct kprobe_point *kpp);
void arch_remove_kprobe_point(struct kprobe_point *kpp);
void arch_arm_kprobe_point(struct kprobe_point *kpp);
void arch_disarm_kprobe_point(struct kprobe_point *kpp);
void arch_kprobes_commit(void);
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset);
bool arch_kprobe_text_reserved(kprobe_opcode_t *addr);
int arch_populate_kprobe_blacklist(void);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);
int kprobe_blacklist_add_functions(const char * const *names, unsigned int nr);
bool kprobe_jump_label_reserved(unsigned long start, unsigned long end);
unsigned long kprobe_cold_part(unsigned long func);

#ifdef CONFIG_OPTPROBES
/* Jump optimization, see kernel/kprobes_optimizer.c */
extern int sysctl_kprobes_optimization;
int arch_prepare_optimized_kprobe_point(struct kprobe_point *kpp);
void arch_remove_optimized_kprobe_point(struct kprobe_point *kpp);
void arch_optimize_kprobe_points(struct list_head *points);
void arch_unoptimize_kprobe_points(struct list_head *points);
int arch_kprobe_opt_region_len(struct kprobe_point *kpp);

bool kprobe_opt_hit_slow(struct kprobe_point *kpp, struct pt_regs *regs);
/* For the KUnit tests: batches of jumps written or removed */
unsigned long kprobe_opt_batches(bool removed);
bool kprobe_opt_hold_seen(kprobe_opcode_t *addr);

/*
 * An optimized hit, once RCU watches and no other hit is in progress.
 * Returns as kprobe_opt_hit(); an int, not a bool, so that the solo
 * kprobe's pre_handler's return is tested as it comes.
 */
static nokprobe_inline int __kprobe_opt_hit(struct kprobe_point *kpp,
					    struct pt_regs *regs)
{
	/* Pairs with the release in kprobe_point_update_dispatch_locked(). */
	struct kprobe *p = READ_ONCE(kpp->solo);
	int redirected;

	kprobe_count_hit(kpp, KPROBE_HIT_OPTIMIZED);
	/*
	 * Interrupts are masked, so nothing preempts the handlers; the
	 * count says so too, as on a breakpoint hit: in_atomic(), so that
	 * a handler's user access that faults fails instead of sleeping.
	 * No reschedule on the way out, with interrupts masked.
	 */
	preempt_disable_notrace();
	/*
	 * No replay, so kprobe_ctlblk is left alone (see there), and no
	 * post_handler to ask for: the point would not be optimized.
	 */
	if (likely(p))
		redirected = kprobe_run_solo(p, regs);
	else
		redirected = __kprobe_run_pre_handlers(kpp, regs);
	reset_current_kprobe();
	/* preempt_enable_no_resched_notrace(), a name modules may not use */
#ifdef CONFIG_PREEMPT_COUNT
	barrier();
	__preempt_count_dec();
#endif
	return redirected;
}

/**
 * kprobe_opt_hit() - a CPU came through a point's detour
 * @kpp: the point
 * @regs: the registers saved by the detour, looking as on a breakpoint hit
 *
 * Inline, as it is the whole of an optimized hit but for the arch's
 * register save and restore; the rare cases (RCU not watching, a hit
 * inside another) go to kprobe_opt_hit_slow().
 *
 * Context: the arch's detour callback, preemption disabled.
 * Return: non-zero if a pre_handler changed the instruction pointer and
 * asked to resume there instead of running the replaced instructions.
 */
static nokprobe_inline int kprobe_opt_hit(struct kprobe_point *kpp,
					  struct pt_regs *regs)
{
	if (unlikely(!kprobe_rcu_watching() || kprobe_running()))
		return kprobe_opt_hit_slow(kpp, regs);
	return __kprobe_opt_hit(kpp, regs);
}

/* Must a breakpoint hit on @kpp resume in its detour? */
static nokprobe_inline bool kprobe_opt_diverts(struct kprobe_point *kpp)
{
	return READ_ONCE(kpp->opt_state) >= KPROBE_OPT_DIVERTING;
}
#else
static nokprobe_inline bool kprobe_opt_diverts(struct kprobe_point *kpp)
{
	return false;
}
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
/* The arch's ftrace callback for probes on ftrace call sites */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);

/*
 * Does a call of the ftrace callback through @ops serve a hit on @kpp?  A
 * point on its way between the two ftrace_ops is in both filters, and
 * ftrace calls the callback once for each (see kernel/kprobes_ftrace.c):
 * neither serves it then, and the call through kprobe_ipmodify_ops alone
 * counts the miss.
 */
static nokprobe_inline bool kprobe_ftrace_serves(struct kprobe_point *kpp,
						 struct ftrace_ops *ops)
{
	bool ipmodify = ops->flags & FTRACE_OPS_FL_IPMODIFY;
	u8 state = READ_ONCE(kpp->ftrace_ops);

	if (likely(state == (ipmodify ? KPROBE_FTRACE_OPS_IPMODIFY :
					KPROBE_FTRACE_OPS_PLAIN)))
		return true;
	if (state == KPROBE_FTRACE_OPS_MOVING && ipmodify)
		kprobe_point_missed(kpp);
	return false;
}
#endif

#else /* !CONFIG_KPROBES */

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
 * For kernel_text_address(): every page of kprobes' code, detours
 * included, is one that is_kprobe_insn_slot() knows.
 */
static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

/*
 * Return probes.  The API is declared for every configuration so that its
 * users build; it works where the architecture selects HAVE_KRETPROBES.
 * The structures need struct kprobe: they exist with CONFIG_KPROBES.
 */

/* Most private data an instance may carry (register_kretprobe()) */
#define KRETPROBE_MAX_DATA_SIZE	4096

struct kretprobe;

#ifdef CONFIG_KPROBES
/**
 * struct kretprobe_pool - the instances of one kretprobe
 * @rp: the kretprobe; NULL once it is unregistered (see "Instance pool"
 *	in kernel/kretprobes.c for the ordering of this store)
 * @free: per-CPU lists of free instances
 * @chunks: the memory of all instances, one chunk per allocation
 *	(@grow_lock)
 * @size: bytes per instance (immutable)
 * @nr_instances: how many there are (@grow_lock; read locklessly by the
 *	hit path)
 * @limit: how many there may be (immutable)
 * @grow_after: the jiffies before which no hit asks for more instances:
 *	growth found too few in use (written by the growth work; read
 *	locklessly by the hit path)
 * @detached: the kretprobe is unregistered: the pool does not grow
 *	(@grow_lock)
 * @refs: after unregistration, the instances not yet given back, plus one
 *	held by the unregistration until it has collected the free ones
 * @grow_lock: serializes growing with itself and with unregistration
 * @grow_irq_work: asks for more instances from the hit path (maybe NMI)
 * @grow_work: allocates them, in process context
 * @release_irq_work: leaves the context of the last give-back (maybe NMI)
 * @rcu: frees the pool after a grace period: unwinders walk instances
 *	under RCU (kretprobe_find_ret_addr())
 *
 * Private to kernel/kretprobes.c; here only for get_kretprobe().
 */
struct kretprobe_pool {
	struct kretprobe *rp;
	struct llist_head __percpu *free;
	struct list_head chunks;
	size_t size;
	int nr_instances;
	int limit;
	unsigned long grow_after;
	bool detached;
	atomic_t refs;
	/* Growth against itself and unregistration */
	struct mutex grow_lock;
	struct irq_work grow_irq_work;
	struct work_struct grow_work;
	struct irq_work release_irq_work;
	struct rcu_head rcu;
};

/* How far a pool may grow when the kretprobe does not say */
#define KRETPROBE_DEFAULT_LIMIT	4096

/**
 * struct kretprobe - a probe on the return of a function
 * @kp: the entry probe; set its addr or symbol_name (a function entry)
 * @handler: runs when the function returns
 * @entry_handler: runs on entry; a non-zero return skips @handler for
 *	this call (read at registration: set it before)
 * @maxactive: how many calls can be tracked at once, to begin with; <= 0
 *	asks for the default, max(10, 2 * possible CPUs), which registration
 *	writes back
 * @maxactive_limit: how many calls the pool may grow to track when they
 *	outnumber @maxactive: 0 for KRETPROBE_DEFAULT_LIMIT (or @maxactive
 *	if larger), a negative value to never grow
 * @nmissed: calls that found no free instance (or found the trampoline
 *	already in the return slot but no instance of the task there)
 * @data_size: bytes of private data in each instance
 * @pool: the instances (private; set while registered)
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int maxactive_limit;
	int nmissed;
	size_t data_size;
	struct kretprobe_pool *pool;
};

/**
 * struct kretprobe_instance - one tracked call of a kretprobed function
 * @llist: entry in the pool's free list, or the task's list while in use
 * @pool: the pool it belongs to
 * @ret_addr: where the function returns to
 * @fp: where on the stack the return address was; NULL while the
 *	instance is free.  Bit 0 is set if that return address was already
 *	the trampoline's (a tail call out of another kretprobed function, or
 *	a second kretprobe on the function): the function returns through
 *	an older instance of the same frame, and @ret_addr is that one's
 * @data: private to the handlers, &struct kretprobe data_size bytes
 */
struct kretprobe_instance {
	struct llist_node llist;
	struct kretprobe_pool *pool;
	kprobe_opcode_t *ret_addr;
	void *fp;
	char data[] __aligned(sizeof(long));
};

/*
 * Return hooks other than kretprobes that may take a return before a
 * kretprobe does: the address it saves is then their trampoline's.
 */
#ifdef CONFIG_KRETPROBES
#if defined(CONFIG_RETHOOK) || defined(CONFIG_FUNCTION_GRAPH_TRACER)
#define KRETPROBE_OTHER_RETURN_HOOKS
#endif
#endif
#ifdef KRETPROBE_OTHER_RETURN_HOOKS
unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri);
#else
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
#endif
#endif /* CONFIG_KPROBES */

#ifdef CONFIG_KRETPROBES
int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);
int enable_kretprobe(struct kretprobe *rp);
int disable_kretprobe(struct kretprobe *rp);
void kprobe_flush_task(struct task_struct *tk);
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur);

/**
 * get_kretprobe() - the kretprobe an instance belongs to
 * @ri: an instance, as passed to a handler
 *
 * Context: a kretprobe handler, or under rcu_read_lock().
 * Return: the kretprobe, or NULL once it has been unregistered.
 */
static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "kretprobe instance used outside RCU");
	return READ_ONCE(ri->pool->rp);
}

/* Between the core and the arch's return trampoline */
void kretprobe_trampoline(void);
void kretprobe_trampoline_handler(struct pt_regs *regs, void *fp);
void kretprobe_lost_return(void);

/*
 * Functions a kretprobe must not be put on, because their return cannot be
 * diverted: they return on another task or stack than they were entered
 * on, are not called as functions, or return twice (NULL-terminated, from
 * the arch; compiler-made copies such as "name.part.0" are refused too).
 */
extern const char * const arch_kretprobe_blacklist[];

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

#ifdef CONFIG_OPTPROBES
void wait_for_kprobe_optimizer(void);
#else
/**
 * wait_for_kprobe_optimizer() - wait until queued (un)optimizations are done
 *
 * Context: process context, may sleep.
 */
static inline void wait_for_kprobe_optimizer(void)
{
}
#endif

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
