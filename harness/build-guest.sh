#!/usr/bin/env bash
# Build the guest programs of harness/guest/*.c, static, for $ARCH, into
# $CACHE/guest/$ARCH (rebuilt when a source is newer), and copy them to
# the directory given, if any.
#
#   build-guest.sh [DEST]
. "$(dirname "$0")/lib.sh"

case "$ARCH" in
x86_64)	cc=gcc ;;
arm64)	cc=aarch64-linux-gnu-gcc ;;
*)	die "unknown ARCH=$ARCH" ;;
esac
src=$REPO/harness/guest
out=$CACHE/guest/$ARCH
mkdir -p "$out"
for c in "$src"/*.c; do
	bin=$out/$(basename "$c" .c)
	if [ ! -x "$bin" ] || [ "$c" -nt "$bin" ] || [ "$src/guest.h" -nt "$bin" ]; then
		"$cc" -static -O2 -Wall -Wextra -Werror -o "$bin" "$c" ||
			die "cannot build $c for $ARCH (make deps: libc6-dev-arm64-cross)"
	fi
	[ -z "${1:-}" ] || cp "$bin" "$1/"
done
