/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probed targets of kprobes_bench.ko, in targets_$(SRCARCH).S: each is
 * int kpb_targetN(int x) { return x + 1; }, written in assembly so that
 * every kernel probes the same instructions.
 */
#ifndef KPROBES_BENCH_TARGETS_H
#define KPROBES_BENCH_TARGETS_H

int kpb_target0(int x);
int kpb_target1(int x);
int kpb_target2(int x);
int kpb_target3(int x);
int kpb_target4(int x);
int kpb_target5(int x);
int kpb_target6(int x);
int kpb_target7(int x);
int kpb_target8(int x);
int kpb_target9(int x);
int kpb_target10(int x);
int kpb_target11(int x);
int kpb_target12(int x);
int kpb_target13(int x);
int kpb_target14(int x);
int kpb_target15(int x);

#ifdef CONFIG_ARM64
/* The same, probed on the ADR at kpb_target_adrN_adr: a simulated instruction */
int kpb_target_adr0(int x);
int kpb_target_adr1(int x);
extern const u32 kpb_target_adr0_adr[];
extern const u32 kpb_target_adr1_adr[];
#endif

#endif /* KPROBES_BENCH_TARGETS_H */
