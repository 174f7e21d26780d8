// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_target: a module with a function to probe, for showing what
 * happens to a probe whose module goes away.
 *
 *	insmod kprobe_target.ko
 *	insmod kprobe_example.ko symbol=kprobe_target:kprobe_target_work
 *	rmmod kprobe_target	# the probe is now listed as [GONE]
 *	rmmod kprobe_example	# and can still be unregistered
 *
 * kprobe_target_work() runs when the module is loaded and when it is
 * unloaded.
 *
 * With async=1 its init also schedules work that runs init text after the
 * module went live.
 */

#include <linux/async.h>
#include <linux/delay.h>
#include <linux/module.h>

static bool async;
module_param(async, bool, 0444);
MODULE_PARM_DESC(async, "also run init code after the module is live");

/* Long enough for a jump to replace its first instructions (x86) */
static noinline __noipa int kprobe_target_work(int x)
{
	return x * 2 + (x >> 3) * 5;
}

/*
 * Init text that runs after the module has gone live: the loader waits for
 * async work before it frees the init text, so a probe here must be gone
 * (and its breakpoint lifted) by the time this runs.
 */
static noinline __noipa int __init kprobe_target_async_work(int x)
{
	return x + 1;
}

static void __init kprobe_target_async(void *data, async_cookie_t cookie)
{
	/* Long enough for the loader to announce the module live */
	msleep(100);
	kprobe_target_async_work(1);
}

static int __init kprobe_target_init(void)
{
	if (async)
		async_schedule(kprobe_target_async, NULL);
	return kprobe_target_work(0);
}

static void __exit kprobe_target_exit(void)
{
	/* A last hit for a probe on the way out */
	kprobe_target_work(1);
}

module_init(kprobe_target_init)
module_exit(kprobe_target_exit)
MODULE_DESCRIPTION("A function for kprobe_example to probe");
MODULE_LICENSE("GPL");
