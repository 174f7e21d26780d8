#!/bin/sh
# Guest script of the oops boot (harness/check-oops.sh): a kernel thread
# dies of an oops inside an optimized probe hit, and on arm64 another in a
# stepped copy (kprobe_oops.ko, which says why only those), and after each
# a probe must still run its handlers on every CPU.  Prints how many
# oopses the console should have.
D=/sys/kernel/debug/kprobe_oops
S=/proc/sys/debug/kprobes-optimization

ok() { echo "guest-check: ok $1"; }
notok() { echo "guest-check: not ok $1"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }

oopses=0
echo 0 > /proc/sys/kernel/panic_on_oops
echo 1 > $S
cpu=$(($(grep -c '^processor' /proc/cpuinfo) - 1))
check oops-module-loads insmod /guest/kprobe_oops.ko
check oops-every-cpu-hits-before sh -c "echo 1 > $D/verify"
# A thread on the last CPU dies in its pre_handler, in the detour
if sh -c "echo $cpu > $D/run"; then
	ok oops-in-optimized-hit-task-died
	oopses=$((oopses + 1))
else
	notok oops-in-optimized-hit-task-died
fi
check oops-then-every-cpu-hits sh -c "echo 1 > $D/verify"
# arm64: stepped copies that die, of an undefined instruction and of
# FEAT_FPAC's failed authentication (the QEMU of check-oops.sh has it);
# each oops must name the probed instruction
step_case() {
	if sh -c "echo $cpu > $D/$1"; then
		ok "oops-$1-in-step-task-died"
		oopses=$((oopses + 1))
	else
		notok "oops-$1-in-step-task-died"
	fi
	check "oops-$1-then-every-cpu-hits" sh -c "echo 1 > $D/verify"
}
if [ "$(uname -m)" = aarch64 ]; then
	step_case undef
	check oops-fpac-cpu-has-it test -e $D/fpac
	[ -e $D/fpac ] && step_case fpac
fi
check oops-module-unloads rmmod kprobe_oops
check oops-list-empty test -z "$(cat /sys/kernel/debug/kprobes/list)"
echo "guest: oopses expected: $oopses"
echo "guest-check: end"
