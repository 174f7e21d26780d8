#!/usr/bin/env bash
# Oopses inside probe hits (harness/guest/oops-run.sh, kprobe_oops.ko): a
# boot of its own, whose console must have the oopses the guest asked for,
# each with kprobes' line that it ended the hit, and no other splat; the
# oopses of stepped copies (arm64: an undefined instruction, and FPAC on
# the newer QEMU of harness/qemu-newer.sh) reported at the probed
# instruction; and every guest check must pass.  Prints "N
# passed, N failed".
#
#   check-oops.sh IMAGE LOG
. "$(dirname "$0")/lib.sh"

image=$1 log=$2
pass=0 fail=0
# arm64: QEMU's CPU "max" has FEAT_FPAC from 8.0 on
qemu_path=$PATH
if [ "$ARCH" = arm64 ]; then
	if qemu_dir=$("$REPO/harness/qemu-newer.sh"); then
		qemu_path=$qemu_dir:$PATH
	else
		echo "oops: no newer QEMU: the FPAC case cannot run"
		fail=$((fail + 1))
	fi
fi
PATH=$qemu_path KERNEL_CMDLINE="kunit.enable=0" QEMU_TIMEOUT=${QEMU_TIMEOUT:-300} \
	"$REPO/harness/run-qemu.sh" "$image" "$REPO/harness/guest/oops-run.sh" \
	"$log" || true

pass=$((pass + $(grep -c 'guest-check: ok ' "$log" || true)))
fail=$((fail + $(grep -c 'guest-check: not ok ' "$log" || true)))
grep 'guest-check: not ok ' "$log" | sed 's/^/  /' || true
if ! grep -q 'guest-check: end' "$log"; then
	echo "oops: the guest checks did not finish (log: $log)"
	fail=$((fail + 1))
fi

# An oops report runs from its first line to "---[ end trace"; outside
# them, the console must be as clean as any other boot's.
expected=$(tr -d '\r' < "$log" | sed -nE 's/.*guest: oopses expected: ([0-9]+).*/\1/p')
reports=$(tr -d '\r' < "$log" | grep -cE 'Internal error: |^\[[ 0-9.]+\] Oops: ' || true)
ended=$(tr -d '\r' < "$log" | grep -cE 'kprobes: oops inside a hit of ' || true)
# Inside them, only what an oops report is made of: a warning, lockdep
# or RCU report raised while dying still counts.
in_oops='BUG:|Oops|Call Trace:|general protection fault'
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
tr -d '\r' < "$log" | awk -v dir="$parts" '
	/BUG: kernel NULL pointer dereference|Unable to handle kernel|kernel BUG at|Internal error: / { inside = 1 }
	{ print > (dir (inside ? "/in" : "/out")) }
	/---\[ end trace/ { inside = 0 }'
touch "$parts/in" "$parts/out"
outside=$( (grep -E "$SPLATS" "$parts/out"; grep -E "$SPLATS" "$parts/in" | grep -vE "$in_oops") || true)
if [ -z "$expected" ] || [ "$expected" = 0 ] || [ "$reports" != "$expected" ] ||
   [ "$ended" != "$expected" ]; then
	echo "oops: ${expected:-no} oopses expected, $reports reported, $ended hits ended by kprobes (log: $log)"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
if [ -n "$outside" ]; then
	echo "oops: kernel reported problems outside the oopses (log: $log):"
	echo "$outside" | head -n 10 | sed 's/^/  /'
	fail=$((fail + 1))
fi
# A boot that asked for pseudo-NMIs must have them (arm64,
# check_cmdline_extra): the PMR masking of a step is what it tests
if grep -q 'Kernel command line:.*irqchip.gicv3_pseudo_nmi=1' "$log"; then
	if grep -q 'GICv3: Pseudo-NMIs enabled' "$log"; then
		pass=$((pass + 1))
	else
		echo "oops: the boot asked for pseudo-NMIs and did not get them (log: $log)"
		fail=$((fail + 1))
	fi
fi
# An oops of a stepped copy (arm64: "undef: probe on X", "fpac: probe on
# X") names the probed instruction: the next "pc : " line is X
steps=$(tr -d '\r' < "$log" | awk '
	match($0, /kprobe_oops: [a-z]+: probe on [^ ]+/) {
		n = split(substr($0, RSTART, RLENGTH), f, " "); want = f[n]; next }
	want != "" && match($0, /\] pc : [^ ]+/) {
		n = split(substr($0, RSTART, RLENGTH), f, " ")
		print (f[n] == want ? "ok " : "bad ") want " " f[n]; want = "" }')
while read -r verdict want got; do
	[ -n "$verdict" ] || continue
	if [ "$verdict" = ok ]; then
		pass=$((pass + 1))
	else
		echo "oops: the oops of the copy of $want is reported at $got (log: $log)"
		fail=$((fail + 1))
	fi
done <<< "$steps"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
