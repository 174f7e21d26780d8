#!/usr/bin/env bash
# Build what the guest runs besides busybox, into DEST (the initramfs'
# /guest):
#
#   harness/guest/*.c       static programs (the consumers of kprobes),
#                           DEST/bin/NAME; cached in $CACHE/guest/$ARCH and
#                           rebuilt when their source (with guest.h)
#                           differs from the one they were built from: by
#                           content, not time, as checkouts of other
#                           commits share the cache;
#   harness/guest/ARCH/*.S  static programs without libc, DEST/NAME, and
#                           beside each NAME.offsets: "SYMBOL 0xOFFSET" for
#                           its global symbols, the file offsets
#                           uprobe_events wants;
#   harness/guest/modules/Kbuild, harness/guest/ARCH/Kbuild
#                           modules (obj-m), for every arch and for ARCH,
#                           built against the kernel in $BUILD, DEST/*.ko.
#
#   build-guest.sh DEST
#
# Needs the kernel built (harness/build.sh).
. "$(dirname "$0")/lib.sh"

dest=${1:?usage: build-guest.sh DEST}
case "$ARCH" in
x86_64)	cross= ;;
arm64)	cross=aarch64-linux-gnu- ;;
*)	die "unknown ARCH=$ARCH" ;;
esac
mkdir -p "$dest/bin"

# The consumer programs
src=$REPO/harness/guest
out=$CACHE/guest/$ARCH
mkdir -p "$out"
for c in "$src"/*.c; do
	[ -e "$c" ] || continue
	bin=$out/$(basename "$c" .c)
	sum=$(cat "$c" "$src/guest.h" | sha256sum | cut -d' ' -f1)
	if [ ! -x "$bin" ] || [ "$(cat "$bin.sum" 2>/dev/null)" != "$sum" ]; then
		rm -f "$bin.sum"
		"${cross}gcc" -static -O2 -Wall -Wextra -Werror -o "$bin" "$c" ||
			die "cannot build $c for $ARCH (make deps: libc6-dev-arm64-cross)"
		echo "$sum" > "$bin.sum"
	fi
	cp "$bin" "$dest/bin/"
done

# The arch's test programs
src=$REPO/harness/guest/$ARCH
for prog in "$src"/*.S; do
	[ -e "$prog" ] || continue
	name=$(basename "$prog" .S)
	"${cross}gcc" -nostdlib -static -Wa,--fatal-warnings -o "$dest/$name" "$prog"
	"$REPO/harness/elf-offsets.py" "$dest/$name" > "$dest/$name.offsets"
done

# The modules, built together in a copy: kbuild writes its objects next to
# the sources.
mod=$BUILD/guest-modules
rm -rf "$mod"
mkdir -p "$mod"
for d in "$REPO/harness/guest/modules" "$src"; do
	[ -f "$d/Kbuild" ] || continue
	for f in "$d"/*; do
		name=$(basename "$f")
		[ "$name" = Kbuild ] && continue
		[ ! -e "$mod/$name" ] || die "harness/guest/modules and $src both have $name"
		cp -r "$f" "$mod/"
	done
	cat "$d/Kbuild" >> "$mod/Kbuild"
done
[ -f "$mod/Kbuild" ] || exit 0
if ! with_cpu make -C "$BUILD" ARCH="$ARCH" CROSS_COMPILE="$cross" \
	CC="ccache ${cross}gcc" M="$mod" W=1 -j"$JOBS" modules \
	> "$mod/build.log" 2>&1 || grep -q 'warning:' "$mod/build.log"; then
	cat "$mod/build.log" >&2
	die "building the guest modules (harness/guest/modules, harness/guest/$ARCH) failed"
fi
cp "$mod"/*.ko "$dest/"
