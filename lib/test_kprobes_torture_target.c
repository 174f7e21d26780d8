// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The target of the kprobes torture test: a module that test_kprobes_torture
 * probes while a script loads and unloads it.  While loaded, a thread calls
 * ktt_target_work() in a loop, so that the probes on it are hit until the
 * text goes away.
 */

#define pr_fmt(fmt) "kprobes-torture-target: " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>

static struct task_struct *ktt_target_task;
static unsigned long ktt_target_bad;

/* The probed function; its name is what the torture test looks up. */
static noinline __noipa unsigned long ktt_target_work(unsigned long a)
{
	return a * 5 + 1;
}

static int ktt_target_fn(void *unused)
{
	unsigned long i;

	while (!kthread_should_stop()) {
		for (i = 0; i < 64; i++) {
			if (ktt_target_work(i) != i * 5 + 1)
				ktt_target_bad++;
		}
		usleep_range(100, 300);
	}
	return 0;
}

static int __init ktt_target_init(void)
{
	ktt_target_task = kthread_run(ktt_target_fn, NULL, "ktt_target");
	return PTR_ERR_OR_ZERO(ktt_target_task);
}

static void __exit ktt_target_exit(void)
{
	kthread_stop(ktt_target_task);
	if (ktt_target_bad)
		pr_err("%lu wrong results\n", ktt_target_bad);
}

module_init(ktt_target_init);
module_exit(ktt_target_exit);
MODULE_DESCRIPTION("target module of the kprobes torture test");
MODULE_LICENSE("GPL");
