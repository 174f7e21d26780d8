#!/usr/bin/env bash
# make check: build, boot with the KUnit suite and the guest checks, judge
# the log, and check our sources with checkpatch and kernel-doc.
# Ends with one summary line "N passed, N failed".
. "$(dirname "$0")/lib.sh"

results=$CACHE/results
mkdir -p "$results"
total_pass=0 total_fail=0

image=$("$REPO/harness/build.sh" | tail -n 1)
log=$results/$ARCH-console.log
"$REPO/harness/run-qemu.sh" "$image" "$REPO/harness/guest-checks.sh" "$log" || true
if out=$("$REPO/harness/check-log.sh" "$log"); then :; fi
echo "$out" | head -n -1
line=$(echo "$out" | tail -n 1)
total_pass=$((total_pass + $(echo "$line" | sed -nE 's/^([0-9]+) passed.*/\1/p')))
total_fail=$((total_fail + $(echo "$line" | sed -nE 's/.* ([0-9]+) failed$/\1/p')))
echo "console log: $log"

if "$REPO/harness/checkpatch.sh"; then
	total_pass=$((total_pass + 1))
else
	total_fail=$((total_fail + 1))
fi

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
