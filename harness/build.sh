#!/usr/bin/env bash
# Configure and build the kernel for $ARCH in $BUILD, incrementally.
# Prints the path of the kernel image as the last line.
#
# The configuration is allnoconfig + harness/configs/{common,$ARCH}.config,
# + $VARIANT.config (and $ARCH-$VARIANT.config, if there is one) with
# VARIANT= (e.g. VARIANT=ftrace: a distribution-like kernel).  STOCK=1
# builds the pristine base tree instead of ours, out of tree, with the same
# fragments (see lib.sh for the build directories).
# Other kernels (harness/bench.sh) set KPROBES_SRC to another source tree
# (such as the pristine base tree, built out of tree and never modified),
# KPROBES_BUILD to their build directory and KPROBES_CONFIGS to their list
# of configuration fragments.
. "$(dirname "$0")/lib.sh"

what="$ARCH${VARIANT:+ $VARIANT}"
if [ "$STOCK" = 1 ]; then
	extract_pristine
	what="stock $what"
else
	"$REPO/harness/prepare-tree.sh" > /dev/null
fi
SRC=${KPROBES_SRC:-$TREE}

[ -n "$KARCH" ] || die "unknown ARCH=$ARCH"

mkdir -p "$BUILD"
frag=$(mktemp)
trap 'rm -f "$frag"' EXIT
if [ -n "${KPROBES_CONFIGS:-}" ]; then
	# shellcheck disable=SC2086 # a list of paths
	cat $KPROBES_CONFIGS > "$frag"
else
	cat "$REPO/harness/configs/common.config" "$REPO/harness/configs/$ARCH.config" > "$frag"
	if [ -n "$VARIANT" ]; then
		[ -f "$REPO/harness/configs/$VARIANT.config" ] ||
			die "no harness/configs/$VARIANT.config for VARIANT=$VARIANT"
		cat "$REPO/harness/configs/$VARIANT.config" >> "$frag"
		# What only some arches have (e.g. x86_64-ftrace.config)
		if [ -f "$REPO/harness/configs/$ARCH-$VARIANT.config" ]; then
			cat "$REPO/harness/configs/$ARCH-$VARIANT.config" >> "$frag"
		fi
	fi
fi

kmake() {
	with_cpu make -C "$SRC" O="$BUILD" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
		CC="ccache ${CROSS}gcc" -j"$JOBS" "$@"
}

if ! cmp -s "$frag" "$BUILD/.kprobes-fragment" || [ ! -f "$BUILD/.config" ]; then
	say "configuring $what in $BUILD (allnoconfig + harness/configs)"
	kmake -s KCONFIG_ALLCONFIG="$frag" allnoconfig
	missing=0
	while read -r line; do
		grep -qx "$line" "$BUILD/.config" && continue
		sym=${line%%=*}
		# The stock tree lacks the options of our own tests
		# (KPROBES_TORTURE_TEST): not asked for there.
		if [ "$STOCK" = 1 ] && ! grep -rqxE --include='Kconfig*' \
			"(menu)?config ${sym#CONFIG_}" "$SRC"; then
			echo "config: $sym is not an option of the stock tree" >&2
			continue
		fi
		echo "config: $line did not stick" >&2
		missing=1
	# The last assignment of a symbol wins (a variant may override one
	# of common.config's)
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | tac | awk -F= '!seen[$1]++')
	[ "$missing" = 0 ] || die "the configuration is not what harness/configs asks for"
	cp "$frag" "$BUILD/.kprobes-fragment"
fi

say "building $what kernel and modules in $BUILD (ccache; first build takes a while)"
if ! kmake "$IMAGE_TARGET" modules > "$BUILD/build.log" 2>&1; then
	grep -E 'error|Error|warning:' "$BUILD/build.log" | head -n 40 >&2
	die "kernel build failed; full log: $BUILD/build.log"
fi
if [ "$STOCK" != 1 ] && grep -q 'warning:' "$BUILD/build.log"; then
	grep 'warning:' "$BUILD/build.log" | grep -E 'kprobe|kp[a-z]_' >&2 &&
		die "compiler or objtool warnings in our code (see $BUILD/build.log)"
fi
echo "$BUILD/$IMAGE"
