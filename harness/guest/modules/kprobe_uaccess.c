// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_uaccess: a kprobe inside a user access window whose pre_handler
 * reads user memory itself (copy_from_user_nofault(), as a ustring fetch of
 * a kprobe event or bpf_probe_read_user() does), for the guest checks
 * (harness/guest-checks.sh).  kprobe_events cannot put it there on a
 * kernel with the function tracer: the copy routines are notrace.
 *
 * The default @symbol, arm64's __arch_copy_to_user(), runs between
 * uaccess_ttbr0_enable() and uaccess_ttbr0_disable() where the kernel
 * emulates PAN: its entry has no exception-table entry and is optimized.
 * The copy it interrupts must still reach user memory afterwards.
 */

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>

static char symbol[KSYM_NAME_LEN] = "__arch_copy_to_user";
module_param_string(symbol, symbol, sizeof(symbol), 0444);
MODULE_PARM_DESC(symbol, "a function called inside a user access window, its first argument a user pointer");

static unsigned long user_reads;
module_param(user_reads, ulong, 0444);
MODULE_PARM_DESC(user_reads, "hits whose read of user memory succeeded");

static int kpu_pre(struct kprobe *p, struct pt_regs *regs)
{
	const char __user *dst;
	char buf[8];

	dst = (const char __user *)regs_get_kernel_argument(regs, 0);
	if (!copy_from_user_nofault(buf, dst, sizeof(buf)))
		user_reads++;
	return 0;
}

static struct kprobe kpu_probe = {
	.symbol_name = symbol,
	.pre_handler = kpu_pre,
};

static int __init kpu_init(void)
{
	return register_kprobe(&kpu_probe);
}

static void __exit kpu_exit(void)
{
	unregister_kprobe(&kpu_probe);
}

module_init(kpu_init);
module_exit(kpu_exit);
MODULE_DESCRIPTION("A kprobe reading user memory inside a user access window");
MODULE_LICENSE("GPL");
