#!/bin/sh
# The kernel's own ftrace selftest, inside the guest: ftracetest (from
# tools/testing/selftests/ftrace, copied to /guest/ftrace) on test.d/kprobe
# and test.d/dynevent.  Prints its own output, the log of every case that
# did not pass, then one line per case for the host:
#	guest-ftracetest: RESULT DIR/CASE.tc
# (RESULT is PASS, FAIL, UNRESOLVED, UNSUPPORTED, UNTESTED, XFAIL or
# UNDEFINED), and a summary.  The host judges them against the stock
# kernel's (harness/ftracetest-judge.sh): a case may fail for lack of
# something in the configuration, on stock as here.
F=/guest/ftrace
L=/tmp/ftracetest-logs

if [ ! -x $F/ftracetest ]; then
	echo "guest-check: not ok ftracetest-present"
	exit 0
fi
cases=$(cd $F && ls test.d/kprobe/*.tc test.d/dynevent/*.tc)
echo "guest: --- ftracetest $(echo $cases | wc -w) cases"
rm -rf $L
start=$(date +%s)
(cd $F && ./ftracetest --fail-unresolved --fail-unsupported -l $L $cases) > /tmp/ftracetest.out 2>&1
echo "guest: ftracetest exited with $? after $(($(date +%s) - start)) s"
sed 's/^/ftracetest: /' /tmp/ftracetest.out

# The logs of the cases that did not pass (kept with --fail-*: they say
# why a case is unsupported or unresolved)
for log in $L/*-log.*; do
	[ -f "$log" ] || continue
	echo "guest: ftracetest log $(basename $log) (last 25 lines):"
	tail -n 25 "$log" | sed 's/^/ftracetest-log: /'
done

n=0
for c in $cases; do
	n=$((n + 1))
	res=$(grep "^\[$n\]" /tmp/ftracetest.out | sed -n 's/.*\[\([A-Z]*\)\][[:space:]]*$/\1/p' | tail -n 1)
	[ -n "$res" ] || res=MISSING
	name=${c#test.d/}
	echo "guest-ftracetest: $res $name"
done
get() { sed -n "s/^# of $1: *\([0-9]*\).*/\1/p" /tmp/ftracetest.out; }
echo "guest-ftracetest: summary passed=$(get passed) failed=$(get failed) unresolved=$(get unresolved) untested=$(get untested) unsupported=$(get unsupported) xfailed=$(get xfailed) undefined=$(get 'undefined(test bug)')"
if [ -n "$(get passed)" ]; then
	echo "guest-check: ok ftracetest-finished"
else
	echo "guest-check: not ok ftracetest-finished"
fi
