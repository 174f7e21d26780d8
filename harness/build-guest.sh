#!/usr/bin/env bash
# Build the guest's test programs and modules, harness/guest/$ARCH/, into
# $BUILD/guest, which run-qemu.sh copies to /guest in the initramfs:
#
#   NAME.S    a static program without libc, /guest/NAME, and beside it
#             NAME.offsets: "SYMBOL 0xOFFSET" for its global symbols, the
#             file offsets uprobe_events wants;
#   Kbuild    modules (obj-m), built against the kernel in $BUILD.
#
# Needs the kernel built (harness/build.sh).
. "$(dirname "$0")/lib.sh"

src=$REPO/harness/guest/$ARCH
out=$BUILD/guest
rm -rf "$out"
mkdir -p "$out"
[ -d "$src" ] || exit 0

case "$ARCH" in
x86_64)	cross= ;;
arm64)	cross=aarch64-linux-gnu- ;;
esac

for prog in "$src"/*.S; do
	[ -e "$prog" ] || continue
	name=$(basename "$prog" .S)
	${cross}gcc -nostdlib -static -Wa,--fatal-warnings -o "$out/$name" "$prog"
	"$REPO/harness/elf-offsets.py" "$out/$name" > "$out/$name.offsets"
done

if [ -f "$src/Kbuild" ]; then
	# Built in a copy: kbuild writes its objects next to the sources.
	mod=$BUILD/guest-modules
	rm -rf "$mod"
	cp -r "$src" "$mod"
	if ! with_cpu make -C "$BUILD" ARCH="$ARCH" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" M="$mod" W=1 -j"$JOBS" modules \
		> "$mod/build.log" 2>&1 || grep -q 'warning:' "$mod/build.log"; then
		cat "$mod/build.log" >&2
		die "building the guest modules of harness/guest/$ARCH failed"
	fi
	cp "$mod"/*.ko "$out/"
fi
