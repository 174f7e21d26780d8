// SPDX-License-Identifier: GPL-2.0-only
/*
 * kretprobe_example: report what a kernel function returns, and how long
 * each call took.
 *
 *	insmod kretprobe_example.ko func=kernel_clone
 *
 * The entry handler stores the time of the call in the instance's private
 * data; the return handler prints the return value and the time spent.
 * The kretprobe starts with maxactive instances and grows when more calls
 * are in progress at once; calls that still find none are counted as
 * missed.
 */

#define pr_fmt(fmt) "%s: " fmt, __func__

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>

static char func[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func, sizeof(func), 0644);
MODULE_PARM_DESC(func, "the function whose returns are reported");

/* What each call keeps between entry and return */
struct call_data {
	u64 entry_ns;
};

static int entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_data *data = (struct call_data *)ri->data;

	/*
	 * Handlers run in the breakpoint exception, which is NMI-like: only
	 * the NMI-safe clocks may be read here.
	 */
	data->entry_ns = ktime_get_mono_fast_ns();
	/* Zero: report this call's return. */
	return 0;
}

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_data *data = (struct call_data *)ri->data;
	s64 delta = ktime_get_mono_fast_ns() - data->entry_ns;

	pr_info("%s returned %lu and took %lld ns\n", func,
		regs_return_value(regs), delta);
	return 0;
}

static struct kretprobe my_kretprobe = {
	.handler = ret_handler,
	.entry_handler = entry_handler,
	.data_size = sizeof(struct call_data),
	/* Up to 20 calls of func can be tracked at the same time. */
	.maxactive = 20,
};

static int __init kretprobe_init(void)
{
	int ret;

	my_kretprobe.kp.symbol_name = func;
	ret = register_kretprobe(&my_kretprobe);
	if (ret < 0) {
		pr_err("register_kretprobe(%s) failed: %d\n", func, ret);
		return ret;
	}
	pr_info("planted return probe at %s: %pS\n", func, my_kretprobe.kp.addr);
	return 0;
}

static void __exit kretprobe_exit(void)
{
	unregister_kretprobe(&my_kretprobe);
	pr_info("return probe at %s unregistered, missed %d calls\n", func,
		my_kretprobe.nmissed);
}

module_init(kretprobe_init)
module_exit(kretprobe_exit)
MODULE_DESCRIPTION("Report the return values and durations of a function's calls");
MODULE_LICENSE("GPL");
