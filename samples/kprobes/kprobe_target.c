// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_target: a module with a function to probe, for showing what
 * happens to a probe whose module goes away.
 *
 *	insmod kprobe_target.ko
 *	insmod kprobe_example.ko symbol=kprobe_target:kprobe_target_work
 *	rmmod kprobe_target	# the probe is now listed as [GONE]
 *	rmmod kprobe_example	# and can still be unregistered
 */

#include <linux/module.h>

static noinline __noipa int kprobe_target_work(int x)
{
	return x * 2;
}

static int __init kprobe_target_init(void)
{
	return kprobe_target_work(0);
}

static void __exit kprobe_target_exit(void)
{
}

module_init(kprobe_target_init)
module_exit(kprobe_target_exit)
MODULE_DESCRIPTION("A function for kprobe_example to probe");
MODULE_LICENSE("GPL");
