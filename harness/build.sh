#!/usr/bin/env bash
# Configure and build the kernel for $ARCH in $BUILD, incrementally.
# Prints the path of the kernel image as the last line.
#
# By default it builds our prepared tree with harness/configs/.  Other
# kernels (harness/bench.sh) set KPROBES_SRC to another source tree (such
# as the pristine base tree, built out of tree and never modified),
# KPROBES_BUILD to their build directory and KPROBES_CONFIGS to their list
# of configuration fragments.
. "$(dirname "$0")/lib.sh"

"$REPO/harness/prepare-tree.sh" > /dev/null
SRC=${KPROBES_SRC:-$TREE}
CONFIGS=${KPROBES_CONFIGS:-"$REPO/harness/configs/common.config $REPO/harness/configs/$ARCH.config"}

[ -n "$KARCH" ] || die "unknown ARCH=$ARCH"

mkdir -p "$BUILD"
frag=$(mktemp)
trap 'rm -f "$frag"' EXIT
# shellcheck disable=SC2086 # a list of paths
cat $CONFIGS > "$frag"

kmake() {
	with_cpu make -C "$SRC" O="$BUILD" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
		CC="ccache ${CROSS}gcc" -j"$JOBS" "$@"
}

if ! cmp -s "$frag" "$BUILD/.kprobes-fragment" || [ ! -f "$BUILD/.config" ]; then
	say "configuring $ARCH in $BUILD (allnoconfig + $CONFIGS)"
	kmake -s KCONFIG_ALLCONFIG="$frag" allnoconfig
	missing=0
	while read -r line; do
		grep -qx "$line" "$BUILD/.config" || { echo "config: $line did not stick" >&2; missing=1; }
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag")
	[ "$missing" = 0 ] || die "the configuration is not what harness/configs asks for"
	cp "$frag" "$BUILD/.kprobes-fragment"
fi

say "building $ARCH kernel and modules in $BUILD (ccache; first build takes a while)"
if ! kmake "$IMAGE_TARGET" modules > "$BUILD/build.log" 2>&1; then
	grep -E 'error|Error|warning:' "$BUILD/build.log" | head -n 40 >&2
	die "kernel build failed; full log: $BUILD/build.log"
fi
if grep -q 'warning:' "$BUILD/build.log"; then
	grep 'warning:' "$BUILD/build.log" | grep -E 'kprobe|kpt_' >&2 &&
		die "compiler or objtool warnings in our code (see $BUILD/build.log)"
fi
echo "$BUILD/$IMAGE"
