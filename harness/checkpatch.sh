#!/usr/bin/env bash
# checkpatch --strict and kernel-doc over every kernel file of ours.
. "$(dirname "$0")/lib.sh"

"$REPO/harness/prepare-tree.sh" > /dev/null
bad=0
files=$(our_files | grep -E '\.(c|h|S)$|Makefile$|Kconfig' || true)
for f in $files; do
	ignore=
	# NOKPROBE_SYMBOL() must end with a semicolon: the tree's callers
	# write it both with and without one.
	[ "$f" = include/asm-generic/kprobes.h ] && ignore="--ignore TRAILING_SEMICOLON"
	out=$(cd "$TREE" && perl scripts/checkpatch.pl --strict --no-tree --terse \
		--show-types -q $ignore -f "$f" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):' || true)
	[ -z "$out" ] || { echo "$out"; bad=1; }
done
for f in $(echo "$files" | grep -E '\.(c|h)$'); do
	out=$(cd "$TREE" && perl scripts/kernel-doc -none "$f" 2>&1 || true)
	[ -z "$out" ] || { echo "$out"; bad=1; }
done
# sparse (make C=2) on our objects, where the build directory is configured
objs=$(echo "$files" | grep -E '^(kernel|arch/x86|lib)/.*\.c$' | sed 's/\.c$/.o/' || true)
if [ "$ARCH" = x86_64 ] && [ -f "$BUILD/.config" ] && [ -n "$objs" ]; then
	out=$(make -s -C "$TREE" O="$BUILD" ARCH=x86_64 CC="ccache gcc" C=2 $objs 2>&1 |
		grep -E 'warning|error' || true)
	[ -z "$out" ] || { echo "$out"; bad=1; }
fi
if [ "$bad" = 0 ]; then
	echo "checkpatch --strict, kernel-doc and sparse: clean ($(echo "$files" | wc -w) files)"
else
	echo "checkpatch --strict / kernel-doc / sparse: problems above"
fi
[ "$bad" = 0 ]
