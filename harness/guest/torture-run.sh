#!/bin/sh
# Guest script of the torture boot (harness/check.sh with SMP=4,
# harness/soak.sh): test_kprobes_torture.ko for $ktt_duration seconds
# (from the kernel command line) while the target module comes and goes,
# kprobes/list and kprobes/stats are read, and jump optimization is
# switched off and on; then the books, leftovers and leaks.
D=/sys/kernel/debug/kprobes
S=/proc/sys/debug/kprobes-optimization
ktt_duration=${ktt_duration:-20}

ok() { echo "guest-check: ok $1"; }
notok() { echo "guest-check: not ok $1"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }
slot_pages() { grep -c ' kprobe_insn_page' /proc/kallsyms; }

ncpu=$(grep -c '^processor' /proc/cpuinfo)
echo "guest: kprobes torture for ${ktt_duration} s on $ncpu CPUs"
check torture-modules-present test -n "$(find /lib/modules -name test_kprobes_torture.ko)"
pages_before=$(slot_pages)
dmesg -c > /dev/null

rm -f /tmp/torture-done /tmp/opt-seen
# The target module comes and goes while the torture probes it.
(
	n=0
	while [ ! -e /tmp/torture-done ]; do
		modprobe test_kprobes_torture_target && n=$((n + 1))
		usleep 150000
		rmmod test_kprobes_torture_target
		usleep 50000
	done
	echo "guest: the target module was loaded $n times"
) &
loader=$!
# Our files are read meanwhile, and jump optimization goes off and on.
(
	i=0
	while [ ! -e /tmp/torture-done ]; do
		cat $D/list > /dev/null
		grep -q 'optimized=[1-9]' $D/stats && touch /tmp/opt-seen
		dd if=$D/stats bs=7 of=/dev/null 2>/dev/null
		i=$((i + 1))
		if [ -w $S ] && [ $((i % 16)) = 0 ]; then
			echo 0 > $S
			usleep 200000
			echo 1 > $S
		fi
		usleep 250000
	done
) &
reader=$!

t0=$(date +%s)
modprobe test_kprobes_torture duration="$ktt_duration"
t1=$(date +%s)
touch /tmp/torture-done
wait $loader
wait $reader
rmmod test_kprobes_torture_target 2>/dev/null
echo "guest: the torture took $((t1 - t0)) s"

dmesg | grep -E 'kprobes-torture' > /tmp/torture.out
cat /tmp/torture.out
check torture-pass grep -qx '.*kprobes-torture: PASS' /tmp/torture.out
check torture-target-results-right sh -c "! dmesg | grep -q 'kprobes-torture-target: .* wrong results'"
check torture-unloads rmmod test_kprobes_torture
if [ -e $S ]; then
	check torture-saw-optimized-points test -e /tmp/opt-seen
fi
check torture-list-empty test -z "$(cat $D/list)"

# Every slot page is given back once the points are freed (after an
# RCU-tasks grace period and a work item).
i=0
while [ "$(slot_pages)" -gt "$pages_before" ] && [ $i -lt 50 ]; do
	usleep 200000
	i=$((i + 1))
done
echo "guest: slot pages: $pages_before before, $(slot_pages) after"
check torture-no-slot-page-left test "$(slot_pages)" -le "$pages_before"

if [ -e /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > /tmp/leaks
	echo "guest: kmemleak: $(grep -c 'unreferenced object' /tmp/leaks) unreferenced objects in all"
	grep -B2 -A20 -E 'kprobe|kretprobe|ktt_' /tmp/leaks | head -n 40
	check torture-no-leaks sh -c "! grep -qE 'kprobe|kretprobe|ktt_' /tmp/leaks"
fi
echo "guest-check: end"
