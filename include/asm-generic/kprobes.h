/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_GENERIC_KPROBES_H
#define _ASM_GENERIC_KPROBES_H

/*
 * Markers that keep kprobes away from code that must never be probed.
 * Every architecture gets them, with or without CONFIG_KPROBES, so that
 * code can use them unconditionally.
 */

#if defined(__KERNEL__) && !defined(__ASSEMBLY__)
#ifdef CONFIG_KPROBES
/*
 * NOKPROBE_SYMBOL(fname) - refuse probes anywhere inside @fname.
 *
 * Records the address of @fname in the _kprobe_blacklist section, which
 * the linker script collects between __start_kprobe_blacklist and
 * __stop_kprobe_blacklist (and the module loader per module).
 *
 * The macro ends the declaration itself: code in the tree writes
 * NOKPROBE_SYMBOL(fname) without a semicolon.
 */
# define __NOKPROBE_SYMBOL(fname)				\
static unsigned long __used					\
	__section("_kprobe_blacklist")				\
	_kbl_addr_##fname = (unsigned long)fname;
# define NOKPROBE_SYMBOL(fname)	__NOKPROBE_SYMBOL(fname)
/* Place a function in .kprobes.text, which is refused as a whole. */
# define __kprobes	__section(".kprobes.text")
/* An inline helper of unprobeable code must never become a probe target. */
# define nokprobe_inline	__always_inline
#else
# define NOKPROBE_SYMBOL(fname)
# define __kprobes
# define nokprobe_inline	inline
#endif
#endif /* defined(__KERNEL__) && !defined(__ASSEMBLY__) */

#endif /* _ASM_GENERIC_KPROBES_H */
