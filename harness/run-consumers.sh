#!/usr/bin/env bash
# Build a distribution-like kernel (VARIANT=ftrace unless VARIANT= says
# otherwise), boot it, run the in-tree kprobes consumers from userspace and
# the kernel's own ftracetest (harness/guest/consumers-run.sh), and judge:
#
#   harness/run-consumers.sh                    # our x86_64 kernel
#   ARCH=arm64 harness/run-consumers.sh
#   STOCK=1 ARCH=arm64 harness/run-consumers.sh # the stock kernel
#
# The per-case ftracetest results go to $CACHE/results/NAME-ftracetest.txt;
# on our kernel every case that passes on stock
# (harness/ftracetest-stock-ARCH.txt) must pass too.  Ends with
# "N passed, N failed".
export VARIANT=${VARIANT-ftrace}
. "$(dirname "$0")/lib.sh"

name=$ARCH${VARIANT:+-$VARIANT}
[ "$STOCK" = 1 ] && name=stock-$name
results=$CACHE/results
log=$results/$name-consumers.log
table=$results/$name-ftracetest.txt
mkdir -p "$results"
rm -f "$log"

t0=$(date +%s)
image=$("$REPO/harness/build.sh" | tail -n 1)
t1=$(date +%s)
# No kprobe_event= on the command line (the default one names _xbc_exit,
# which kprobe_events refuses here: notrace): boot-time probe events turn
# the tracers' startup self tests off, trace_kprobe's among them
# arm64 boots this one on an ARMv8.0 CPU, without PAN: the kernel's
# software PAN (CONFIG_ARM64_SW_TTBR0_PAN) is in use, and the guest probes
# inside a user access window
KERNEL_CMDLINE=${KERNEL_CMDLINE-} ARM64_CPU=${ARM64_CPU-cortex-a57} \
	QEMU_TIMEOUT=${QEMU_TIMEOUT:-1800} "$REPO/harness/run-qemu.sh" "$image" \
	"$REPO/harness/guest/consumers-run.sh" "$log" || echo "the QEMU run failed"
t2=$(date +%s)
touch "$log"	# judged even when QEMU did not run: then nothing passed

out=$("$REPO/harness/check-log.sh" "$log") || true
echo "$out" | head -n -1
line=$(echo "$out" | tail -n 1)
passed=$(echo "$line" | sed -nE 's/^([0-9]+) passed.*/\1/p')
failed=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed$/\1/p')

stock=$REPO/harness/ftracetest-stock-$ARCH.txt
[ "$STOCK" != 1 ] && [ -f "$stock" ] || stock=
out=$("$REPO/harness/ftracetest-judge.sh" "$log" "$table" ${stock:+"$stock"}) || true
echo "$out" | head -n -1
line=$(echo "$out" | tail -n 1)
passed=$((passed + $(echo "$line" | sed -nE 's/^([0-9]+) passed.*/\1/p')))
failed=$((failed + $(echo "$line" | sed -nE 's/.* ([0-9]+) failed$/\1/p')))

echo "times: build $((t1 - t0)) s, guest run $((t2 - t1)) s; console log: $log"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
