/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the KUnit files of kprobes share (test_kprobes.c, test_kretprobes.c,
 * test_kprobes_opt.c, test_kprobes_ftrace.c): how they tell built-in from
 * module, and the helpers that are the same in each.
 */
#ifndef _LIB_TEST_KPROBES_H
#define _LIB_TEST_KPROBES_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#ifdef CONFIG_X86
#include <asm/ibt.h>
#include <asm/insn.h>
#endif

/* The tests built in can use the core's internals; as a module they skip. */
#define KPT_BUILTIN	IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)

/*
 * The x86 instruction decoder (insn_decode()) is not exported: as a module
 * the cases that find an instruction by decoding skip on x86.
 */
#define KPT_HAVE_DECODER	(KPT_BUILTIN || !IS_ENABLED(CONFIG_X86))
#define KPT_NO_DECODER		"the x86 instruction decoder is not exported"

/*
 * The offset of the second instruction of @fn, not counting an ENDBR (a
 * probe just past it is still on the function's entry); 0 if unknown.
 */
static inline unsigned int kpt_second_insn_offset(void *fn)
{
#ifdef CONFIG_X86
	unsigned int start = is_endbr(*(u32 *)fn) ? ENDBR_INSN_SIZE : 0;
	struct insn insn;

	if (!KPT_HAVE_DECODER || insn_decode_kernel(&insn, fn + start) < 0)
		return 0;
	return start + insn.length;
#else
	return 4;
#endif
}

/*
 * Whether the symbol of @addr, as sprint_symbol() prints it
 * ("name+0xoff/0xsize"), starts with @prefix: "fn+" for any address in fn,
 * "fn+0x0/" for its first byte.  kallsyms_lookup_name() is not exported.
 */
static inline bool kpt_sym_starts(unsigned long addr, const char *prefix)
{
	char name[KSYM_SYMBOL_LEN];

	sprint_symbol(name, addr);
	return !strncmp(name, prefix, strlen(prefix));
}

#ifdef MODULE
/*
 * Find this module's symbol named @name or, with @name NULL, the function
 * starting at *@addr; give its address and size.  Every symbol the tests
 * look up is their own file's.
 */
static inline bool kpt_module_sym(const char *name, unsigned long *addr,
				  unsigned long *size)
{
	const struct mod_kallsyms *ks;
	bool found = false;
	unsigned int i;

	preempt_disable();
	ks = rcu_dereference_sched(THIS_MODULE->kallsyms);
	for (i = 0; i < ks->num_symtab && !found; i++) {
		unsigned long value = kallsyms_symbol_value(&ks->symtab[i]);

		if (name ? !strcmp(ks->strtab + ks->symtab[i].st_name, name) :
			   value == *addr && ks->symtab[i].st_size) {
			*addr = value;
			*size = ks->symtab[i].st_size;
			found = true;
		}
	}
	preempt_enable();
	return found;
}
#endif

/* The description of a case of an array of names: the name */
/* Registration of @kp fails with @err; should it not, @kp does not stay. */
static inline void kpt_expect_refused(struct kunit *test, struct kprobe *kp,
				      int err)
{
	int ret = register_kprobe(kp);

	KUNIT_EXPECT_EQ(test, ret, err);
	if (!ret)
		unregister_kprobe(kp);
}

static inline void kpt_name_desc(const char * const *name, char *desc)
{
	strscpy(desc, *name, KUNIT_PARAM_DESC_SIZE);
}

/**
 * kpt_start_per_cpu() - run a function in a kthread on every online CPU
 * @test: the test case, which owns the returned array
 * @fn: the thread function; it polls a stop flag, then waits for
 *	kthread_should_stop() (see kpt_stop_per_cpu())
 * @namefmt: the threads' name, with one %u for the CPU
 *
 * Return: the threads, indexed by CPU (NULL where none started), for
 * kpt_stop_per_cpu(); NULL if there was no memory for the array.
 */
static inline struct task_struct **kpt_start_per_cpu(struct kunit *test,
						     int (*fn)(void *),
						     const char *namefmt)
{
	struct task_struct **tasks;
	int cpu;

	tasks = kunit_kcalloc(test, nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return NULL;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		tasks[cpu] = kthread_create_on_cpu(fn, NULL, cpu, namefmt);
		if (IS_ERR(tasks[cpu]))
			tasks[cpu] = NULL;
		else
			wake_up_process(tasks[cpu]);
	}
	cpus_read_unlock();
	return tasks;
}

/* Set @stop, which the threads of kpt_start_per_cpu() poll, and reap them. */
static inline void kpt_stop_per_cpu(struct task_struct **tasks, atomic_t *stop)
{
	int cpu;

	atomic_set(stop, 1);
	for_each_possible_cpu(cpu) {
		if (tasks[cpu])
			kthread_stop(tasks[cpu]);
	}
}

#endif /* _LIB_TEST_KPROBES_H */
