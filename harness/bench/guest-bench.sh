#!/bin/sh
# The benchmark, inside the guest (run by harness/run-qemu.sh's init):
# drives kprobes_bench.ko through debugfs and prints "kpbench KEY VALUE"
# lines on the console, for harness/bench/report.py.
#
# Guest time is instructions (QEMU -icount shift=0), and idle time is
# skipped (sleep=off), so the sleeps below cost no host time: they let a
# kernel's deferred work (the kprobe optimizer, RCU callbacks) finish
# between measurements instead of inside them.
B=/sys/kernel/debug/kprobes_bench
D=/sys/kernel/debug/kprobes
OPT=/proc/sys/debug/kprobes-optimization
# The other probes: at most this many, on distinct functions
MANY=10000

result() { echo "kpbench $1 $2"; }
# ctl COMMAND [LABEL [ARG]]: one command to the module (see its header)
ctl() {
	echo "$*" > $B/ctl && return 0
	result "error.$1.${2:-}" 1
	return 1
}

# Jump optimization on (1) or off (0), where the kernel has it.
set_opt() {
	[ -w $OPT ] && echo "$1" > $OPT
	return 0
}

# hit LABEL KIND OPT: the cost of one hit of a probe of KIND (see
# kprobes_bench.c) with optimization OPT, and whether it was optimized.
hit() {
	set_opt "$3"
	ctl setup "$1" "$2" || return
	sleep 1
	if grep kpb_target $D/list | grep -q OPTIMIZED; then
		result "$1.optimized" 1
	else
		result "$1.optimized" 0
	fi
	ctl measure
	ctl teardown
	sleep 1
}

# Slab + VmallocUsed in kB (slots live in module/vmalloc space)
meminfo() {
	awk '/^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 }
	     END { print s, v }' /proc/meminfo
}

# Module parameters from the kernel command line (kprobes_bench.NAME=VALUE)
params=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^kprobes_bench\.//p')
# shellcheck disable=SC2086 # a list of parameters
insmod /modules/kprobes_bench.ko $params || { result error.insmod 1; exit 0; }
result has_optimization "$([ -e $OPT ] && echo 1 || echo 0)"

# Single probes on the module's own targets
hit hit.stepped stepped 0
hit hit.pre_noopt pre 0
hit hit.pre_opt pre 1
hit hit.ret_noopt ret 0
hit hit.ret_opt ret 1
hit hit.both_noopt both 0
hit hit.both_opt both 1
# arm64: a probe on an instruction that reads the PC, simulated (in the
# detour when optimized, which then leaves with ERET)
if [ "$(uname -m)" = aarch64 ]; then
	hit hit.adr_noopt adr 0
	hit hit.adr_opt adr 1
fi
# kpbench.hits_only (BENCH_HITS_ONLY=1): the single probes above only
if grep -q 'kpbench\.hits_only=1' /proc/cmdline; then
	rmmod kprobes_bench
	result finished 1
	exit 0
fi

# The other probes go on distinct kernel functions: text symbols between
# _stext and _etext (kallsyms is sorted by address), one name per address,
# not blacklisted; spread evenly over the text, a little more than needed
# since some refuse a probe.
awk '$3 == "_stext" { on = 1 } $3 == "_etext" { on = 0 }
     on && NF == 3 && ($2 == "t" || $2 == "T") { print $1, $3 }' \
	/proc/kallsyms > /tmp/text
awk '{ print $2 }' $D/blacklist > /tmp/blacklist
awk 'NR == FNR { black[$1] = 1; next }
     !($2 in black) && !($1 in seen) { seen[$1] = 1; print $1 }' \
	/tmp/blacklist /tmp/text > /tmp/candidates
total=$(wc -l < /tmp/candidates)
want=$((MANY + MANY / 10))
awk -v n="$total" -v want="$want" \
	'n <= want || int(NR * want / n) != int((NR - 1) * want / n)' \
	/tmp/candidates > $B/addrs
result addrs.text "$(wc -l < /tmp/text)"
result addrs.blacklisted "$(wc -l < /tmp/blacklist)"
ctl load
set_opt 0
ctl filter
# Freeing 10,000 probe points is deferred work (RCU callbacks, workers):
# let it finish before the first timed registration.
sleep 10
usable=$(dmesg | sed -n 's/.*kpbench addrs.usable \([0-9]*\).*/\1/p' | tail -n 1)
[ "${usable:-0}" -lt "$MANY" ] && MANY=${usable:-0}
result many "$MANY"

# registration N SUFFIX: register_kprobes() then unregister_kprobes() of N
# probes, then register_kprobe() and unregister_kprobe() of each; and the
# memory per probe point while they are live.
registration() {
	before=$(meminfo)
	ctl reg_batch "reg.batch.$1$2" "$1"
	# Let deferred work (the optimizer) settle before measuring more
	sleep 5
	echo "$before" "$(meminfo)" | awk -v n="$1" -v key="$1$2" '{
		printf "kpbench mem.slab.%s %d\n", key, ($3 - $1) * 1024 / n
		printf "kpbench mem.vmalloc.%s %d\n", key, ($4 - $2) * 1024 / n }'
	ctl unreg_batch "unreg.batch.$1$2"
	sleep 10
	ctl reg_each "reg.each.$1$2" "$1"
	sleep 5
	ctl unreg_each "unreg.each.$1$2"
	sleep 10
}

# Registration at each kernel's default (optimization on where it
# exists), and 512 with optimization off
set_opt 1
registration 512
registration "$MANY"
set_opt 0
registration 512 .noopt

# A hit among many other probes (optimization off: compare with
# hit.pre_noopt)
set_opt 0
ctl reg_batch many.reg "$MANY"
sleep 5
hit hit.pre_many pre 0
ctl unreg_batch many.unreg
set_opt 1

rmmod kprobes_bench
result finished 1
