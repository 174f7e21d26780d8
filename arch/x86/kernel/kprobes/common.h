/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the parts of the x86 kprobes backend share: reading and decoding
 * probed text (core.c) for the jump optimizer (opt.c).
 */
#ifndef _X86_KERNEL_KPROBES_COMMON_H
#define _X86_KERNEL_KPROBES_COMMON_H

#include <linux/kprobes.h>
#include <asm/insn.h>

int x86_read_text(u8 *buf, unsigned long addr, size_t len);
int x86_read_original_insn(u8 *buf, unsigned long addr);
int x86_classify_insn(struct insn *insn, struct arch_specific_insn *ai);
int x86_copy_insn(u8 *copy, const u8 *buf, struct insn *insn,
		  kprobe_opcode_t *orig, kprobe_opcode_t *where);
unsigned long x86_opt_resume_addr(struct kprobe_point *kpp);

/* opt_entry.S and its C half */
void kprobe_opt_entry(void);
__visible void kprobe_opt_callback(struct pt_regs *regs);

/* The kernel's exception table (the modules' hang off struct module) */
extern struct exception_table_entry __start___ex_table[];
extern struct exception_table_entry __stop___ex_table[];

#endif /* _X86_KERNEL_KPROBES_COMMON_H */
