#!/usr/bin/env bash
# The MSR cases of kprobes_test on a QEMU whose MSR reads can fault:
# kpt_rdmsr_fault_fixup skips on bookworm's QEMU 7.2, which reads every
# MSR without a fault; with the backports QEMU (harness/qemu-newer.sh) it
# must run and pass, and so must kpt_wrmsr_fault_fixup.  x86_64 only.
# Prints "N passed, N failed".
#
#   check-msr.sh IMAGE LOG
. "$(dirname "$0")/lib.sh"

image=$1 log=$2
noop=$(mktemp)
trap 'rm -f "$noop"' EXIT
echo 'sleep 1' > "$noop"
pass=0 fail=0
if ! qemu_dir=$("$REPO/harness/qemu-newer.sh"); then
	echo "msr: no newer QEMU"
	echo "0 passed, 1 failed"
	exit 1
fi
PATH=$qemu_dir:$PATH QEMU_TIMEOUT=${QEMU_TIMEOUT:-300} \
	KERNEL_CMDLINE_EXTRA="kunit.filter_glob=kprobes_test.kpt_*msr_fault_fixup" \
	"$REPO/harness/run-qemu.sh" "$image" "$noop" "$log" || true
for case in kpt_rdmsr_fault_fixup kpt_wrmsr_fault_fixup; do
	# "ok N NAME" and nothing after it: passed, not skipped
	if tr -d '\r' < "$log" | grep -qE "^\[[ 0-9.]+\] +ok [0-9]+ $case\$"; then
		pass=$((pass + 1))
	else
		echo "msr: $case did not pass (log: $log):"
		tr -d '\r' < "$log" | grep -E "$case" | sed 's/^/  /'
		fail=$((fail + 1))
	fi
done
if grep -E "$SPLATS" "$log" > /dev/null; then
	echo "msr: kernel reported problems (log: $log):"
	grep -E "$SPLATS" "$log" | head -n 10 | sed 's/^/  /'
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
