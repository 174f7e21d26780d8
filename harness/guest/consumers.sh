#!/bin/sh
# The in-tree consumers of kprobes, exercised from userspace: run inside the
# guest (by guest-checks.sh or consumers-run.sh).  Each program prints
# guest-check lines; a consumer the kernel was built without is skipped
# with a "guest: skip" line, not counted as a failure.
B=/guest/bin
T=/sys/kernel/tracing
D=/sys/kernel/debug

mount -t tracefs tracefs $T 2>/dev/null

skip() { echo "guest: skip $1 ($2)"; }
run() {
	echo "guest: --- $1"
	if [ -x $B/$1 ]; then
		$B/$1 || echo "guest: $1 exited with $?"
	else
		echo "guest-check: not ok $1-built"
	fi
}

if [ -w $T/kprobe_events ]; then
	run kprobe_events
else
	skip kprobe_events "no CONFIG_KPROBE_EVENTS"
fi

if [ -r /sys/bus/event_source/devices/kprobe/type ]; then
	run perf_kprobe
	run perf_sideband
else
	skip perf_kprobe "no kprobe PMU: CONFIG_KPROBE_EVENTS and CONFIG_PERF_EVENTS"
fi

# No /proc/config.gz here: probe for bpf() by trying it (ENOSYS without
# CONFIG_BPF_SYSCALL); BPF_EVENTS is what lets it attach to a kprobe.
if [ -r /sys/bus/event_source/devices/kprobe/type ] &&
   grep -q ' trace_call_bpf$' /proc/kallsyms; then
	run bpf_kprobe
else
	skip bpf_kprobe "no CONFIG_BPF_EVENTS"
fi

if [ -e $D/fail_function/inject ]; then
	run fail_function
else
	skip fail_function "no CONFIG_FAIL_FUNCTION"
fi
