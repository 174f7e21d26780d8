#!/usr/bin/env bash
# make demo: build, boot, load the kprobe sample, show what it does.
. "$(dirname "$0")/lib.sh"

image=$("$REPO/harness/build.sh" | tail -n 1)
log=$CACHE/results/$ARCH-demo.log
mkdir -p "$(dirname "$log")"
KERNEL_CMDLINE= KERNEL_CMDLINE_EXTRA="kunit.enable=0 quiet" \
	"$REPO/harness/run-qemu.sh" "$image" "$REPO/harness/guest-demo.sh" "$log"
grep -E '^demo:|handler_(pre|post)|kprobe_init|  k  ' "$log" | sed 's/\r$//'
grep -q '^demo: after rmmod' "$log" || die "the demo did not finish; see $log"
