/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the parts of the x86 kprobes backend share: reading and decoding
 * probed text (core.c) for the jump optimizer (opt.c).  rethook.c, built
 * with or without CONFIG_KPROBES, includes this header too, for its
 * register save and restore macros at the end.
 */
#ifndef _X86_KERNEL_KPROBES_COMMON_H
#define _X86_KERNEL_KPROBES_COMMON_H

#include <linux/kprobes.h>
#include <asm/alternative.h>
#include <asm/insn.h>

#ifdef CONFIG_KPROBES
int x86_read_text(u8 *buf, unsigned long addr, size_t len);
int x86_read_original_insn(u8 *buf, unsigned long addr);
int x86_classify_insn(struct insn *insn, struct arch_specific_insn *ai);
int x86_copy_insn(u8 *copy, const u8 *buf, struct insn *insn,
		  kprobe_opcode_t *orig, kprobe_opcode_t *where);
unsigned long x86_opt_resume_addr(struct kprobe_point *kpp);
void x86_queue_poke(void *addr, const void *old, const void *bytes,
		    size_t len);
void x86_write_pokes(void);
void x86_slot_write(void *slot, const void *code, size_t len);
void x86_slot_free(void *slot);

/* opt_entry.S and its C half */
void kprobe_opt_entry(void);
__visible int kprobe_opt_callback(struct pt_regs *regs);
__visible void kprobe_opt_resume_elsewhere(struct pt_regs *regs,
					   int redirected);

/* The kernel's exception table (the modules' hang off struct module) */
extern struct exception_table_entry __start___ex_table[];
extern struct exception_table_entry __stop___ex_table[];

/* The kernel's alternatives, init data (apply_alternatives() uses them) */
extern struct alt_instr __alt_instructions[], __alt_instructions_end[];
#endif /* CONFIG_KPROBES */

/*
 * For arch/x86/kernel/rethook.c, fprobe's return trampoline, which
 * includes this header: it pushes ss, sp and flags, then
 * SAVE_REGS_STRING completes a struct pt_regs below them (the slots of
 * cs, ip and orig_ax, and of the segment registers on 32-bit, are left
 * for its C callback to fill in).  RESTORE_REGS_STRING reloads the
 * general registers and leaves the stack pointer at the flags slot.
 */
#ifdef CONFIG_X86_64
#define SAVE_REGS_STRING			\
	"	subq $24, %rsp\n"		\
	"	pushq %rdi\n"			\
	"	pushq %rsi\n"			\
	"	pushq %rdx\n"			\
	"	pushq %rcx\n"			\
	"	pushq %rax\n"			\
	"	pushq %r8\n"			\
	"	pushq %r9\n"			\
	"	pushq %r10\n"			\
	"	pushq %r11\n"			\
	"	pushq %rbx\n"			\
	"	pushq %rbp\n"			\
	"	pushq %r12\n"			\
	"	pushq %r13\n"			\
	"	pushq %r14\n"			\
	"	pushq %r15\n"
#define RESTORE_REGS_STRING			\
	"	popq %r15\n"			\
	"	popq %r14\n"			\
	"	popq %r13\n"			\
	"	popq %r12\n"			\
	"	popq %rbp\n"			\
	"	popq %rbx\n"			\
	"	popq %r11\n"			\
	"	popq %r10\n"			\
	"	popq %r9\n"			\
	"	popq %r8\n"			\
	"	popq %rax\n"			\
	"	popq %rcx\n"			\
	"	popq %rdx\n"			\
	"	popq %rsi\n"			\
	"	popq %rdi\n"			\
	"	addq $24, %rsp\n"
#else
#define SAVE_REGS_STRING			\
	"	subl $16, %esp\n"		\
	"	pushl %fs\n"			\
	"	pushl %es\n"			\
	"	pushl %ds\n"			\
	"	pushl %eax\n"			\
	"	pushl %ebp\n"			\
	"	pushl %edi\n"			\
	"	pushl %esi\n"			\
	"	pushl %edx\n"			\
	"	pushl %ecx\n"			\
	"	pushl %ebx\n"
#define RESTORE_REGS_STRING			\
	"	popl %ebx\n"			\
	"	popl %ecx\n"			\
	"	popl %edx\n"			\
	"	popl %esi\n"			\
	"	popl %edi\n"			\
	"	popl %ebp\n"			\
	"	popl %eax\n"			\
	"	addl $28, %esp\n"
#endif

#endif /* _X86_KERNEL_KPROBES_COMMON_H */
