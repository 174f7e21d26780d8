#!/usr/bin/env bash
# make check: for each architecture, build, boot with the KUnit suites and
# the guest checks (on the plain kernel also ftracetest, judged against the
# stock kernel of the same configuration), and judge the log; boot again on
# 4 vCPUs for the torture test (TORTURE_S seconds) and judge that log; the
# same for a distribution-like build with the function tracer, which also
# runs the in-tree consumers and ftracetest (CHECK_NO_FTRACE=1 skips it);
# on arm64 the first boot runs the kernel at EL2 (VHE) and the ftrace
# variant's boot is on an ARMv8.0 CPU (cortex-a57: software PAN, no VHE);
# on x86_64 the MSR fault cases once more on a newer QEMU
# (harness/check-msr.sh); oopses inside probe hits (harness/check-oops.sh);
# then check our sources with checkpatch,
# kernel-doc and sparse.  On arm64 the boots of the plain build (and of
# VARIANT=) run with pseudo-NMIs on (check_cmdline_extra), those of the
# ftrace variant without.  Ends with one summary line "N passed, N
# failed".  With VARIANT= (e.g. kasan, for make check-deep) the first two
# on that build, without ftracetest.
. "$(dirname "$0")/lib.sh"

arches=${CHECK_ARCHES:-x86_64 arm64}
# Seconds of kprobes torture per architecture (0: none)
TORTURE_S=${TORTURE_S:-20}
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
	name=$arch${VARIANT:+-$VARIANT}
	log=$results/$name-console.log
	tlog=$results/$name-torture.log
	rm -f "$log" "$tlog"
	# On the plain kernel, ftracetest after the guest checks
	# (harness/guest/consumers-run.sh), judged against the stock kernel
	# of the same configuration (CHECK_NO_FTRACETEST=1 skips it)
	guest=$REPO/harness/guest-checks.sh
	if [ -z "${VARIANT:-}" ] && [ -z "${CHECK_NO_FTRACETEST:-}" ]; then
		guest=$REPO/harness/guest/consumers-run.sh
	fi
	extra=$(ARCH=$arch check_cmdline_extra)
	if image=$(ARCH=$arch "$REPO/harness/build.sh" | tail -n 1); then
		t0=$(date +%s)
		ARCH=$arch ARM64_EL2=1 KERNEL_CMDLINE_EXTRA=$extra \
			"$REPO/harness/run-qemu.sh" "$image" "$guest" "$log" || true
		out=$(ARCH=$arch "$REPO/harness/check-log.sh" "$log") || true
		echo "$out" | head -n -1
		count "$(echo "$out" | tail -n 1)"
		# That boot ran the kernel at EL2, as a KVM host does (VHE)
		if [ "$arch" = arm64 ]; then
			if grep -q 'CPU: All CPU(s) started at EL2' "$log" &&
			   grep -q 'detected: Virtualization Host Extensions' "$log"; then
				out="1 passed, 0 failed"
			else
				out="0 passed, 1 failed"
			fi
			echo "$arch: the kernel at EL2 with VHE: $out"
			count "$out"
		fi
		if [ "$guest" != "$REPO/harness/guest-checks.sh" ]; then
			stock=$REPO/harness/ftracetest-stock-$arch-plain.txt
			[ -f "$stock" ] || stock=
			out=$("$REPO/harness/ftracetest-judge.sh" "$log" \
				"$results/$name-ftracetest.txt" ${stock:+"$stock"}) || true
			echo "$out" | head -n -1
			count "$(echo "$out" | tail -n 1)"
		fi
		echo "console log: $log ($(($(date +%s) - t0)) s)"
		# The MSR fault cases on a QEMU whose rdmsr can fault
		if [ "$arch" = x86_64 ] && [ -z "${VARIANT:-}" ]; then
			out=$(ARCH=$arch "$REPO/harness/check-msr.sh" "$image" \
				"$results/$name-msr.log") || true
			echo "$out" | head -n -1
			echo "$arch: msr cases on the newer QEMU: $(echo "$out" | tail -n 1)"
			count "$(echo "$out" | tail -n 1)"
		fi
		# Oopses inside probe hits, in a boot of their own
		if [ -z "${VARIANT:-}" ]; then
			out=$(ARCH=$arch KERNEL_CMDLINE_EXTRA=$extra \
				"$REPO/harness/check-oops.sh" "$image" \
				"$results/$name-oops.log") || true
			echo "$out" | head -n -1
			echo "$arch: oopses inside hits: $(echo "$out" | tail -n 1)"
			count "$(echo "$out" | tail -n 1)"
		fi
		# The torture test, on 4 vCPUs, in a boot of its own without
		# the KUnit suites (TORTURE_S=0 skips it)
		if [ "$TORTURE_S" != 0 ]; then
			t0=$(date +%s)
			ARCH=$arch SMP=4 KERNEL_CMDLINE="kunit.enable=0 ktt_duration=$TORTURE_S" \
				KERNEL_CMDLINE_EXTRA=$extra \
				QEMU_TIMEOUT=$((TORTURE_S * 4 + ${QEMU_TIMEOUT:-600})) \
				"$REPO/harness/run-qemu.sh" "$image" \
				"$REPO/harness/guest/torture-run.sh" "$tlog" || true
			out=$(ARCH=$arch CHECK_KUNIT=0 "$REPO/harness/check-log.sh" "$tlog") || true
			echo "$out" | head -n -1 | sed 's/guest checks/torture checks/'
			tr -d '\r' < "$tlog" | grep -E 'kprobes-torture: ' | sed 's/^.*kprobes-torture: /  torture: /' || true
			count "$(echo "$out" | tail -n 1)"
			echo "torture log: $tlog ($(($(date +%s) - t0)) s)"
		fi
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
