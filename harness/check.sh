#!/usr/bin/env bash
# make check: for each architecture, build, boot with the KUnit suites and
# the guest checks, and judge the log; the same for a distribution-like
# build with the function tracer, which also runs the in-tree consumers
# and ftracetest (CHECK_NO_FTRACE=1 skips it); then check our sources
# with checkpatch, kernel-doc and sparse.  Ends with one summary line
# "N passed, N failed".
. "$(dirname "$0")/lib.sh"

arches=${CHECK_ARCHES:-x86_64 arm64}
results=$CACHE/results
mkdir -p "$results"
total_pass=0 total_fail=0

count() {
	local line=$1
	local pass fail

	pass=$(echo "$line" | sed -nE 's/^([0-9]+) passed.*/\1/p')
	fail=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed$/\1/p')
	# A line that is not a summary (a build that failed) is a failure
	if [ -z "$pass" ] || [ -z "$fail" ]; then
		echo "no summary line in: $line"
		fail=1 pass=0
	fi
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
}

for arch in $arches; do
	log=$results/$arch-console.log
	rm -f "$log"
	if image=$(ARCH=$arch "$REPO/harness/build.sh" | tail -n 1); then
		ARCH=$arch "$REPO/harness/run-qemu.sh" "$image" \
			"$REPO/harness/guest-checks.sh" "$log" || true
		out=$(ARCH=$arch "$REPO/harness/check-log.sh" "$log") || true
		echo "$out" | head -n -1
		count "$(echo "$out" | tail -n 1)"
		echo "console log: $log"
	else
		echo "$arch: build failed"
		total_fail=$((total_fail + 1))
	fi
	# The same kernel built like a distribution's, with the function
	# tracer: the KUnit suites, the guest checks, the in-tree consumers
	# and ftracetest (harness/run-consumers.sh)
	if [ -z "${CHECK_NO_FTRACE:-}" ]; then
		out=$(ARCH=$arch VARIANT=ftrace "$REPO/harness/run-consumers.sh") || true
		echo "$out" | head -n -1
		count "$(echo "$out" | tail -n 1)"
	fi
done

if "$REPO/harness/checkpatch.sh"; then
	total_pass=$((total_pass + 1))
else
	total_fail=$((total_fail + 1))
fi

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
