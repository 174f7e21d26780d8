#!/usr/bin/env bash
# Judge a guest console log: KUnit results (through the base tree's own
# KTAP parser), guest checks, and any kernel splat.  Prints one summary
# line "<arch>: N passed, N failed" and exits non-zero on any failure.
. "$(dirname "$0")/lib.sh"

log=$1
fail=0

# 1. Kernel splats: any of these fails the run.  The allocation-failure
# test makes allocations fail on purpose, and the allocators report those
# with a stack trace (warn_alloc(), and pcpu_alloc()'s "percpu: allocation
# failed"): between its begin and end lines, a trace right after such a
# report is not a splat.
splats=$SPLATS
judged=$(mktemp)
trap 'rm -f "$judged"' EXIT
awk '/kprobes-fault: begin/ { inj = 1 }
     /kprobes-fault: end/ { inj = 0 }
     inj && /vmalloc error:|page allocation failure:|percpu: allocation failed/ { skip = 6 }
     { if (skip > 0) { skip--; if (/Call Trace:/) { print NR ": (expected allocation-failure trace)"; next } } print NR ": " $0 }' \
	"$log" > "$judged"
if grep -E "$splats" "$judged" | grep -v 'expected allocation-failure trace' > /dev/null; then
	echo "--- kernel reported problems:" >&2
	grep -E "$splats" "$judged" | grep -v 'expected allocation-failure trace' | head -n 30 >&2
	fail=1
fi

# 2. KUnit, through tools/testing/kunit/kunit.py parse (CHECK_KUNIT=0: a
# boot that runs no KUnit suite, e.g. the torture boot)
# The suites built as modules (CONFIG_KPROBES_SANITY_TEST=m) run when the
# guest loads them, each between "kprobes-kunit-module: begin NAME" and
# "... end NAME" lines it writes to /dev/kmsg; they have no top-level KTAP
# header of their own, so they are parsed apart from the boot's, with one.
k_p=0 k_f=0 k_c=0
kunit_parse() {
	local what=$1 file=$2 out summary p f c

	out=$(python3 "$TREE/tools/testing/kunit/kunit.py" parse "$file" 2>&1) || fail=1
	echo "$out" | grep -E '^\[..:..:..\] (Testing complete|\[(PASSED|FAILED|SKIPPED|CRASHED)\])' | sed "s/^/  $what/" >&2 || true
	echo "$out" | grep -E 'FAILED|CRASHED|# .*fail' | sed "s/^/  $what/" >&2 || true
	# kunit.py prints e.g. "Testing complete. Ran 30 tests: passed: 30"
	summary=$(echo "$out" | grep -E 'Testing complete' | tail -n 1)
	[ -n "$summary" ] || { echo "no KUnit results in $what$log" >&2; fail=1; }
	p=$(echo "$summary" | sed -nE 's/.*passed: ([0-9]+).*/\1/p')
	f=$(echo "$summary" | sed -nE 's/.*failed: ([0-9]+).*/\1/p')
	c=$(echo "$summary" | sed -nE 's/.*crashed: ([0-9]+).*/\1/p')
	k_p=$((k_p + ${p:-0})) k_f=$((k_f + ${f:-0})) k_c=$((k_c + ${c:-0}))
}
if [ "${CHECK_KUNIT:-1}" != 0 ]; then
	boot=$(mktemp) mods=$(mktemp)
	trap 'rm -f "$judged" "$boot" "$mods"' EXIT
	tr -d '\r' < "$log" | sed '/kprobes-kunit-module: begin /,$d' > "$boot"
	tr -d '\r' < "$log" | awk '
		/kprobes-kunit-module: begin / { on = 1; next }
		/kprobes-kunit-module: end / { on = 0; next }
		on { sub(/^\[[ 0-9.]+\] ?/, ""); print }' |
		awk 'BEGIN { print "KTAP version 1" }
		     /^(not )?ok [0-9]+ / { sub(/ok [0-9]+ /, "ok " ++n " ") }
		     { print }' > "$mods"
	# Modules only (no suite built in): the boot ran none
	if ! grep -q 'kprobes-kunit-module: begin ' "$log" ||
	   grep -q '# Subtest: ' "$boot"; then
		kunit_parse "" "$boot"
	fi
	if grep -q 'kprobes-kunit-module: begin ' "$log"; then
		grep -q '# Subtest: ' "$mods" ||
			{ echo "no KUnit results from the modules in $log" >&2; fail=1; }
		kunit_parse "modules: " "$mods"
	fi
	[ "$k_f" = 0 ] && [ "$k_c" = 0 ] || fail=1
	[ "$k_p" -gt 0 ] || fail=1
fi

# 3. Guest checks
g_p=$(grep -c 'guest-check: ok ' "$log" || true)
g_f=$(grep -c 'guest-check: not ok ' "$log" || true)
grep 'guest-check: not ok ' "$log" | sed 's/^/  /' >&2 || true
grep -q 'guest-check: end' "$log" || { echo "guest checks did not finish" >&2; fail=1; g_f=$((g_f + 1)); }
[ "$g_f" = 0 ] || fail=1

# 4. A boot that asked for pseudo-NMIs (arm64, check_cmdline_extra in
# harness/lib.sh) must have them, or it tested the PSTATE.I masking again:
# one more guest check, judged here where the whole console log is.
if grep -q 'Kernel command line:.*irqchip.gicv3_pseudo_nmi=1' "$log"; then
	if grep -q 'GICv3: Pseudo-NMIs enabled' "$log"; then
		g_p=$((g_p + 1))
	else
		echo "  the boot asked for pseudo-NMIs and did not get them" >&2
		g_f=$((g_f + 1)) fail=1
	fi
fi

passed=$((k_p + g_p))
failed=$((k_f + k_c + g_f))
if [ "$fail" != 0 ] && [ "$failed" = 0 ]; then
	failed=1	# a splat or a missing result counts as a failure
fi
echo "$ARCH: KUnit $k_p passed, $((k_f + k_c)) failed; guest checks $g_p passed, $g_f failed"
echo "$passed passed, $failed failed"
[ "$fail" = 0 ]
