#!/usr/bin/env bash
# checkpatch --strict and kernel-doc over every kernel file of ours.
. "$(dirname "$0")/lib.sh"

"$REPO/harness/prepare-tree.sh" > /dev/null
bad=0
files=$(our_files | grep -E '\.(c|h|S)$|Makefile$|Kconfig' || true)
for f in $files; do
	out=$(cd "$TREE" && perl scripts/checkpatch.pl --strict --no-tree --terse \
		--show-types -q -f "$f" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):' || true)
	[ -z "$out" ] || { echo "$out"; bad=1; }
done
for f in $(echo "$files" | grep -E '\.(c|h)$'); do
	out=$(cd "$TREE" && perl scripts/kernel-doc -none "$f" 2>&1 || true)
	[ -z "$out" ] || { echo "$out"; bad=1; }
done
if [ "$bad" = 0 ]; then
	echo "checkpatch --strict and kernel-doc: clean ($(echo "$files" | wc -w) files)"
else
	echo "checkpatch --strict / kernel-doc: problems above"
fi
[ "$bad" = 0 ]
