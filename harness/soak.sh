#!/usr/bin/env bash
# make soak: the kprobes torture test for as long as asked.
#
#   SOAK_S=3600 make soak                  # an hour on x86_64, 4 vCPUs
#   SOAK_S=600 ARCH=arm64 SMP=8 make soak
#   VARIANT=kasan SOAK_S=1800 make soak    # on the KASAN build
#
# Builds the kernel (VARIANT= as for make check), boots it without the
# KUnit suites, runs harness/guest/torture-run.sh for SOAK_S seconds
# (default 600) and judges the console log.  Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

SOAK_S=${SOAK_S:-600}
name=$ARCH${VARIANT:+-$VARIANT}
results=$CACHE/results
log=$results/$name-soak.log
mkdir -p "$results"
rm -f "$log"

t0=$(date +%s)
image=$("$REPO/harness/build.sh" | tail -n 1)
t1=$(date +%s)
SMP=${SMP:-4} KERNEL_CMDLINE="kunit.enable=0 ktt_duration=$SOAK_S" \
	KERNEL_CMDLINE_EXTRA=$(check_cmdline_extra) \
	QEMU_TIMEOUT=${QEMU_TIMEOUT:-$((SOAK_S * 2 + 900))} \
	"$REPO/harness/run-qemu.sh" "$image" "$REPO/harness/guest/torture-run.sh" \
	"$log" || echo "the QEMU run failed"
t2=$(date +%s)
touch "$log"

out=$(CHECK_KUNIT=0 "$REPO/harness/check-log.sh" "$log") || true
echo "$out" | head -n -1
tr -d '\r' < "$log" | grep -E 'kprobes-torture: ' | sed 's/^.*kprobes-torture: /  torture: /' || true
echo "times: build $((t1 - t0)) s, guest run $((t2 - t1)) s; console log: $log"
echo "$out" | tail -n 1
echo "$out" | tail -n 1 | grep -q ' 0 failed$'
