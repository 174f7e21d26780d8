#!/usr/bin/env bash
# make every-function: build, boot, and from the guest put a kprobe on every
# function of the kernel that is not blacklisted, then a kretprobe on a few
# thousand, with a workload while they are armed, and remove them all
# (harness/every-function-guest.sh, harness/guest/every_function.c).
# Judges: no kernel splat, every guest check passes, and every refusal has
# a good reason (harness/judge-refusals.py).  Ends with "N passed, N
# failed".
#
#   ARCH=arm64 VARIANT=ftrace harness/every-function.sh
#
# When the kernel dies or complains, EVERYFN_BISECT=1 (the default) looks
# for the culprit: it boots again on halves of the probed set until one
# function is left (each step is one boot; a kernel panic ends a boot, as
# the command line has oops=panic, and so does a warning, with
# panic_on_warn=1).  EVERYFN_MODE=p|r|pr chooses kprobes, kretprobes or
# both (pr); EVERYFN_FIRST/EVERYFN_LAST a slice of the candidates;
# EVERYFN_CHUNK how many probes are armed at a time (default 2000, 500
# on arm64, see the README);
# EVERYFN_STEP_TIMEOUT the QEMU timeout of a bisection step.
. "$(dirname "$0")/lib.sh"

name=$ARCH${VARIANT:+-$VARIANT}
results=$CACHE/results
mkdir -p "$results"
log=$results/$name-everyfn.log
mode=${EVERYFN_MODE:-pr}
# Under TCG a BRK hit costs arm64 more than an int3 hit costs x86: armed
# 2000 at a time, the chunk with the scheduler, locking, RCU and timer
# functions starves the guest (README, "Probe every function")
if [ "$ARCH" = arm64 ]; then
	EVERYFN_CHUNK=${EVERYFN_CHUNK:-500}
fi
BISECT=${EVERYFN_BISECT:-1}

t0=$(date +%s)
image=$("$REPO/harness/build.sh" | tail -n 1)
vmlinux=$(dirname "$image")/../../../vmlinux
t1=$(date +%s)

# boot LOG MODE FIRST LAST [EXTRA]: one guest run; KUnit is left out
timeout=${QEMU_TIMEOUT:-2400}
boot() {
	rm -f "$1"
	KERNEL_CMDLINE="kunit.enable=0 everyfn.mode=$2 everyfn.first=$3 everyfn.last=$4 ${EVERYFN_CHUNK:+everyfn.chunk=$EVERYFN_CHUNK} ${5:-}" \
		QEMU_TIMEOUT=$timeout \
		"$REPO/harness/run-qemu.sh" "$image" \
		"$REPO/harness/every-function-guest.sh" "$1" || true
	touch "$1"
}

# Did the kernel survive the run of LOG without a complaint?
survived() {
	! grep -qE "$SPLATS" "$1" && grep -q 'guest-check: end' "$1"
}

boot "$log" "$mode" "${EVERYFN_FIRST:-0}" "${EVERYFN_LAST:-100000000}"
t2=$(date +%s)
fail=0 pass=0

if survived "$log"; then
	pass=$((pass + 1))
else
	echo "--- the kernel did not survive (log: $log):"
	grep -nE "$SPLATS|guest-everyfn|everyfn:" "$log" | tail -n 40
	fail=$((fail + 1))
	if [ "$BISECT" = 1 ]; then
		# Which kind of probe: the last one the guest started
		bmode=p
		grep -q 'every .*th function with a kretprobe' "$log" && bmode=r
		n=$(sed -nE 's/.*everyfn: .* ([0-9]+) candidates.*/\1/p' "$log" | head -n 1)
		lo=${EVERYFN_FIRST:-0} hi=${EVERYFN_LAST:-$n}
		[ "$hi" -gt "$n" ] && hi=$n
		step=0
		if [ "$bmode" = r ]; then
			# The guest takes every rstep-th one: bisect over those
			step=$(sed -nE 's/.*every ([0-9]+)th function with a kretprobe.*/\1/p' "$log" | head -n 1)
		fi
		extra="panic_on_warn=1 ${step:+everyfn.rstep=$step}"
		# A step that hangs is a step that fails: give it twice what
		# the whole run took, at least ten minutes.
		timeout=${EVERYFN_STEP_TIMEOUT:-$(( 2 * (t2 - t1) > 600 ? 2 * (t2 - t1) : 600 ))}
		blog=$results/$name-everyfn-bisect.log
		echo "--- bisecting the $bmode probes on candidates [$lo, $hi)"
		while [ $((hi - lo)) -gt 1 ]; do
			mid=$(( (lo + hi) / 2 ))
			if [ "$step" -gt 1 ]; then
				# keep the slices aligned on the guest's step
				mid=$(( lo + ((mid - lo + step - 1) / step) * step ))
				[ "$mid" -ge "$hi" ] && break
			fi
			boot "$blog" "$bmode" "$lo" "$mid" "$extra"
			if ! survived "$blog"; then
				echo "  [$lo, $mid): dies"
				hi=$mid
				continue
			fi
			boot "$blog" "$bmode" "$mid" "$hi" "$extra"
			if ! survived "$blog"; then
				echo "  [$lo, $mid): survives; [$mid, $hi): dies"
				lo=$mid
				continue
			fi
			echo "  [$lo, $mid) and [$mid, $hi) each survive: it takes probes in both"
			break
		done
		if [ $((hi - lo)) -le 1 ] || { [ "$step" -gt 1 ] && [ $((hi - lo)) -le "$step" ]; }; then
			boot "$blog" "$bmode" "$lo" "$hi" "$extra"
			echo "--- the culprit: candidates [$lo, $hi):"
			grep -E 'everyfn: candidate ' "$blog" | sed 's/^.*guest: /  /'
			grep -nE "$SPLATS" "$blog" | head -n 20
		fi
	fi
fi

# The refusals, judged on the instructions they would have covered
if out=$(python3 "$REPO/harness/judge-refusals.py" "$ARCH" "$vmlinux" "$log"); then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
echo "$out"

g_p=$(grep -c 'guest-check: ok ' "$log" || true)
g_f=$(grep -c 'guest-check: not ok ' "$log" || true)
grep 'guest-check: not ok ' "$log" | sed 's/^/  /' || true
grep -E 'guest: everyfn' "$log" | sed 's/^.*guest: /  /'
echo "times: build $((t1 - t0)) s, guest run $((t2 - t1)) s; console log: $log"
echo "$((pass + g_p)) passed, $((fail + g_f)) failed"
[ $((fail + g_f)) = 0 ]
