// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_nokprobe: a module with functions kprobes must refuse, for the
 * guest checks (harness/guest-checks.sh):
 *
 *  - a probe that waits for the module (a kprobe_events line on
 *    "kprobe_nokprobe:kpn_forbidden" written before the module is loaded)
 *    is refused when the module comes: the module's blacklist is known
 *    before trace_kprobe registers the probes that waited for it;
 *  - the blacklist entry of its init text (kpn_init_forbidden) goes with
 *    the init text, that of kpn_forbidden with the module.
 */

#include <linux/kprobes.h>
#include <linux/module.h>

static noinline __noipa int kpn_forbidden(int x)
{
	return x * 3 + 1;
}

NOKPROBE_SYMBOL(kpn_forbidden);

static noinline __noipa int __init kpn_init_forbidden(int x)
{
	return kpn_forbidden(x) - 1;
}

NOKPROBE_SYMBOL(kpn_init_forbidden);

static int __init kpn_init(void)
{
	return kpn_init_forbidden(0) ? -EINVAL : 0;
}

static void __exit kpn_exit(void)
{
	kpn_forbidden(1);
}

module_init(kpn_init)
module_exit(kpn_exit)
MODULE_DESCRIPTION("Functions kprobes must not probe, in a module");
MODULE_LICENSE("GPL");
