#!/bin/sh
# Registration under allocation failures (test_kprobes_fault.ko, run by
# guest-checks.sh): failslab and fail_page_alloc are set to take GFP_KERNEL
# allocations of any order and to print nothing; the module then fails the
# Nth allocation of each kind of registration for N = 1, 2, ... (the task's
# fail-nth, so nothing else fails).  Afterwards kprobes/list is as it was
# and no slot page is left; guest-checks.sh's kmemleak scan comes later.
D=/sys/kernel/debug
FS=$D/failslab
FP=$D/fail_page_alloc

ok() { echo "guest-check: ok $1"; }
notok() { echo "guest-check: not ok $1"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }
slot_pages() { grep -c ' kprobe_insn_page' /proc/kallsyms; }

if [ ! -d $FS ] || [ ! -d $FP ]; then
	echo "guest: skip faults (no CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS)"
	exit 0
fi
if [ -z "$(find /lib/modules -name test_kprobes_fault.ko)" ]; then
	notok fault-module-built
	exit 0
fi

list_before=$(cat $D/kprobes/list)
pages_before=$(slot_pages)
for f in $FS $FP; do
	echo 0 > $f/verbose
	echo N > $f/ignore-gfp-wait
done
echo 0 > $FP/min-order
dmesg -c > /dev/null
t0=$(date +%s)
modprobe test_kprobes_fault
t1=$(date +%s)
for f in $FS $FP; do
	echo Y > $f/ignore-gfp-wait
	echo 2 > $f/verbose
done
echo 1 > $FP/min-order
echo "guest: the allocation-failure test took $((t1 - t0)) s:"
dmesg | grep 'kprobes-fault' | tee /tmp/fault.out
check fault-registrations-clean grep -qx '.*kprobes-fault: PASS' /tmp/fault.out
check fault-module-unloads rmmod test_kprobes_fault
check fault-list-unchanged test "$(cat $D/kprobes/list)" = "$list_before"
i=0
while [ "$(slot_pages)" -gt "$pages_before" ] && [ $i -lt 50 ]; do
	usleep 200000
	i=$((i + 1))
done
check fault-no-slot-page-left test "$(slot_pages)" -le "$pages_before"
