#!/bin/sh
# The guest side of harness/every-function.sh: probe every function with
# kprobes, then a few thousand with kretprobes (harness/guest/
# every_function.c).  The kernel command line chooses:
#   everyfn.mode=p|r|pr   kprobes, kretprobes or both (default pr)
#   everyfn.first=N everyfn.last=N   a slice of the candidates (bisection)
#   everyfn.rstep=N       kretprobes on every N-th candidate (default: a
#                         few thousand in all)
#   everyfn.chunk=N       arm N probes at a time, a workload for each chunk
#                         (default 2000; 0: all at once, which QEMU's TCG
#                         does not survive in reasonable time)
B=/guest/bin
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

param() {
	for w in $(cat /proc/cmdline); do
		case "$w" in "everyfn.$1="*) echo "${w#*=}"; return ;; esac
	done
	echo "$2"
}
mode=$(param mode pr)
first=$(param first 0)
last=$(param last 100000000)
rstep=$(param rstep 0)
chunk=$(param chunk 2000)

case "$mode" in *p*)
	echo "guest: --- every function with a kprobe"
	$B/every_function p "$first" "$last" 1 "$chunk"
esac
case "$mode" in *r*)
	if [ "$rstep" = 0 ]; then
		n=$(grep -c ' [tT] ' /proc/kallsyms)
		rstep=$((n / 3000 + 1))
	fi
	echo "guest: --- every ${rstep}th function with a kretprobe"
	$B/every_function r "$first" "$last" "$rstep" "$chunk"
esac
echo "guest: kprobes/list at the end:"
cat /sys/kernel/debug/kprobes/list
echo "guest-check: end"
