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
# The benchmark module is kernel code too, though not part of the tree.
bench_files=$(cd "$REPO" && ls harness/bench/module/*.[chS])
for f in $bench_files; do
	out=$(perl "$TREE/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -q -f "$REPO/$f" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):' || true)
	[ -z "$out" ] || { echo "$out"; bad=1; }
done
for f in $(echo "$files" | grep -E '\.(c|h)$'); do
	out=$(cd "$TREE" && perl scripts/kernel-doc -none "$f" 2>&1 || true)
	[ -z "$out" ] || { echo "$out"; bad=1; }
done
# sparse (make C=2) on our objects, in each configured build directory
sparse_check() {
	local arch=$1 karch=$2 cross=$3 objs
	local build=$CACHE/build/$arch
	objs=$(echo "$files" | grep -E "^(kernel|lib|arch/$karch)/.*\.c$" |
		grep -v uprobes | sed 's/\.c$/.o/' || true)
	[ -f "$build/.config" ] && [ -n "$objs" ] || return 0
	out=$(make -s -C "$TREE" O="$build" ARCH="$karch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" C=2 $objs 2>&1 | grep -E 'warning|error' |
		grep -E "^$TREE/($ours_re)" || true)
	[ -z "$out" ] || { echo "$out"; bad=1; }
}
ours_re=$(echo "$files" | sed 's/[.]/\\./g' | paste -sd '|')
sparse_check x86_64 x86 ""
sparse_check arm64 arm64 aarch64-linux-gnu-
if [ "$bad" = 0 ]; then
	echo "checkpatch --strict, kernel-doc and sparse: clean ($(echo "$files" $bench_files | wc -w) files)"
else
	echo "checkpatch --strict / kernel-doc / sparse: problems above"
fi
[ "$bad" = 0 ]
