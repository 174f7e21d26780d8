#!/usr/bin/env bash
# make bench: the cost of kprobes, ours against the stock 6.1 kernel.
#
# Builds four small kernels for $ARCH (harness/bench/*.config): our tree
# and the pristine base tree (out of tree, never modified), each with
# PREEMPT_NONE and with PREEMPT; builds harness/bench/module against each;
# boots each with one vCPU under QEMU TCG with -icount shift=0, where the
# guest clock counts instructions, so every number is deterministic; runs
# harness/bench/guest-bench.sh and prints one table and the goals
# (harness/bench/report.py).  It reports, it never fails on a number.
#
#   BENCH_VARIANTS	which of ours-none ours-preempt stock-none
#			stock-preempt to run (default: all four)
#   BENCH_EACH_BUDGET_MS  guest time after which a one-by-one
#			registration stops (default 600000)
#   BENCH_RUNS		boot each kernel this many times (default 1) and
#			check that every run gives the same table
#   BENCH_HITS_ONLY=1	measure the hits of single probes only (minutes
#			instead of an hour: no registration of many)
. "$(dirname "$0")/lib.sh"

[ -n "$KARCH" ] || die "unknown ARCH=$ARCH"

# One job: take the machine-wide CPU lock once for all the builds and
# boots, rather than queueing again behind other jobs for each of them.
if [ "${KPROBES_CPU_LOCK_HELD:-}" != 1 ]; then
	BENCH_START=$(date +%s)
	export BENCH_START KPROBES_CPU_LOCK_HELD=1
	say "waiting for the CPU lock $CPU_LOCK"
	exec flock "$CPU_LOCK" "$0" "$@"
fi
locked=$(date +%s)

BENCH=$CACHE/bench
RESULTS=$BENCH/results
variants=${BENCH_VARIANTS:-ours-none ours-preempt stock-none stock-preempt}
budget=${BENCH_EACH_BUDGET_MS:-600000}
runs=${BENCH_RUNS:-1}
mkdir -p "$RESULTS"

# Our tree, and the extracted base tree (prepare-tree.sh makes both)
"$REPO/harness/prepare-tree.sh" > /dev/null

# build VARIANT: the kernel and the bench module; prints the image path.
build() {
	local tree=${1%-*} preempt=${1#*-} src build model

	case "$tree" in
	ours)	src=$TREE ;;
	stock)	src=$PRISTINE ;;
	*)	die "unknown variant $1" ;;
	esac
	case "$preempt" in
	none)		model=CONFIG_PREEMPT_NONE=y ;;
	preempt)	model=CONFIG_PREEMPT=y ;;
	*)		die "unknown variant $1" ;;
	esac
	build=$BENCH/$ARCH-$1
	mkdir -p "$build"
	echo "$model" > "$build/preempt.config"

	KPROBES_SRC=$src KPROBES_BUILD=$build \
	KPROBES_CONFIGS="$REPO/harness/bench/common.config $REPO/harness/bench/$ARCH.config $build/preempt.config" \
		"$REPO/harness/build.sh" | tail -n 1

	# The module, out of tree, in a copy per kernel (M= builds in place)
	mkdir -p "$build/kprobes_bench"
	rsync -c "$REPO"/harness/bench/module/* "$build/kprobes_bench/"
	with_cpu make -s -C "$src" O="$build" ARCH="$KARCH" \
		CROSS_COMPILE="$CROSS" CC="ccache ${CROSS}gcc" -j"$JOBS" \
		M="$build/kprobes_bench" modules > "$build/module.log" 2>&1 ||
		{ cat "$build/module.log" >&2; die "kprobes_bench.ko: build failed for $1"; }
}

images=()
for v in $variants; do
	say "building $ARCH $v"
	images+=("$(build "$v")")
	if grep -q '^CONFIG_OPTPROBES=y' "$BENCH/$ARCH-$v/.config"; then
		say "$v: CONFIG_OPTPROBES=y"
	else
		say "$v: no CONFIG_OPTPROBES"
	fi
done

# Nothing of the host may reach the guest: no host time, no host
# randomness.  One vCPU; one instruction per guest nanosecond; idle time
# skipped rather than slept, so it neither costs host time nor depends on
# it; the RTC starts at a fixed date and follows the guest clock; no
# random number instructions, whose values come from the host.
qemu_extra="-icount shift=0,sleep=off -rtc base=2024-01-01T00:00:00,clock=vm"
case "$ARCH" in
x86_64)	qemu_extra+=" -cpu max,-rdrand,-rdseed" ;;
arm64)	qemu_extra+=" -cpu cortex-a57" ;;
esac

# boot VARIANT IMAGE LOG
boot() {
	rm -f "$3"
	KPROBES_BUILD=$BENCH/$ARCH-$1 SMP=1 QEMU_TIMEOUT=${QEMU_TIMEOUT:-2400} \
	QEMU_EXTRA=$qemu_extra \
	GUEST_MODULES="$BENCH/$ARCH-$1/kprobes_bench/kprobes_bench.ko" \
	KERNEL_CMDLINE_EXTRA="kprobes_bench.each_budget_ms=$budget${BENCH_HITS_ONLY:+ kpbench.hits_only=$BENCH_HITS_ONLY}" \
		"$REPO/harness/run-qemu.sh" "$2" \
		"$REPO/harness/bench/guest-bench.sh" "$3" ||
		say "$1: QEMU failed; the table shows what it printed"
}

i=0
logs=()
same=()
for v in $variants; do
	log=$RESULTS/$ARCH-$v.log
	boot "$v" "${images[$i]}" "$log"
	logs+=("$v=$log")
	for ((r = 2; r <= runs; r++)); do
		boot "$v" "${images[$i]}" "$RESULTS/$ARCH-$v.run$r.log"
		same+=("$v, run $r against run 1: $(python3 \
			"$REPO/harness/bench/report.py" --compare "$log" \
			"$RESULTS/$ARCH-$v.run$r.log")")
	done
	i=$((i + 1))
done

python3 "$REPO/harness/bench/report.py" --arch "$ARCH" "${logs[@]}"
for line in "${same[@]}"; do echo "determinism: $line"; done
now=$(date +%s)
echo "make bench took $(((now - BENCH_START) / 60)) min $(((now - BENCH_START) % 60)) s" \
	"($(((locked - BENCH_START) / 60)) min waiting for the CPU lock);" \
	"logs in $RESULTS"
