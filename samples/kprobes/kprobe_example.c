// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_example: log every call of a kernel function.
 *
 * Loading the module puts a kprobe on the first instruction of @symbol
 * (kernel_clone, which every fork goes through, unless told otherwise):
 *
 *	insmod kprobe_example.ko symbol=kernel_clone
 *
 * Each hit prints the probed address and a few registers from the
 * pre_handler, and the flags from the post_handler, which runs after the
 * probed instruction.  Unloading the module removes the probe.
 */

#define pr_fmt(fmt) "%s: " fmt, __func__

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, sizeof(symbol), 0644);
MODULE_PARM_DESC(symbol, "the function to probe");

static int handler_pre(struct kprobe *p, struct pt_regs *regs)
{
#ifdef CONFIG_X86
	pr_info("<%s> p->addr = %pS, ip = %lx, flags = 0x%lx\n",
		p->symbol_name, p->addr, regs->ip, regs->flags);
#endif
#ifdef CONFIG_ARM64
	pr_info("<%s> p->addr = %pS, pc = 0x%llx, pstate = 0x%llx\n",
		p->symbol_name, p->addr, regs->pc, regs->pstate);
#endif
	/* Zero: let kprobes replay the probed instruction. */
	return 0;
}

static void handler_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
#ifdef CONFIG_X86
	pr_info("<%s> p->addr = %pS, flags = 0x%lx\n",
		p->symbol_name, p->addr, regs->flags);
#endif
#ifdef CONFIG_ARM64
	pr_info("<%s> p->addr = %pS, pstate = 0x%llx\n",
		p->symbol_name, p->addr, regs->pstate);
#endif
}

static struct kprobe kp = {
	.symbol_name = symbol,
	.pre_handler = handler_pre,
	.post_handler = handler_post,
};

static int __init kprobe_init(void)
{
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		pr_err("register_kprobe(%s) failed: %d\n", symbol, ret);
		return ret;
	}
	pr_info("planted kprobe at %pS\n", kp.addr);
	return 0;
}

static void __exit kprobe_exit(void)
{
	unregister_kprobe(&kp);
	pr_info("kprobe at %pS unregistered, missed %lu hits\n", kp.addr,
		kp.nmissed);
}

module_init(kprobe_init)
module_exit(kprobe_exit)
MODULE_DESCRIPTION("Log the calls of a kernel function with a kprobe");
MODULE_LICENSE("GPL");
